import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import type { BlockColumn } from "./day-block-builder.js";
import { columnsFor, countBlock, type BlockCounting, type BlockScan, type ResolvedCondition } from "./day-block-counter.js";
import { decodeColumn, type Column } from "./day-block-format.js";
import { VISIT_COLUMNS } from "../model/dimensions.js";
import type { Condition, VisitDimension } from "../model/filters.js";
import { dayValue, hourValue, localBounds, pageRows, type CountReader, type DayRange, type ListOptions, type Statistic } from "./count-reader.js";
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
  /** The same, counted from a day block. */
  block: BlockCounting;
}

const VISITS = sql`count(*)`;
const VISITORS = sql`count(distinct ${VISITOR})`;

const byDay = (count: Sql, block: BlockCounting["count"]): Counting => ({ from: "visits", key: DAY_OF_VISIT, count, keys: "day", block: { from: "visits", key: "day", count: block } });
const visitColumn = (column: VisitDimension, visitors: boolean): Counting => ({
  from: "visits",
  key: sql.ref(`v.${column}`),
  count: visitors ? VISITORS : VISITS,
  keys: "dimension",
  block: { from: "visits", key: { visit: column }, count: visitors ? "visitors" : "rows" },
});
const ofHits = (from: "pageviews" | "events" | "properties", key: Sql, keys: Counting["keys"], visitors: boolean, blockKey: BlockCounting["key"]): Counting => ({
  from,
  key,
  count: visitors ? VISITORS : sql`count(*)`,
  keys,
  block: { from, key: blockKey, count: visitors ? "visitors" : "rows" },
});

const COUNTINGS: Readonly<Record<string, Counting>> = {
  visits: byDay(VISITS, "rows"),
  bounces: byDay(sql`sum(${BOUNCED})`, "bounces"),
  visit_duration: byDay(sql`sum(v.duration)`, "duration"),
  visit_pageviews: byDay(sql`sum(v.pageviews)`, "pageviews"),
  // Visit columns: visits per value; visitors for what is counted once per visitor-day.
  ...Object.fromEntries(VISIT_COLUMNS.map(({ column, statistic, counted }) => [statistic, visitColumn(column, counted === "visitor" || counted === "visitor-value")])),
  visitors: byDay(VISITORS, "visitors"),
  // Grouped by the hour of each visitor-day's first matching visit: a query of its own (`grouped`).
  visitors_hours: { from: "visits", key: sql`(v.start % 86400) / 3600`, count: VISITORS, keys: "hour", block: { from: "visits", key: "first-hour", count: "rows" } },
  pageviews: ofHits("pageviews", sql`h.time / 86400`, "day", false, "day"),
  pageviews_hours: ofHits("pageviews", sql`(h.time % 86400) / 3600`, "hour", false, "hour"),
  page: ofHits("pageviews", sql`h.page`, "dimension", false, "h.page"),
  event: ofHits("events", sql`h.event`, "dimension", false, "h.event"),
  event_visitors: ofHits("events", sql`h.event`, "dimension", true, "h.event"),
  event_property: ofHits("properties", sql`p.value`, "dimension", false, "p.value"),
  // One row for the pageviews of pages matching the goal's pattern (h.event is 0 for all of them).
  page_goal_visitors: ofHits("pageviews", sql`h.event`, "goal", true, "goal"),
  page_goal_views: ofHits("pageviews", sql`h.event`, "goal", false, "goal"),
};

function countingOf(stat: Statistic): Counting {
  const counting = COUNTINGS[stat.name];
  if (!counting) throw new TypeError(`no segment counting for ${stat.name}`);
  return counting;
}

/** The row value of a page goal: Plausible's name for it. */
export const pageGoalValue = (pattern: string) => `Visit ${pattern}`;

/** Days of a range whose visits can count, each with what its block needs. */
interface CandidateDay {
  day: number;
  lastHit: number;
}

/** Columns of the blocks read, per day. */
type BlockColumns = Map<number, Map<BlockColumn, Column>>;

/**
 * Filtered statistics, from the visits and hits (docs/statistics.md, "Segments: filters").
 * Conditions become sets of dictionary ids, so the large tables compare integers only.
 * Days with a current day block are counted from it; the others from the rows.
 */
export function createSegmentReader(db: Kysely<Database>, dialect: SqlDialect, websiteId: number, conditions: readonly Condition[]): CountReader {
  const where = segmentConditions(dialect, websiteId, conditions);

  async function run<T>(query: Sql): Promise<T[]> {
    return (await query.execute(db)).rows as T[];
  }

  async function idSet(query: Sql): Promise<Set<number>> {
    return new Set((await run<{ id: number }>(sql`select id from ${query} ids`)).map((row) => Number(row.id)));
  }

  /** Visits starting on one of these days: runs of consecutive days as ranges of `v.start`. */
  function startingOn(days: readonly number[]): Sql {
    const ranges: Sql[] = [];
    for (let i = 0; i < days.length; ) {
      let j = i;
      while (j + 1 < days.length && days[j + 1] === days[j]! + 1) j++;
      ranges.push(sql`(v.start >= ${days[i]! * 86_400} and v.start < ${(days[j]! + 1) * 86_400})`);
      i = j + 1;
    }
    return ranges.length === 0 ? sql`1 = 0` : sql`(${sql.join(ranges, sql` or `)})`;
  }

  /** Rows grouped by key, `k` and `n`, over a range, of the visits starting on `days`. */
  function grouped(stat: Statistic, range: DayRange, days: readonly number[]): Sql {
    const [start, end] = localBounds(range);
    const visits = sql`v.website_id = ${websiteId} and ${startingOn(days)}`;
    if (stat.name === "visitors_hours") {
      // The hour each visitor-day's first matching visit started.
      return sql`select (first % 86400) / 3600 as k, count(*) as n from (
          select min(v.start) as first from visits v
          where ${visits} and v.start >= ${start} and v.start < ${end} and ${where.visit()}
          group by ${DAY_OF_VISIT}, ${VISITOR}) firsts
        group by (first % 86400) / 3600`;
    }
    const counting = countingOf(stat);
    if (counting.from === "visits") {
      return sql`select ${counting.key} as k, ${counting.count} as n from visits v
        where ${visits} and v.start >= ${start} and v.start < ${end} and ${where.visit()}
        group by ${counting.key}`;
    }
    const events = counting.from !== "pageviews";
    const kind = events ? sql`h.event <> 0` : sql`h.event = 0`;
    // Cross join: the visits of the days drive, their hits are found by visit.
    const hits = sql`visits v cross join hits h`;
    let source = hits;
    let extra: Sql = sql`1 = 1`;
    if (counting.from === "properties") {
      source = sql`${hits} join event_props p on p.visit_id = h.visit_id and p.time = h.time and p.event = h.event and p.seq = h.seq`;
      extra = sql`h.event in ${where.idsOf("event", stat.event ?? "")} and p.name in ${where.idsOf("prop_name", stat.property ?? "")}`;
    }
    if (counting.keys === "goal") extra = sql`h.page in ${where.pagesMatching(stat.pattern ?? "")}`;
    return sql`select ${counting.key} as k, ${counting.count} as n from ${source}
      where h.visit_id = v.id and ${visits} and h.time >= ${start} and h.time < ${end} and ${kind} and ${extra}
        and ${where.visit()} and ${where.hit(events)}
      group by ${counting.key}`;
  }

  /** The days whose visits can count: started in the range, or (for hits) before it with a hit in it. */
  async function candidateDays(fromHits: boolean, start: number, end: number): Promise<CandidateDay[]> {
    // A late hit joins the visit its person started next (up to a day later): for hits, the day after the range too.
    const reach = fromHits ? sql`(day >= ${start / 86_400} or last_hit >= ${start}) and day <= ${end / 86_400}` : sql`day >= ${start / 86_400} and day < ${end / 86_400}`;
    const rows = await run<{ day: number; last_hit: number }>(sql`select day, last_hit from day_versions
      where website_id = ${websiteId} and ${reach} order by day`);
    return rows.map((row) => ({ day: Number(row.day), lastHit: Number(row.last_hit) }));
  }

  /** The named columns of the days' current blocks; a day missing any is left out (counted from rows). */
  async function blockColumns(days: readonly CandidateDay[], names: readonly BlockColumn[]): Promise<BlockColumns> {
    const blocks: BlockColumns = new Map();
    if (days.length === 0) return blocks;
    const rows = await run<{ day: number; name: BlockColumn; data: Uint8Array }>(sql`
      select b.day, b.name, b.data from day_blocks b
      join day_versions d on d.website_id = b.website_id and d.day = b.day and d.version = b.version
      where b.website_id = ${websiteId} and b.day in (${sql.join(days.map((day) => day.day))}) and b.name in (${sql.join(names)})`);
    for (const row of rows) {
      const day = Number(row.day);
      let columns = blocks.get(day);
      if (!columns) blocks.set(day, (columns = new Map()));
      columns.set(row.name, decodeColumn(row.data));
    }
    for (const [day, columns] of blocks) if (columns.size < names.length) blocks.delete(day);
    return blocks;
  }

  /** What a block scan needs besides the columns: the conditions' ids, looked up once. */
  async function blockScan(stat: Statistic, counting: Counting, start: number, end: number): Promise<BlockScan> {
    const resolved: ResolvedCondition[] = [];
    for (const condition of where.conditions) {
      const queries = where.idQueries(condition);
      resolved.push({ condition, ids: await idSet(queries.ids), names: await idSet(queries.names) });
    }
    const scan: BlockScan = { counting: counting.block, conditions: resolved, start, end };
    if (counting.from === "properties") {
      scan.eventIds = await idSet(where.idsOf("event", stat.event ?? ""));
      scan.propNames = await idSet(where.idsOf("prop_name", stat.property ?? ""));
    }
    if (counting.keys === "goal") scan.goalPages = await idSet(where.pagesMatching(stat.pattern ?? ""));
    return scan;
  }

  /** Counts by key (day, hour, dictionary id, or 0 for a goal): blocks where current, rows elsewhere. */
  async function countsByKey(stat: Statistic, range: DayRange): Promise<Map<number, number>> {
    const [start, end] = localBounds(range);
    const counting = countingOf(stat);
    const fromHits = counting.from !== "visits";
    const days = await candidateDays(fromHits, start, end);
    const counts = new Map<number, number>();
    // A block's hits need their times checked where some may fall outside the range: its first
    // day and before (late hits), the day after it, and days with hits past its end.
    const needsTime = (day: CandidateDay) => fromHits && (day.day <= start / 86_400 || day.day >= end / 86_400 || day.lastHit >= end);
    const columns = columnsFor(counting.block, conditions, false);
    const timeColumns = columnsFor(counting.block, conditions, true).filter((name) => !columns.includes(name));
    const blocks = await blockColumns(days, columns);
    const timed = days.filter((day) => blocks.has(day.day) && needsTime(day));
    if (timed.length > 0 && timeColumns.length > 0) {
      const times = await blockColumns(timed, timeColumns);
      for (const day of timed) {
        const time = times.get(day.day);
        if (time) for (const [name, column] of time) blocks.get(day.day)!.set(name, column);
        else blocks.delete(day.day);
      }
    }
    if (blocks.size > 0) {
      // The conditions' dictionary ids, looked up only when some block is read.
      const scan = await blockScan(stat, counting, start, end);
      for (const day of days) {
        const block = blocks.get(day.day);
        if (block) countBlock(day.day, (name) => block.get(name)!, scan, needsTime(day), counts);
      }
    }
    const fromRows = days.filter((day) => !blocks.has(day.day)).map((day) => day.day);
    if (fromRows.length > 0) {
      for (const row of await run<{ k: number; n: number }>(grouped(stat, range, fromRows))) {
        counts.set(Number(row.k), (counts.get(Number(row.k)) ?? 0) + Number(row.n));
      }
    }
    return counts;
  }

  /** The values of dictionary ids; ids without one (0: no value) are left out. */
  async function valuesOf(ids: readonly number[]): Promise<Map<number, string>> {
    const values = new Map<number, string>();
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      for (const row of await run<{ id: number; value: string }>(sql`select id, value from dimensions where id in (${sql.join(part)})`)) {
        values.set(Number(row.id), row.value);
      }
    }
    return values;
  }

  /** Every row, with keys read as values (day, hour or dictionary value). */
  async function all(stat: Statistic, range: DayRange): Promise<StatRow[]> {
    const counted = [...(await countsByKey(stat, range))].filter(([, n]) => n > 0);
    const keys = countingOf(stat).keys;
    if (keys === "dimension") {
      const values = await valuesOf(counted.map(([id]) => id));
      return counted.flatMap(([id, count]) => (values.has(id) ? [{ value: values.get(id)!, count }] : []));
    }
    const read = keys === "goal" ? () => pageGoalValue(stat.pattern ?? "") : keys === "day" ? dayValue : hourValue;
    return counted.map(([key, count]) => ({ value: read(key), count }));
  }

  return {
    page: async (stat, range, list) => pageRows(await all(stat, range), list),
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
