import { VISIT_COLUMNS } from "../../model/dimensions.js";
import type { StatRow } from "../../model/stats-schemas.js";
import type { CountReader, DayRange, Statistic } from "../../stats/count-reader.js";
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
import { HITS_TABLE, quoted } from "./schema.js";
import { ELEMENTS, KIND, visitsOf } from "./visits.js";

/** How a statistic is counted from the hits: its rows' value and count, and the rows it reads. */
interface Counting {
  /** `hits`: the range's hits; `visitor-days`: one row per visitor-day; `visits`: the visits started in the range; `visit-hits`: hits with their visit. */
  from: "hits" | "visitor-days" | "visits" | "visit-hits";
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
function countingOf(stat: Statistic): Counting | null {
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
      return { from: "hits", value: "event", count: "uniqExact(visitor, day)", where: "kind = 'event'" };
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
      return { from: "hits", value: kind, count: "uniqExact(visitor, day)", where: HIT };
    case "pageview":
      return { from: "visit-hits", value: kind, count: "count()", where: `element_kind = ${KIND.pageview}` };
  }
}

/** The rows a counting reads, in `{from:Date}`…`{to:Date}`. */
function rowsOf(from: Counting["from"]): string {
  const hits = `SELECT * FROM ${HITS_TABLE} WHERE website_id = {website:UInt32} AND day BETWEEN {from:Date} AND {to:Date}`;
  switch (from) {
    case "hits":
      return `(${hits})`;
    case "visitor-days": {
      // A visitor-day's first hit (in time order) gives its hour and the values counted once per visitor.
      const kinds = VISIT_COLUMNS.filter((column) => column.counted === "visitor").map((column) => quoted(column.kind));
      const first = ["toHour(local_time) AS hour", ...kinds.map((kind) => `${kind} AS ${kind}`)].map((column) => {
        const [expression, name] = column.split(" AS ");
        return `argMin(${expression}, (timestamp, kind)) AS ${name}`;
      });
      return `(SELECT day, visitor, ${first.join(", ")} FROM (${hits} AND ${HIT}) GROUP BY day, visitor)`;
    }
    case "visits":
      return `(WITH elements AS (${ELEMENTS}) SELECT * FROM (${visitsOf(VISIT_KINDS)}) WHERE vday BETWEEN {from:Date} AND {to:Date})`;
    case "visit-hits":
      return (
        `(WITH elements AS (${ELEMENTS}) SELECT h.day AS day, tupleElement(h.e, 2) AS element_kind, ` +
        `${VISIT_KINDS.map((kind) => `v.${quoted(kind)} AS ${quoted(kind)}`).join(", ")} ` +
        `FROM elements AS h INNER JOIN (${visitsOf(VISIT_KINDS)}) AS v ON v.visit = h.visit WHERE h.day BETWEEN {from:Date} AND {to:Date})`
      );
  }
}

/**
 * Counts unfiltered statistics from `tally_hits` as the rollups count them
 * (docs/statistics.md): hits by their day, visitors by visitor-day, visits by the day they
 * started, formed at read time (visits.ts). Every count is a GROUP BY in ClickHouse.
 */
export function createClickhouseReader(run: RunQuery): CountReader {
  async function all(stat: Statistic, range: DayRange): Promise<StatRow[]> {
    const counting = countingOf(stat);
    if (!counting) throw new Error(`ClickHouse does not count the statistic ${stat.name}`);
    const query =
      `SELECT ${counting.value} AS value, toUInt64(${counting.count}) AS count FROM ${rowsOf(counting.from)}` +
      `${counting.where ? ` WHERE ${counting.where}` : ""} GROUP BY value HAVING value != '' AND count > 0`;
    const rows = await run<{ value: string; count: string | number }>(query, range, { stat });
    return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
  }

  /** The day series of visits of a range (visits, bounces, duration, pageviews), from one forming of its visits. */
  async function visitSeries(range: DayRange): Promise<Map<string, StatRow[]>> {
    const figures = VISIT_SERIES.map((name) => `toUInt64(${countingOf({ name })!.count}) AS ${name}`);
    const rows = await run<Record<string, string | number>>(
      `SELECT toString(vday) AS value, ${figures.join(", ")} FROM ${rowsOf("visits")} GROUP BY value`,
      range,
    );
    return figureRows(rows, VISIT_SERIES);
  }

  return countReader({ all, series: VISIT_SERIES, visitSeries });
}

/**
 * Statistics with ClickHouse beside the database: counts from ClickHouse (unfiltered ones
 * as the rollups count them; filtered ones, page goals, the hourly series and breakdowns
 * by a visit column, funnels, journeys, the visits explorer, the engagement statistics and
 * revenue from the visits formed at read time). Parts of days (the Stats API v2's
 * date-times) are read as whole days are, within their local seconds. The database's
 * runner is closed with it.
 */
export function createClickhouseStatsReads(client: ClickhouseClient, database: StatsReads, timeoutMs: number): StatsReads {
  const clickhouse = createStatsRunner({
    readerFor: (websiteId, query) => {
      const run = queryRunner(client, websiteId, timeoutMs);
      return query.conditions.length === 0 && (query.goal_page ?? []).length === 0 && !query.fromRows
        ? createClickhouseReader(run)
        : createClickhouseSegmentReader(run, query.conditions);
    },
    pathsFor: (websiteId, conditions) => {
      const run = queryRunner(client, websiteId, timeoutMs);
      return createClickhousePathReader(run, conditions, {
        ...answeredElsewhere,
        revenue: (range) => clickhouseRevenue(run, conditions, range),
        engagementSignals: (range) => clickhouseEngagementSignals(run, conditions, range),
        visits: clickhouseVisits(run, conditions),
      });
    },
  });
  return { ...clickhouse, close: () => database.close() };
}

/** The path reads the ClickHouse path reader answers itself: they never reach here. */
const elsewhere = () => Promise.reject(new Error("answered by ClickHouse"));
const answeredElsewhere: Pick<PathReader, "funnelVisitors" | "journeyCounts" | "valuesOf" | "rowsRead"> = {
  funnelVisitors: elsewhere,
  journeyCounts: elsewhere,
  valuesOf: elsewhere,
  rowsRead: elsewhere,
};
