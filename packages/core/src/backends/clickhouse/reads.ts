import { VISIT_COLUMNS, type HitDimension } from "../../model/dimensions.js";
import type { StatRow } from "../../model/stats-schemas.js";
import type { CountRange, CountReader, Statistic } from "../../stats/count-reader.js";
import { createStatsRunner } from "../../stats/stats.js";
import type { StatsReads } from "../backend.js";
import type { ClickhouseClient } from "./connect.js";
import type { PathReader } from "../../stats/path-reader.js";
import { countReader, figureRows, queryRunner, type RunQuery } from "./query.js";
import { createClickhouseSegmentReader } from "./segment-reader.js";
import { createClickhousePathReader } from "./path-reader.js";
import { clickhouseVisits } from "./sessions.js";
import { clickhouseEngagementSignals } from "./engagement.js";
import { clickhouseRevenue } from "./revenue.js";
import { HITS_TABLE, quoted, valuesColumn, VISITOR_KINDS } from "./schema.js";
import { ELEMENTS, KIND, visitsOf } from "./visits.js";
import {
  createVisitStore,
  lastClosedDay,
  sharedSplits,
  STORED_VISITOR_DAYS,
  storedVisits,
  VISITOR_DAY_FIGURES,
  type StoredUntil,
} from "./stored-visits.js";
import { addDays } from "../../shared/calendar.js";

/** How a statistic is counted from the hits: its rows' value and count, and the rows it reads. */
export interface Counting {
  /**
   * `hits`: the range's hits; `visitor-days`: one row per visitor-day; `visitor-values`: one
   * row per visitor-day and value its hits had of `kind` (events: their names), its day
   * beside it; `visits`: the visits started in the range; `visit-hits`: pageviews with their
   * visit's values.
   */
  from: "hits" | "visitor-days" | "visitor-values" | "visits" | "visit-hits";
  kind?: HitDimension;
  value: string;
  count: string;
  where?: string;
}

const dayValue = "toString(day)";
/** The day series counted from the visits started each day. */
const VISIT_SERIES = ["visits", "bounces", "visit_duration", "visit_pageviews"] as const;
const hourValue = (hour: string) => `leftPad(toString(${hour}), 2, '0')`;
const HIT = `kind != 'engagement'`;

/** The visit columns by statistic (`landing_page` → entry page, …). */
const VISIT_STATISTICS = new Map(VISIT_COLUMNS.map((column) => [column.statistic, column]));
/** The first hit's values a visit keeps: those its statistics count. */
const VISIT_KINDS = [
  ...new Set(VISIT_COLUMNS.filter((column) => column.counted === "visit" || column.counted === "pageview").map((c) => c.kind)),
];

/** How each statistic (and each series the ratios and goals are read from) is counted. */
export function countingOf(stat: Statistic): Counting | null {
  switch (stat.name) {
    case "pageviews":
      return { from: "hits", value: dayValue, count: "count()", where: "kind = 'pageview'" };
    case "pageviews_hours":
      return { from: "hits", value: hourValue("toHour(local_time)"), count: "count()", where: "kind = 'pageview'" };
    case "page":
      return { from: "hits", value: "page", count: "count()", where: "kind = 'pageview'" };
    case "event":
      return { from: "hits", value: "event", count: "count()", where: "kind = 'event'" };
    case "event_property":
      return {
        from: "hits",
        value: "props[{property:String}]",
        count: "count()",
        where: `${HIT} AND if(kind = 'pageview', 'pageview', event) = {event:String} AND props[{property:String}] != ''`,
      };
    case "visitors":
      return { from: "visitor-days", value: dayValue, count: "count()" };
    case "visitors_hours":
      return { from: "visitor-days", value: hourValue("hour"), count: "count()" };
    case "event_visitors":
      return { from: "visitor-values", kind: "event", value: "event", count: "count()" };
    case "visits":
      return { from: "visits", value: "toString(vday)", count: "count()" };
    case "bounces":
      return { from: "visits", value: "toString(vday)", count: "countIf(pageviews = 1 AND events = 0)" };
    case "visit_duration":
      return { from: "visits", value: "toString(vday)", count: "sum(duration)" };
    case "visit_pageviews":
      return { from: "visits", value: "toString(vday)", count: "sum(pageviews)" };
  }
  const column = VISIT_STATISTICS.get(stat.name);
  if (!column) return null;
  const kind = quoted(column.kind);
  switch (column.counted) {
    case "visit":
      return { from: "visits", value: kind, count: "count()" };
    case "exit":
      return { from: "visits", value: "exit_page", count: "count()" };
    case "visitor":
      return { from: "visitor-days", value: kind, count: "count()" };
    case "visitor-value":
      return { from: "visitor-values", kind: column.kind, value: kind, count: "count()" };
    case "pageview":
      return { from: "visit-hits", value: kind, count: "sum(views)" };
  }
}

/** What the rows of a counting come from: visits stored (days before `{split:Date}`), formed when read (from it on), or both. */
export interface Parts {
  stored: boolean;
  formed: boolean;
}

/** The columns the visit statistics read of a visit. */
const VISIT_FIGURES = ["vday", "pageviews", "events", "duration", "exit_page", ...VISIT_KINDS.map(quoted)].join(", ");
const KIND_COLUMNS = VISIT_KINDS.map(quoted).join(", ");
const unionOf = (parts: Parts, stored: string, formed: string) =>
  `(${[...(parts.stored ? [stored] : []), ...(parts.formed ? [formed] : [])].join(" UNION ALL ")})`;

/**
 * The rows a counting reads, in `{from:Date}`…`{to:Date}`; the visits and visitor-days before
 * `{split:Date}` stored, from it on formed. Each has its day (`day`, or `vday` for visits; a
 * formed visit's pageview its own day, a stored visit's its start day).
 */
export function rowsOf({ from, kind }: Pick<Counting, "from" | "kind">, parts: Parts): string {
  const hits = `SELECT * FROM ${HITS_TABLE} WHERE website_id = {website:UInt32} AND day BETWEEN {from:Date} AND {to:Date}`;
  const formedHits = `SELECT * FROM ${HITS_TABLE} WHERE website_id = {website:UInt32} AND day BETWEEN {split:Date} AND {to:Date}`;
  switch (from) {
    case "hits":
      return `(${hits})`;
    case "visitor-days": {
      // A visitor-day's first hit (in time order) gives its hour and the values counted once per visitor.
      const figures = VISITOR_DAY_FIGURES.filter(([name]) => name === "hour" || VISITOR_KINDS.includes(name as HitDimension));
      const columns = ["day", ...figures.map(([name]) => quoted(name))].join(", ");
      return unionOf(
        parts,
        `SELECT ${columns} FROM (${STORED_VISITOR_DAYS})`,
        `SELECT day, ${figures.map(([name, expression]) => `${expression} AS ${quoted(name)}`).join(", ")} FROM (${formedHits} AND ${HIT}) GROUP BY day, visitor`,
      );
    }
    case "visitor-values": {
      const events = kind === "event";
      const column = quoted(kind!);
      return unionOf(
        parts,
        `SELECT day, arrayJoin(${events ? "event_names" : valuesColumn(kind!)}) AS ${column} FROM (${STORED_VISITOR_DAYS})`,
        `SELECT day, ${column} FROM (SELECT DISTINCT day, visitor, ${column} FROM (${formedHits} AND ${events ? "kind = 'event'" : HIT}))`,
      );
    }
    case "visits":
      return unionOf(
        parts,
        `SELECT ${VISIT_FIGURES} FROM (${storedVisits("{from:Date}")})`,
        `SELECT ${VISIT_FIGURES} FROM (WITH elements AS (${ELEMENTS}) SELECT * FROM (${visitsOf(VISIT_KINDS)})) WHERE vday BETWEEN {split:Date} AND {to:Date}`,
      );
    case "visit-hits":
      // Pageviews of the range with their visits' values: a stored visit's on its start day and (past midnight) the day after.
      return unionOf(
        parts,
        `SELECT ${KIND_COLUMNS}, toUInt64(if(vday >= {from:Date}, first_day_pageviews, 0) + if(vday + 1 < {split:Date}, pageviews - first_day_pageviews, 0)) AS views, vday AS day ` +
          `FROM (${storedVisits("{from:Date} - 1")})`,
        `WITH elements AS (${ELEMENTS}) SELECT ${VISIT_KINDS.map((kind) => `v.${quoted(kind)} AS ${quoted(kind)}`).join(", ")}, toUInt64(1) AS views, h.day AS day ` +
          `FROM elements AS h INNER JOIN (${visitsOf(VISIT_KINDS)}) AS v ON v.visit = h.visit ` +
          `WHERE h.day BETWEEN {split:Date} AND {to:Date} AND tupleElement(h.e, 2) = ${KIND.pageview}`,
      );
  }
}

/**
 * Counts unfiltered statistics from `tally_hits` as the rollups count them
 * (docs/statistics.md): hits by their day, visitors by visitor-day, visits by the day they
 * started, formed at read time (visits.ts). Every count is a GROUP BY in ClickHouse.
 */
export function createClickhouseReader(run: RunQuery, stored?: StoredUntil): CountReader {
  /** The first day whose visits are formed when read (the days before it stored), per range and counting. */
  async function splitOf(from: Counting["from"], range: CountRange): Promise<string> {
    if (stored === undefined || range.seconds || from === "hits") return range.from;
    // A range's pageviews include those of visits started the day before.
    const split = await stored(from === "visit-hits" ? addDays(range.from, -1) : range.from, range.to);
    return split > range.from ? split : range.from;
  }

  /** A statement over the rows of a counting in a range, run with the range's split between stored and formed visits. */
  async function over<Row>(counting: Counting, range: CountRange, statement: (rows: string) => string, stat?: Statistic): Promise<Row[]> {
    const split = await splitOf(counting.from, range);
    const rows = rowsOf(counting, { stored: split > range.from, formed: split <= range.to });
    return run<Row>(statement(rows), range, { ...(stat ? { stat } : {}), split });
  }

  async function all(stat: Statistic, range: CountRange): Promise<StatRow[]> {
    const counting = countingOf(stat);
    if (!counting) throw new Error(`ClickHouse does not count the statistic ${stat.name}`);
    const rows = await over<{ value: string; count: string | number }>(
      counting,
      range,
      (source) =>
        `SELECT ${counting.value} AS value, toUInt64(${counting.count}) AS count FROM ${source}` +
        `${counting.where ? ` WHERE ${counting.where}` : ""} GROUP BY value HAVING value != '' AND count > 0`,
      stat,
    );
    return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
  }

  /** The day series of visits of a range (visits, bounces, duration, pageviews), from one forming of its visits. */
  async function visitSeries(range: CountRange): Promise<Map<string, StatRow[]>> {
    const figures = VISIT_SERIES.map((name) => `toUInt64(${countingOf({ name })!.count}) AS ${name}`);
    const rows = await over<Record<string, string | number>>(
      { from: "visits", value: "", count: "" },
      range,
      (source) => `SELECT toString(vday) AS value, ${figures.join(", ")} FROM ${source} GROUP BY value`,
    );
    return figureRows(rows, VISIT_SERIES);
  }

  return countReader({ all, series: VISIT_SERIES, visitSeries });
}

/**
 * Statistics with ClickHouse beside the database: counts from ClickHouse (unfiltered ones
 * as the rollups count them; filtered ones, page goals, the hourly series and breakdowns
 * by a visit column, funnels and journeys from the visits kept for closed days and formed
 * for the rest; the visits explorer, the engagement statistics and revenue under filters
 * from the visits formed at read time). Parts of days (the Stats API v2's
 * date-times) are read as whole days are, within their local seconds. The database's
 * runner is closed with it.
 */
export function createClickhouseStatsReads(client: ClickhouseClient, database: StatsReads, timeoutMs: number): ClickhouseStatsReads {
  const visitStore = createVisitStore(client);
  const clickhouse = createStatsRunner({
    readerFor: (websiteId, query) => {
      const run = queryRunner(client, websiteId, timeoutMs);
      const stored = sharedSplits((from, to) => visitStore.storedUntil(websiteId, from, to));
      return query.conditions.length === 0 && (query.goal_page ?? []).length === 0 && !query.fromRows
        ? createClickhouseReader(run, stored)
        : createClickhouseSegmentReader(run, query.conditions, stored);
    },
    pathsFor: (websiteId, conditions) => {
      const run = queryRunner(client, websiteId, timeoutMs);
      const stored = sharedSplits((from, to) => visitStore.storedUntil(websiteId, from, to));
      return createClickhousePathReader(
        run,
        conditions,
        {
          ...answeredElsewhere,
          revenue: (range) => clickhouseRevenue(run, conditions, range),
          engagementSignals: (range) => clickhouseEngagementSignals(run, conditions, range),
          visits: clickhouseVisits(run, conditions),
        },
        stored,
      );
    },
  });
  return {
    ...clickhouse,
    async keepClosedDays(websiteIds) {
      const to = lastClosedDay(Date.now());
      const from = addDays(to, 1 - DAYS_KEPT_AHEAD);
      let kept = 0;
      for (const websiteId of websiteIds) kept += await visitStore.keep(websiteId, from, to);
      return kept;
    },
    close: () => database.close(),
  };
}

/** Closed days whose visits a timer keeps ahead of reads: the dashboard's longest period but all time (a year), and a day. */
const DAYS_KEPT_AHEAD = 366;

export interface ClickhouseStatsReads extends StatsReads {
  /** Forms and keeps the visits of each website's closed days of the last year not kept yet (`tally.buildDayBlocks()`'s schedule); answers how many days. */
  keepClosedDays(websiteIds: readonly number[]): Promise<number>;
}

/** The path reads the ClickHouse path reader answers itself: they never reach here. */
const elsewhere = () => Promise.reject(new Error("answered by ClickHouse"));
const answeredElsewhere: Pick<PathReader, "funnelVisitors" | "journeyCounts" | "valuesOf" | "rowsRead"> = {
  funnelVisitors: elsewhere,
  journeyCounts: elsewhere,
  valuesOf: elsewhere,
  rowsRead: elsewhere,
};
