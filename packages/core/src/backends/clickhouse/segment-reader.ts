import { PAGEVIEW_EVENT, VISIT_COLUMNS } from "../../model/dimensions.js";
import type { Condition, VisitDimension } from "../../model/filters.js";
import type { StatRow } from "../../model/stats-schemas.js";
import { pageGoalValue } from "../../stats/segment-reader.js";
import type { CountRange, CountReader, Statistic } from "../../stats/count-reader.js";
import { clickhouseConditions, likePattern, visitColumn, type ClickhouseConditions } from "./conditions.js";
import { countReader, figureRows, queryParams, type RunOptions, type RunQuery } from "./query.js";
import type { StoredUntil } from "./stored-visits.js";
import { visitPartsOf, visitsWith } from "./visit-source.js";
import { HIT, KIND, STARTED } from "./visits.js";

/**
 * How a statistic is counted under filters (docs/statistics.md, "Segments: filters"): from
 * the matching visits started in the range, from the hits in the range of matching visits
 * that match the hit conditions themselves, or from each visitor-day's first matching visit.
 */
interface Counting {
  from: "visits" | "pageviews" | "events" | "visitor-firsts";
  /** The row's value: on the visit's columns, or its hit `h` (visits.ts's `HIT`). */
  value: string;
  count: string;
  /** Which hits (pageviews or events) count, beyond their kind. */
  where?: string;
}

const VISIT_DAY = "toString(vday)";
/** A counted hit's day and local hour. */
const HIT_DAY = `h.${HIT.day}`;
const HIT_HOUR = `h.${HIT.hour}`;
const VISITOR_DAYS = "uniqExact(vday, day_visitor)";
const hour = (expression: string) => `leftPad(toString(${expression}), 2, '0')`;
const dayHour = (day: string, hourOf: string) => `concat(toString(${day}), ' ', ${hour(hourOf)})`;
/** The series counted from the matching visits (by day, or by a visit column), which one statement reads together. */
const VISIT_SERIES = ["visits", "bounces", "visit_duration", "visit_pageviews", "visitors"] as const;
/** What each series of visits sums, by day, by the hour of each day or by a visit column. */
const VISIT_FIGURES: Readonly<Record<string, string>> = {
  visits: "count()",
  bounces: "countIf(pageviews = 1 AND events = 0)",
  visit_duration: "sum(duration)",
  visit_pageviews: "sum(pageviews)",
  visitors: VISITOR_DAYS,
};

function countingOf(stat: Statistic): Counting {
  // `…_by_hour`: by the hour of each day (the Stats API v2's time:hour), as `Y-m-d HH`.
  const byHour = stat.name.endsWith("_by_hour") ? stat.name.slice(0, -"_by_hour".length) : undefined;
  if (byHour === "visitors") return { from: "visitor-firsts", value: dayHour("vday", "first_hour"), count: "count()" };
  if (byHour === "pageviews" || byHour === "events") return { from: byHour, value: dayHour(HIT_DAY, HIT_HOUR), count: "count()" };
  const figure = VISIT_FIGURES[byHour ?? stat.name];
  if (figure !== undefined) {
    const value = byHour !== undefined ? dayHour("vday", "start_hour") : stat.by !== undefined ? visitColumn(stat.by) : VISIT_DAY;
    return { from: "visits", value, count: figure };
  }
  switch (stat.name) {
    case "visitors_hours":
      return { from: "visitor-firsts", value: hour("first_hour"), count: "count()" };
    case "pageviews":
      return { from: "pageviews", value: stat.by !== undefined ? visitColumn(stat.by) : `toString(${HIT_DAY})`, count: "count()" };
    case "pageviews_hours":
      return { from: "pageviews", value: hour(HIT_HOUR), count: "count()" };
    case "page":
      return { from: "pageviews", value: `h.${HIT.page}`, count: "count()" };
    case "event":
      return { from: "events", value: `h.${HIT.event}`, count: "count()" };
    case "event_visitors":
      return { from: "events", value: `h.${HIT.event}`, count: VISITOR_DAYS };
    case "event_property": {
      const property = "{property:String}";
      const value = `h.${HIT.props}[${property}]`;
      const has = `mapContains(h.${HIT.props}, ${property})`;
      return stat.event === PAGEVIEW_EVENT
        ? { from: "pageviews", value, count: "count()", where: has }
        : { from: "events", value, count: "count()", where: `h.${HIT.event} = {event:String} AND ${has}` };
    }
  }
  const column = VISIT_COLUMNS.find((each) => each.statistic === stat.name);
  if (!column) throw new Error(`ClickHouse does not count the statistic ${stat.name} under filters`);
  const value = visitColumn(column.column);
  if (column.counted === "pageview") return { from: "pageviews", value, count: "count()" };
  return { from: "visits", value, count: column.counted === "visit" || column.counted === "exit" ? "count()" : VISITOR_DAYS };
}

/** Where a statement reads the range's visits, and their hits too, or their pageviews on the range's days (`over` in the reader). */
const VISITS = "\u0000visits\u0000";
const VISITS_WITH_HITS = "\u0000visits and hits\u0000";
const VISITS_WITH_VIEWS = "\u0000visits and pageviews\u0000";

/**
 * Statistics under filters (and page goals): the visits (visit-source.ts: kept for closed
 * days, `stored` telling which, formed from `tally_hits` for the rest), each with a flag per
 * hit condition (one of its hits matches it), counted when they match every condition; hit
 * statistics count their hits in the range that match the hit conditions themselves. Every
 * value a request brings is a query parameter.
 */
export function createClickhouseSegmentReader(run: RunQuery, conditions: readonly Condition[], stored?: StoredUntil): CountReader {
  /**
   * Runs a statement over the range's visits (written `FROM ${VISITS}`; `${VISITS_WITH_HITS}`
   * for their hits too, or `${VISITS_WITH_VIEWS}` for their pageviews on the range's days,
   * those of visits started two days before the range among them): the visits with the
   * conditions' flags and the first-hit values the statement reads.
   */
  async function over<Row>(where: ClickhouseConditions, statement: string, range: CountRange, options: RunOptions): Promise<Row[]> {
    const marker = [VISITS_WITH_HITS, VISITS_WITH_VIEWS].find((each) => statement.includes(each)) ?? VISITS;
    const read = { hits: marker === VISITS_WITH_HITS, views: marker === VISITS_WITH_VIEWS };
    const { parts, split } = await visitPartsOf(range, read, marker === VISITS ? 0 : 2, stored);
    const visits = visitsWith(where, statement, parts);
    return run<Row>(
      statement.replace(marker, () => visits),
      range,
      {
        ...options,
        ...(split === undefined ? {} : { split }),
      },
    );
  }

  /** The statement counting one statistic over a range: its rows' value and count, over the visits (`over`). */
  function statement(stat: Statistic, where: ClickhouseConditions, range: CountRange): string {
    const counting = countingOf(stat);
    const started = STARTED;
    const grouped = `GROUP BY value HAVING value != '' AND count > 0`;
    const select = `SELECT ${counting.value} AS value, toUInt64(${counting.count}) AS count`;
    switch (counting.from) {
      case "visits":
        return `${select} FROM ${VISITS} WHERE ${started} AND ${where.visit()} ${grouped}`;
      case "visitor-firsts":
        // The hour each visitor-day's first matching visit started.
        return (
          `${select} FROM (SELECT vday, argMin(start_hour, start) AS first_hour FROM ${VISITS} ` +
          `WHERE ${started} AND ${where.visit()} GROUP BY vday, day_visitor) ${grouped}`
        );
      default:
        if (counting.value.includes("h.") || counting.count !== "count()")
          return `${select} ${countedHits(counting.from, where, counting.where)} ${grouped}`;
        // Pageviews of whole days by a value of their visit, no hit narrowing them: each matching visit's pageviews on the range's days.
        if (counting.from === "pageviews" && !counting.where && where.flags.length === 0 && range.seconds === undefined)
          return `SELECT ${counting.value} AS value, toUInt64(sum(views)) AS count FROM (SELECT * FROM ${VISITS_WITH_VIEWS} WHERE ${where.visit()}) ${grouped}`;
        // Hits counted by a value of their visit: each matching visit's counted hits, without joining them.
        return (
          `SELECT ${counting.value} AS value, toUInt64(sum(arrayCount(h -> ${countedHit(counting.from, where, counting.where)}, hits))) AS count ` +
          `FROM (SELECT * FROM ${VISITS_WITH_HITS} WHERE ${where.visit()}) ${grouped}`
        );
    }
  }

  /** Whether a hit `h` of a matching visit counts: a pageview or event of the range that matches the hit conditions itself. */
  function countedHit(from: "pageviews" | "events", where: ClickhouseConditions, also?: string): string {
    const events = from === "events";
    const kind = `h.${HIT.kind} = ${events ? KIND.event : KIND.pageview}`;
    const local = `h.${HIT.local}`;
    return (
      `${HIT_DAY} BETWEEN {from:Date} AND {to:Date} AND ${local} >= {start:Int64} AND ${local} < {end:Int64} ` +
      `AND ${kind}${also ? ` AND ${also}` : ""} AND ${where.hit(events, "h")}`
    );
  }

  /** The hits `h` of the range of matching visits that the conditions count: pageviews or events. */
  function countedHits(from: "pageviews" | "events", where: ClickhouseConditions, also?: string): string {
    // The matching visits first, then only their counted hits joined.
    return `FROM (SELECT * FROM ${VISITS_WITH_HITS} WHERE ${where.visit()}) ARRAY JOIN arrayFilter(h -> ${countedHit(from, where, also)}, hits) AS h`;
  }

  /** Visitor-days and pageviews of each page goal over a range, from one statement (the range's visits formed once). */
  async function pageGoalCounts(range: CountRange, patterns: readonly string[]): Promise<Map<string, [visitors: number, views: number]>> {
    const params = queryParams();
    const where = clickhouseConditions(conditions, params);
    const figures = patterns.flatMap((pattern, index) => {
      const matches = `h.${HIT.page} LIKE ${params.add(likePattern(pattern), "String")}`;
      return [
        `toUInt64(uniqExactIf((vday, day_visitor), ${matches})) AS visitors_${index}`,
        `toUInt64(countIf(${matches})) AS views_${index}`,
      ];
    });
    const [row] = await over<Record<string, string | number>>(
      where,
      `SELECT ${figures.join(", ")} ${countedHits("pageviews", where)}`,
      range,
      { params },
    );
    return new Map(
      patterns.map((pattern, index) => [pattern, [Number(row?.[`visitors_${index}`] ?? 0), Number(row?.[`views_${index}`] ?? 0)]]),
    );
  }

  /**
   * Page goals asked together (the goals statistic asks each pattern at once, visitors then
   * views) are counted together: the patterns asked for a range before its statement starts
   * share it, and its counts answer later asks of those patterns.
   */
  const goalBatches = new Map<string, { patterns: string[]; started: boolean; counts: Promise<Map<string, [number, number]>> }>();
  async function pageGoalRows(stat: Statistic, range: CountRange): Promise<StatRow[]> {
    const pattern = stat.pattern ?? "";
    const key = JSON.stringify([range.from, range.to, range.seconds]);
    let batch = goalBatches.get(key);
    if (!batch || (batch.started && !batch.patterns.includes(pattern))) {
      const created = { patterns: [] as string[], started: false, counts: Promise.resolve(new Map<string, [number, number]>()) };
      created.counts = Promise.resolve().then(() => {
        created.started = true;
        return pageGoalCounts(range, created.patterns);
      });
      goalBatches.set(key, (batch = created));
    }
    if (!batch.patterns.includes(pattern)) batch.patterns.push(pattern);
    const [visitors, views] = (await batch.counts).get(pattern) ?? [0, 0];
    const count = stat.name === "page_goal_visitors" ? visitors : views;
    return count > 0 ? [{ value: pageGoalValue(pattern), count }] : [];
  }

  async function all(stat: Statistic, range: CountRange): Promise<StatRow[]> {
    if (stat.name === "page_goal_visitors" || stat.name === "page_goal_views") return pageGoalRows(stat, range);
    const params = queryParams();
    const where = clickhouseConditions(conditions, params);
    const rows = await over<{ value: string; count: string | number }>(where, statement(stat, where, range), range, { stat, params });
    return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
  }

  /** The series of the matching visits of a range (by day, or by a visit column), from one forming of its visits. */
  async function visitSeries(range: CountRange, by?: VisitDimension): Promise<Map<string, StatRow[]>> {
    const params = queryParams();
    const where = clickhouseConditions(conditions, params);
    const figures = VISIT_SERIES.map((name) => `toUInt64(${VISIT_FIGURES[name]}) AS ${name}`);
    const rows = await over<Record<string, string | number>>(
      where,
      `SELECT ${by === undefined ? VISIT_DAY : visitColumn(by)} AS value, ${figures.join(", ")} FROM ${VISITS} ` +
        `WHERE ${STARTED} AND ${where.visit()} GROUP BY value HAVING value != ''`,
      range,
      { params },
    );
    return figureRows(rows, VISIT_SERIES);
  }

  return countReader({ all, series: VISIT_SERIES, visitSeries });
}
