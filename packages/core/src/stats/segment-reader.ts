import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../database/schema.js";
import type { SqlDialect } from "../dialect/dialect.js";
import { DIMENSION_KINDS, STAT_KINDS } from "../engine/dimensions.js";
import type { Condition } from "./filters.js";
import { dayValue, hourValue, localBounds, pageOf, type CountReader, type DayRange, type ListOptions, type Statistic } from "./reader.js";
import { segmentConditions } from "./segment-conditions.js";
import type { StatRow } from "./stats-query.js";

type Sql = RawBuilder<unknown>;

/** A visit's visitor-day: the id of the day's first visit (stored as 0 on that visit itself). */
export const VISITOR = sql`case when v.visitor = 0 then v.id else v.visitor end`;
const DAY_OF_VISIT = sql`v.start / 86400`;
export const BOUNCED = sql`case when v.pageviews = 1 and v.events = 0 then 1 else 0 end`;

/** How a statistic is counted from the store: from which rows, grouped by what, counting what. */
interface Counting {
  from: "visits" | "hits" | "pageviews" | "events" | "properties";
  /** The grouping key, on the aliases `v`, `h`, `p`. */
  key: Sql;
  /** What each group counts. */
  count: Sql;
  /** How keys read: a day number, an hour, or a dictionary id. */
  keys: "day" | "hour" | "dimension" | "goal";
}

const visitColumn = (column: string, count: Sql): Counting => ({ from: "visits", key: sql.ref(`v.${column}`), count, keys: "dimension" });
const VISITS = sql`count(*)`;
const VISITORS = sql`count(distinct ${VISITOR})`;

const COUNTINGS: Readonly<Record<string, Counting>> = {
  visits: { from: "visits", key: DAY_OF_VISIT, count: VISITS, keys: "day" },
  bounces: { from: "visits", key: DAY_OF_VISIT, count: sql`sum(${BOUNCED})`, keys: "day" },
  visit_duration: { from: "visits", key: DAY_OF_VISIT, count: sql`sum(v.duration)`, keys: "day" },
  visit_pageviews: { from: "visits", key: DAY_OF_VISIT, count: sql`sum(v.pageviews)`, keys: "day" },
  landing_page: visitColumn("entry_page", VISITS),
  exit_page: visitColumn("exit_page", VISITS),
  referrer: visitColumn("referrer", VISITS),
  campaign: visitColumn("utm_campaign", VISITS),
  utm_source: visitColumn("utm_source", VISITS),
  utm_medium: visitColumn("utm_medium", VISITS),
  utm_content: visitColumn("utm_content", VISITS),
  utm_term: visitColumn("utm_term", VISITS),
  visitors: { from: "visits", key: DAY_OF_VISIT, count: VISITORS, keys: "day" },
  // Grouped by the hour of each visitor-day's first matching visit: a query of its own (`grouped`).
  visitors_hours: { from: "visits", key: sql`(v.start % 86400) / 3600`, count: VISITORS, keys: "hour" },
  browser: visitColumn("browser", VISITORS),
  os: visitColumn("os", VISITORS),
  device: visitColumn("device", VISITORS),
  country: visitColumn("country", VISITORS),
  continent: visitColumn("continent", VISITORS),
  city: visitColumn("city", VISITORS),
  language: visitColumn("language", VISITORS),
  resolution: visitColumn("resolution", VISITORS),
  pageviews: { from: "pageviews", key: sql`h.time / 86400`, count: sql`count(*)`, keys: "day" },
  pageviews_hours: { from: "pageviews", key: sql`(h.time % 86400) / 3600`, count: sql`count(*)`, keys: "hour" },
  page: { from: "pageviews", key: sql`h.page`, count: sql`count(*)`, keys: "dimension" },
  event: { from: "events", key: sql`h.event`, count: sql`count(*)`, keys: "dimension" },
  event_visitors: { from: "events", key: sql`h.event`, count: VISITORS, keys: "dimension" },
  event_property: { from: "properties", key: sql`p.value`, count: sql`count(*)`, keys: "dimension" },
  // One row for the pageviews of pages matching the goal's pattern (h.event is 0 for all of them).
  page_goal_visitors: { from: "pageviews", key: sql`h.event`, count: VISITORS, keys: "goal" },
  page_goal_views: { from: "pageviews", key: sql`h.event`, count: sql`count(*)`, keys: "goal" },
};

/** The row value of a page goal: Plausible's name for it. */
export const pageGoalValue = (pattern: string) => `Visit ${pattern}`;

/**
 * Filtered statistics, from the visits and hits (docs/statistics.md, "Segments: filters").
 * Conditions become sets of dictionary ids, so the large tables compare integers only.
 */
export function createSegmentReader(db: Kysely<Database>, dialect: SqlDialect, websiteId: number, conditions: readonly Condition[]): CountReader {
  const where = segmentConditions(dialect, websiteId, conditions);

  /** Rows grouped by key: `k` and `n`, over a range. */
  function grouped(stat: Statistic, range: DayRange): Sql {
    const [start, end] = localBounds(range);
    if (stat.name === "visitors_hours") {
      // The hour each visitor-day's first matching visit started.
      return sql`select (first % 86400) / 3600 as k, count(*) as n from (
          select min(v.start) as first from visits v
          where v.website_id = ${websiteId} and v.start >= ${start} and v.start < ${end} and ${where.visit()}
          group by ${DAY_OF_VISIT}, ${VISITOR}) firsts
        group by (first % 86400) / 3600`;
    }
    const counting = COUNTINGS[stat.name];
    if (!counting) throw new TypeError(`no segment counting for ${stat.name}`);
    if (counting.from === "visits") {
      return sql`select ${counting.key} as k, ${counting.count} as n from visits v
        where v.website_id = ${websiteId} and v.start >= ${start} and v.start < ${end} and ${where.visit()}
        group by ${counting.key}`;
    }
    const events = counting.from !== "pageviews";
    const kind = events ? sql`h.event <> 0` : sql`h.event = 0`;
    const hits = sql`hits h join visits v on v.id = h.visit_id`;
    let source = hits;
    let extra: Sql = sql`1 = 1`;
    if (counting.from === "properties") {
      source = sql`${hits} join event_props p on p.visit_id = h.visit_id and p.time = h.time and p.event = h.event and p.seq = h.seq`;
      extra = sql`h.event in ${where.idsOf("event", stat.event ?? "")} and p.name in ${where.idsOf("prop_name", stat.property ?? "")}`;
    }
    if (counting.keys === "goal") extra = sql`h.page in ${where.pagesMatching(stat.pattern ?? "")}`;
    return sql`select ${counting.key} as k, ${counting.count} as n from ${source}
      where h.website_id = ${websiteId} and h.time >= ${start} and h.time < ${end} and ${kind} and ${extra}
        and ${where.visit()} and ${where.hit(events)}
      group by ${counting.key}`;
  }

  async function run<T>(query: Sql): Promise<T[]> {
    return (await query.execute(db)).rows as T[];
  }

  /** Every row, with keys read as values (day, hour or dictionary value). */
  async function all(stat: Statistic, range: DayRange): Promise<StatRow[]> {
    // visitors_hours has a query of its own (grouped), keyed by hour.
    const keys = stat.name === "visitors_hours" ? "hour" : COUNTINGS[stat.name]!.keys;
    if (keys === "dimension") {
      const rows = await run<{ value: string; n: number }>(sql`select d.value as value, g.n as n from (${grouped(stat, range)}) g
        join dimensions d on d.id = g.k where g.n > 0`);
      return rows.map((row) => ({ value: row.value, count: Number(row.n) }));
    }
    const rows = await run<{ k: number; n: number }>(sql`select k, n from (${grouped(stat, range)}) g where n > 0`);
    const read = keys === "goal" ? () => pageGoalValue(stat.pattern ?? "") : keys === "day" ? dayValue : hourValue;
    return rows.map((row) => ({ value: read(Number(row.k)), count: Number(row.n) }));
  }

  async function page(stat: Statistic, range: DayRange, list: ListOptions) {
    if (COUNTINGS[stat.name]?.keys !== "dimension") return pageOf(await all(stat, range), list);
    const kind = STAT_KINDS[stat.name]!;
    const search = list.search === "" ? sql`1 = 1` : dialect.contains(sql.ref("d.search"), list.search);
    const byValue = dialect.byCodePoint(sql.ref("d.value"));
    const order = list.sortBy === "value" ? sql`${byValue} ${sql.raw(list.sort)}` : sql`g.n ${sql.raw(list.sort)}, ${byValue} asc`;
    const rows = await run<{ value: string; n: number; groups: number }>(sql`
      select d.value as value, g.n as n, count(*) over () as groups from (${grouped(stat, range)}) g
      join dimensions d on d.id = g.k and d.kind = ${DIMENSION_KINDS[kind]}
      where g.n > 0 and ${search}
      order by ${order} limit ${list.perPage} offset ${(list.page - 1) * list.perPage}`);
    let total = rows[0] ? Number(rows[0].groups) : 0;
    if (!rows[0] && list.page > 1) {
      const [row] = await run<{ n: number }>(sql`select count(*) as n from (${grouped(stat, range)}) g
        join dimensions d on d.id = g.k where g.n > 0 and ${search}`);
      total = Number(row?.n ?? 0);
    }
    return { rows: rows.map((row) => ({ value: row.value, count: Number(row.n) })), total };
  }

  return {
    page,
    all,
    async countsOf(stat, range, values) {
      const wanted = new Set(values);
      const counts = new Map<string, number>();
      for (const row of await all(stat, range)) if (wanted.has(row.value)) counts.set(row.value, row.count);
      return counts;
    },
    async rowsRead(stat, range, atMost) {
      const [start, end] = localBounds(range);
      const fromHits = COUNTINGS[stat.name] !== undefined && COUNTINGS[stat.name]!.from !== "visits";
      const source = fromHits
        ? sql`select 1 from hits where website_id = ${websiteId} and time >= ${start} and time < ${end} limit ${atMost + 1}`
        : sql`select 1 from visits where website_id = ${websiteId} and start >= ${start} and start < ${end} limit ${atMost + 1}`;
      const [row] = await run<{ n: number }>(sql`select count(*) as n from (${source}) s`);
      return Number(row?.n ?? 0);
    },
  };
}
