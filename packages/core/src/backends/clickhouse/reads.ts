import { addDays } from "../../shared/calendar.js";
import { VISIT_COLUMNS } from "../../model/dimensions.js";
import { isEngagementStatistic } from "../../model/stat-names.js";
import type { StatRow } from "../../model/stats-schemas.js";
import { pageRows, type CountReader, type DayRange, type Statistic } from "../../stats/count-reader.js";
import { queryTooLong } from "../../stats/database-readers.js";
import { createStatsRunner } from "../../stats/stats.js";
import type { StatsReads } from "../backend.js";
import type { TotalsQuery } from "../../stats/stats-query.js";
import type { ClickhouseClient } from "./connect.js";
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
export function createClickhouseReader(client: ClickhouseClient, websiteId: number, timeoutMs: number): CountReader {
  async function run<Row>(query: string, range: DayRange, stat?: Statistic): Promise<Row[]> {
    const params = {
      website: websiteId,
      from: range.from,
      to: range.to,
      // Visits started two days before the range may hold its hits; visits started on its last day may end the day after.
      lo: addDays(range.from, -2),
      hi: addDays(range.to, 1),
      event: stat?.event ?? "",
      property: stat?.property ?? "",
    };
    try {
      const result = await client.query({
        query,
        query_params: params,
        format: "JSONEachRow",
        clickhouse_settings: { max_execution_time: Math.max(1, Math.ceil(timeoutMs / 1000)) },
      });
      return await result.json<Row>();
    } catch (error) {
      if (/TIMEOUT_EXCEEDED|Timeout exceeded/i.test(String(error))) throw queryTooLong();
      throw error;
    }
  }

  async function all(stat: Statistic, range: DayRange): Promise<StatRow[]> {
    const counting = countingOf(stat);
    if (!counting) throw new Error(`ClickHouse does not count the statistic ${stat.name}`);
    const query =
      `SELECT ${counting.value} AS value, toUInt64(${counting.count}) AS count FROM ${rowsOf(counting.from)}` +
      `${counting.where ? ` WHERE ${counting.where}` : ""} GROUP BY value HAVING value != '' AND count > 0`;
    const rows = await run<{ value: string; count: string | number }>(query, range, stat);
    return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
  }

  /** The day series of visits of a range (visits, bounces, duration, pageviews), from one forming of its visits. */
  async function visitSeries(range: DayRange): Promise<Map<string, StatRow[]>> {
    const figures = VISIT_SERIES.map((name) => `toUInt64(${countingOf({ name })!.count}) AS ${name}`);
    const rows = await run<Record<string, string | number>>(
      `SELECT toString(vday) AS value, ${figures.join(", ")} FROM ${rowsOf("visits")} GROUP BY value`,
      range,
    );
    return new Map(
      VISIT_SERIES.map((name) => [
        name,
        rows.map((row) => ({ value: String(row.value), count: Number(row[name]) })).filter((row) => row.count > 0),
      ]),
    );
  }

  return {
    async page(stat, range, list) {
      return pageRows(await all(stat, range), list);
    },
    all,
    async allOf(requests) {
      // The day series of visits of one range are counted together: the range's visits are formed once.
      const series = new Map<string, Promise<Map<string, StatRow[]>>>();
      return Promise.all(
        requests.map(async ({ stat, range }) => {
          if (!(VISIT_SERIES as readonly string[]).includes(stat.name)) return all(stat, range);
          const key = `${range.from} ${range.to}`;
          if (!series.has(key)) series.set(key, visitSeries(range));
          return (await series.get(key)!).get(stat.name)!;
        }),
      );
    },
    async countsOf(stat, range, values) {
      const wanted = new Set(values);
      return new Map((await all(stat, range)).filter((row) => wanted.has(row.value)).map((row) => [row.value, row.count]));
    },
    rowsRead: async () => 0,
    source: (stat) => stat.name,
  };
}

/** A query ClickHouse answers: no filters and no page goals (those are read from the database for now). */
const unfiltered = (query: TotalsQuery & { goal_page?: readonly string[] }) =>
  query.conditions.length === 0 && (query.goal_page ?? []).length === 0;

/**
 * Statistics with ClickHouse beside the database: the unfiltered statistics and totals from
 * ClickHouse; filtered ones, the hourly and breakdown totals, the engagement statistics,
 * funnels, journeys and the visits explorer from the database's runner.
 */
export function createClickhouseStatsReads(client: ClickhouseClient, database: StatsReads, timeoutMs: number): StatsReads {
  const clickhouse = createStatsRunner({
    readerFor: (websiteId) => createClickhouseReader(client, websiteId, timeoutMs),
    pathsFor: () => {
      throw new Error("funnels and journeys are read from the database");
    },
  });
  return {
    hourly: (websiteId, query) => database.hourly(websiteId, query),
    totalsBy: (websiteId, query, by) => database.totalsBy(websiteId, query, by),
    funnel: (websiteId, query) => database.funnel(websiteId, query),
    journey: (websiteId, query) => database.journey(websiteId, query),
    visits: (websiteId, request) => database.visits(websiteId, request),
    revenue: (websiteId, query) => database.revenue(websiteId, query),
    close: () => database.close(),
    page: (websiteId, query) =>
      // Goals carry revenue, which the database's rows keep.
      unfiltered(query) && !isEngagementStatistic(query.name) && query.name !== "goals"
        ? clickhouse.page(websiteId, query)
        : database.page(websiteId, query),
    totals: (websiteId, query) => (unfiltered(query) ? clickhouse.totals(websiteId, query) : database.totals(websiteId, query)),
    totalsOf: (websiteId, queries) =>
      queries.every(unfiltered) ? clickhouse.totalsOf(websiteId, queries) : database.totalsOf(websiteId, queries),
  };
}
