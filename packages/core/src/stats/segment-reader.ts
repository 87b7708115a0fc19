import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import type { BlockColumn } from "./day-block-builder.js";
import {
  columnsFor,
  countBlock,
  prepareBlock,
  type BlockCounting,
  type BlockScan,
  type PreparedBlock,
  type ResolvedCondition,
} from "./day-block-counter.js";
import { decodeColumn, type Column } from "./day-block-format.js";
import type { BlockColumnStore } from "./block-column-store.js";
import { PAGEVIEW_EVENT, VISIT_COLUMNS } from "../model/dimensions.js";
import { simpleConditions, type Condition, type VisitDimension } from "../model/filters.js";
import {
  dayHourValue,
  dayValue,
  hourValue,
  localBounds,
  pageByCount,
  pageRows,
  type CountReader,
  type CountRequest,
  type DayRange,
  type Statistic,
} from "./count-reader.js";
import { dictionaryValues } from "./dictionary-values.js";
import { segmentConditions } from "./segment-conditions.js";
import { preparedConditions } from "./pattern-matches.js";
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
  /** How keys read: a day number, an hour, an hour of a day (day × 24 + hour), or a dictionary id. */
  keys: "day" | "hour" | "day-hour" | "dimension" | "goal";
  /** The same, counted from a day block. */
  block: BlockCounting;
}

const VISITS = sql`count(*)`;
const VISITORS = sql`count(distinct ${VISITOR})`;

const byDay = (count: Sql, block: BlockCounting["count"]): Counting => ({
  from: "visits",
  key: DAY_OF_VISIT,
  count,
  keys: "day",
  block: { from: "visits", key: "day", count: block },
});
/** The same by the hour (of its day) each visit started. */
const byHourOfDay = (count: Sql, block: BlockCounting["count"]): Counting => ({
  from: "visits",
  key: sql`v.start / 3600`,
  count,
  keys: "day-hour",
  block: { from: "visits", key: "day-hour", count: block },
});
const visitColumn = (column: VisitDimension, visitors: boolean): Counting => ({
  from: "visits",
  key: sql.ref(`v.${column}`),
  count: visitors ? VISITORS : VISITS,
  keys: "dimension",
  block: { from: "visits", key: { visit: column }, count: visitors ? "visitors" : "rows" },
});
const ofHits = (
  from: "pageviews" | "events" | "properties",
  key: Sql,
  keys: Counting["keys"],
  visitors: boolean,
  blockKey: BlockCounting["key"],
): Counting => ({
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
  // Visit columns: visits per value; visitors for what is counted once per visitor-day; pageviews under the visit's value.
  ...Object.fromEntries(
    VISIT_COLUMNS.map(({ column, statistic, counted }) => [
      statistic,
      counted === "pageview"
        ? ofHits("pageviews", sql.ref(`v.${column}`), "dimension", false, { visit: column })
        : visitColumn(column, counted === "visitor" || counted === "visitor-value"),
    ]),
  ),
  visitors: byDay(VISITORS, "visitors"),
  // Grouped by the hour of each visitor-day's first matching visit: a query of its own (`grouped`).
  visitors_hours: {
    from: "visits",
    key: sql`(v.start % 86400) / 3600`,
    count: VISITORS,
    keys: "hour",
    block: { from: "visits", key: "first-hour", count: "rows" },
  },
  pageviews: ofHits("pageviews", sql`h.time / 86400`, "day", false, "day"),
  pageviews_hours: ofHits("pageviews", sql`(h.time % 86400) / 3600`, "hour", false, "hour"),
  // By the hour of each day (the Stats API v2's time:hour): read from the rows only (`fromRows`).
  visitors_by_hour: {
    from: "visits",
    key: sql`v.start / 3600`,
    count: VISITORS,
    keys: "day-hour",
    block: { from: "visits", key: "first-day-hour", count: "rows" },
  },
  visits_by_hour: byHourOfDay(VISITS, "rows"),
  bounces_by_hour: byHourOfDay(sql`sum(${BOUNCED})`, "bounces"),
  visit_duration_by_hour: byHourOfDay(sql`sum(v.duration)`, "duration"),
  visit_pageviews_by_hour: byHourOfDay(sql`sum(v.pageviews)`, "pageviews"),
  pageviews_by_hour: ofHits("pageviews", sql`h.time / 3600`, "day-hour", false, "day-hour"),
  events_by_hour: ofHits("events", sql`h.time / 3600`, "day-hour", false, "day-hour"),
  page: ofHits("pageviews", sql`h.page`, "dimension", false, "h.page"),
  event: ofHits("events", sql`h.event`, "dimension", false, "h.event"),
  event_visitors: ofHits("events", sql`h.event`, "dimension", true, "h.event"),
  event_property: ofHits("properties", sql`p.value`, "dimension", false, "p.value"),
  // One row for the pageviews of pages matching the goal's pattern (h.event is 0 for all of them).
  page_goal_visitors: ofHits("pageviews", sql`h.event`, "goal", true, "goal"),
  page_goal_views: ofHits("pageviews", sql`h.event`, "goal", false, "goal"),
};

/** Whether a hit statistic counts events rather than pageviews (`event_property` of `pageview`: pageviews). */
const countsEvents = (stat: Statistic, counting: Counting) =>
  counting.from === "events" || (counting.from === "properties" && stat.event !== PAGEVIEW_EVENT);

function countingOf(stat: Statistic): Counting {
  const counting = COUNTINGS[stat.name];
  if (!counting) throw new TypeError(`no segment counting for ${stat.name}`);
  return stat.by === undefined ? counting : byVisitColumn(stat, counting, stat.by);
}

/** A day series counted per value of a visit column instead (a breakdown's totals): the same count, keyed by the visit's value. */
function byVisitColumn(stat: Statistic, counting: Counting, column: VisitDimension): Counting {
  if (!BY_COLUMN_SERIES.includes(stat.name)) throw new TypeError(`${stat.name} is not counted by a visit column`);
  return { ...counting, key: sql.ref(`v.${column}`), keys: "dimension", block: { ...counting.block, key: { visit: column } } };
}

/** The row value of a page goal: Plausible's name for it. */
export const pageGoalValue = (pattern: string) => `Visit ${pattern}`;

/** The day series counted from visits, which one statement reads together. */
const VISIT_DAY_SERIES: readonly string[] = ["visits", "bounces", "visit_duration", "visit_pageviews", "visitors"];
/** The day series that can be counted per value of a visit column (`Statistic.by`). */
const BY_COLUMN_SERIES: readonly string[] = [...VISIT_DAY_SERIES, "pageviews"];

/** Days of a range whose visits can count, each with what its block needs. */
interface CandidateDay {
  day: number;
  lastHit: number;
  /** The day's version: its block is current when written at this version. */
  version: number;
}

/**
 * Decoded block columns of one website read so far, by day; a day known to lack a column
 * maps it to null. One request's readers share it (a v2 query's rows, each with filters of its own).
 */
export type BlockColumnCache = Map<number, Map<BlockColumn, Column | null>>;

/** What a segment reader counts: one website's statistics under `conditions`. */
export interface SegmentScope {
  websiteId: number;
  conditions: readonly Condition[];
  /** Block columns already decoded by other readers of the same request. */
  columnCache?: BlockColumnCache | undefined;
  /** Block columns decoded by earlier requests. */
  columnStore?: BlockColumnStore | undefined;
}

/** Every condition's dictionary ids (and property names), in one statement; those within `any` as its branches. */
export async function resolveConditions(db: Kysely<Database>, where: ReturnType<typeof segmentConditions>): Promise<ResolvedCondition[]> {
  const simple = simpleConditions(where.conditions);
  if (simple.length === 0) return [];
  const parts = simple.flatMap((condition, index) => {
    const queries = where.idQueries(condition);
    return [
      sql`select ${index} as c, 0 as names, id from ${queries.ids} ids`,
      sql`select ${index} as c, 1 as names, id from ${queries.names} names`,
    ];
  });
  const rows = (await sql<{ c: number; names: number; id: number }>`${sql.join(parts, sql` union all `)}`.execute(db)).rows;
  const resolved = simple.map((condition, index): ResolvedCondition => {
    const of = (names: number) =>
      new Set(rows.filter((row) => Number(row.c) === index && Number(row.names) === names).map((row) => Number(row.id)));
    return { condition, ids: of(0), names: of(1) };
  });
  const none = new Set<number>();
  let next = 0;
  return where.conditions.map((condition) => {
    if (condition.on !== "any") return resolved[next++]!;
    const branches = condition.conditions.map(() => resolved[next++]!);
    return { condition, ids: none, names: none, branches };
  });
}

/**
 * Filtered statistics, from the visits and hits (docs/statistics.md, "Segments: filters").
 * Conditions become sets of dictionary ids, so the large tables compare integers only.
 * Days with a current day block are counted from it; the others from the rows.
 */
export function createSegmentReader(
  db: Kysely<Database>,
  dialect: SqlDialect,
  { websiteId, conditions, columnCache = new Map(), columnStore }: SegmentScope,
): CountReader {
  const prepare = preparedConditions(db, dialect, websiteId, conditions);
  /** The conditions' SQL: patterns matched first where the database cannot (every count starts with `prepare`). */
  let where = segmentConditions(dialect, websiteId, conditions);

  async function run<T>(query: Sql): Promise<T[]> {
    return (await query.execute(db)).rows as T[];
  }

  async function idSet(query: Sql): Promise<Set<number>> {
    return new Set((await run<{ id: number }>(sql`select id from ${query} ids`)).map((row) => Number(row.id)));
  }

  /** Visits starting on one of these days: runs of consecutive days as ranges of `v.start`. */
  function startingOn(days: readonly number[]): Sql {
    const ranges: Sql[] = [];
    for (let i = 0; i < days.length;) {
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
    if (stat.name === "visitors_hours" || stat.name === "visitors_by_hour") {
      // The hour (of the day, or of which day) each visitor-day's first matching visit started.
      const hour = stat.name === "visitors_hours" ? sql`(first % 86400) / 3600` : sql`first / 3600`;
      return sql`select ${hour} as k, count(*) as n from (
          select min(v.start) as first from visits v
          where ${visits} and v.start >= ${start} and v.start < ${end} and ${where.visit()}
          group by ${DAY_OF_VISIT}, ${VISITOR}) firsts
        group by ${hour}`;
    }
    const counting = countingOf(stat);
    if (counting.from === "visits") {
      return sql`select ${counting.key} as k, ${counting.count} as n from visits v
        where ${visits} and v.start >= ${start} and v.start < ${end} and ${where.visit()}
        group by ${counting.key}`;
    }
    const { source, kind, extra } = hitSource(stat, counting);
    return sql`select ${counting.key} as k, ${counting.count} as n from ${source}
      where h.visit_id = v.id and ${visits} and h.time >= ${start} and h.time < ${end} and ${kind} and ${extra}
        and ${where.visit()} and ${where.hit(countsEvents(stat, counting))}
      group by ${counting.key}`;
  }

  /** Hits of matching visits (and their properties): the source of a hit statistic's SQL. */
  function hitSource(stat: Statistic, counting: Counting): { source: Sql; kind: Sql; extra: Sql } {
    const events = countsEvents(stat, counting);
    const kind = events ? sql`h.event <> 0` : sql`h.event = 0`;
    // Cross join: the visits of the days drive, their hits are found by visit.
    const hits = sql`visits v cross join hits h`;
    if (counting.from === "properties") {
      const named = events ? sql`h.event in ${where.idsOf("event", stat.event ?? "")}` : sql`1 = 1`;
      return {
        source: sql`${hits} join event_props p on p.visit_id = h.visit_id and p.time = h.time and p.event = h.event and p.seq = h.seq`,
        kind,
        extra: sql`${named} and p.name in ${where.idsOf("prop_name", stat.property ?? "")}`,
      };
    }
    if (counting.keys === "goal") return { source: hits, kind, extra: sql`h.page in ${where.pagesMatching(stat.pattern ?? "")}` };
    return { source: hits, kind, extra: sql`1 = 1` };
  }

  /**
   * The day series of visits (visits, bounces, durations, views, visitor-days), all at once,
   * for visits starting on `days` within [start, end): one statement, by day, or by day and
   * the value of a visit column (`by`).
   */
  async function visitSeries(
    days: readonly number[],
    start: number,
    end: number,
    by: VisitDimension | undefined,
  ): Promise<{ day: number; key: number; counts: Record<string, number> }[]> {
    const key = by === undefined ? DAY_OF_VISIT : sql.ref(`v.${by}`);
    const groups = by === undefined ? DAY_OF_VISIT : sql`${DAY_OF_VISIT}, ${key}`;
    const rows = await run<Record<string, number>>(sql`select ${DAY_OF_VISIT} as d, ${key} as k, ${sql.join(
      VISIT_DAY_SERIES.map((name) => sql`${countingOf({ name }).count} as ${sql.ref(name)}`),
    )} from visits v
      where v.website_id = ${websiteId} and ${startingOn(days)} and v.start >= ${start} and v.start < ${end} and ${where.visit()}
      group by ${groups}`);
    return rows.map((row) => ({ day: Number(row.d), key: Number(row.k), counts: row }));
  }

  /** Pageviews by (day the visit started, day of the hit) for visits starting on `days`: one statement. */
  async function pageviewsByVisitDay(
    days: readonly number[],
    start: number,
    end: number,
  ): Promise<{ visitDay: number; day: number; n: number }[]> {
    const rows = await run<{ d: number; k: number; n: number }>(sql`select ${DAY_OF_VISIT} as d, h.time / 86400 as k, count(*) as n
      from visits v cross join hits h
      where h.visit_id = v.id and v.website_id = ${websiteId} and ${startingOn(days)} and h.time >= ${start} and h.time < ${end}
        and h.event = 0 and ${where.visit()} and ${where.hit(false)}
      group by ${DAY_OF_VISIT}, h.time / 86400`);
    return rows.map((row) => ({ visitDay: Number(row.d), day: Number(row.k), n: Number(row.n) }));
  }

  /** Day rows of `day_versions` reaching [start, end] for hits (a superset of what visits need), memoized per bounds. */
  const versions = new Map<string, Promise<CandidateDay[]>>();
  function candidateDays(start: number, end: number): Promise<CandidateDay[]> {
    const key = `${start}:${end}`;
    let found = versions.get(key);
    if (!found) {
      // A late hit joins the visit its person started next (up to a day later): for hits, the day after the range too.
      found = run<{ day: number; last_hit: number; version: number }>(sql`select day, last_hit, version from day_versions
        where website_id = ${websiteId} and (day >= ${Math.floor(start / 86_400)} or last_hit >= ${start}) and day <= ${Math.ceil(end / 86_400)} order by day`).then(
        (rows) => rows.map((row) => ({ day: Number(row.day), lastHit: Number(row.last_hit), version: Number(row.version) })),
      );
      versions.set(key, found);
    }
    return found;
  }

  /** The days whose visits can count: started in the range, or (for hits) before it with a hit in it. */
  const reaching = (days: readonly CandidateDay[], fromHits: boolean, start: number, end: number) =>
    days.filter((day) =>
      fromHits
        ? (day.day >= Math.floor(start / 86_400) || day.lastHit >= start) && day.day <= Math.ceil(end / 86_400)
        : day.day >= Math.floor(start / 86_400) && day.day < end / 86_400,
    );

  /**
   * The named columns of the days' current blocks, each group's days with its own names,
   * in one statement; each column is read once per request (a day without it maps it to null).
   */
  async function readColumns(groups: readonly { days: readonly CandidateDay[]; names: readonly BlockColumn[] }[]): Promise<void> {
    if (columnStore) {
      for (const { days, names } of groups) {
        for (const day of days) {
          for (const name of names) {
            if (columnCache.get(day.day)?.has(name)) continue;
            const column = columnStore.get(websiteId, day, name);
            if (!column) continue;
            let columns = columnCache.get(day.day);
            if (!columns) columnCache.set(day.day, (columns = new Map()));
            columns.set(name, column);
          }
        }
      }
    }
    const missing = groups
      .map(({ days, names }) => ({ days: days.filter((day) => names.some((name) => !columnCache.get(day.day)?.has(name))), names }))
      .filter(({ days }) => days.length > 0);
    if (missing.length === 0) return;
    // A select per group, each an index lookup per day and name (one select with `or` scans the website's blocks).
    // The days are listed for both tables: PostgreSQL carries no `in` list across the join's equality,
    // and would otherwise look up every day the website has.
    const selects = missing.map(({ days, names }) => {
      const listed = sql.join(days.map((day) => day.day));
      return sql`select b.day, b.name, b.data from day_blocks b
        join day_versions d on d.website_id = b.website_id and d.day = b.day and d.version = b.version
        where b.website_id = ${websiteId} and b.day in (${listed}) and d.day in (${listed}) and b.name in (${sql.join(names)})`;
    });
    const rows = await run<{ day: number; name: BlockColumn; data: Uint8Array }>(sql.join(selects, sql` union all `));
    const asRead = new Map(missing.flatMap(({ days }) => days.map((day) => [day.day, day])));
    for (const { days, names } of missing) {
      for (const day of days) {
        let columns = columnCache.get(day.day);
        if (!columns) columnCache.set(day.day, (columns = new Map()));
        for (const name of names) if (!columns.has(name)) columns.set(name, null);
      }
    }
    for (const row of rows) {
      const columns = columnCache.get(Number(row.day))!;
      if (columns.get(row.name)) continue;
      const column = decodeColumn(row.data);
      columns.set(row.name, column);
      columnStore?.set(websiteId, asRead.get(Number(row.day))!, row.name, column, row.data.byteLength);
    }
  }

  /** Every condition's dictionary ids (and property names), looked up once per request. */
  let resolving: Promise<ResolvedCondition[]> | null = null;
  const resolvedConditions = () => (resolving ??= resolveConditions(db, where));

  /** Each day's block as every statistic of this request reads it: runs, hit offsets, matching visits (worked out once). */
  const preparedBlocks = new Map<number, PreparedBlock>();
  function preparedBlock(day: number, conditions: readonly ResolvedCondition[]): PreparedBlock {
    let block = preparedBlocks.get(day);
    if (!block) {
      const cached = columnCache.get(day)!;
      preparedBlocks.set(day, (block = prepareBlock(day, (name) => cached.get(name)!, conditions)));
    }
    return block;
  }

  /** What a block scan needs besides the columns: the conditions' ids, looked up once. */
  async function blockScan(stat: Statistic, counting: Counting, start: number, end: number): Promise<BlockScan> {
    const scan: BlockScan = { counting: counting.block, conditions: await resolvedConditions(), start, end };
    if (counting.from === "properties") {
      // A pageview's event id is 0.
      scan.ofPageviews = !countsEvents(stat, counting);
      scan.eventIds = scan.ofPageviews ? new Set([0]) : await idSet(where.idsOf("event", stat.event ?? ""));
      scan.propNames = await idSet(where.idsOf("prop_name", stat.property ?? ""));
    }
    if (counting.keys === "goal") scan.goalPages = await idSet(where.pagesMatching(stat.pattern ?? ""));
    return scan;
  }

  /**
   * Counts by key (day, hour, dictionary id, or 0 for a goal) of several statistics and
   * ranges, planned together: the days they reach and the block columns they need are
   * read once for all, day blocks where current, rows elsewhere; the day series of visits
   * and pageviews from rows are one statement each for all.
   */
  async function countsByKey(requests: readonly CountRequest[]): Promise<Map<number, number>[]> {
    where = await prepare();
    const bounds = requests.map(({ range }) => localBounds(range));
    const all = await candidateDays(Math.min(...bounds.map(([start]) => start)), Math.max(...bounds.map(([, end]) => end)));
    const plans = requests.map((request, index) => {
      const [start, end] = bounds[index]!;
      const counting = countingOf(request.stat);
      const fromHits = counting.from !== "visits";
      // A block's hits need their times checked where some may fall outside the range: its first
      // day and before (late hits), the day after it, and days with hits past its end.
      const needsTime = (day: CandidateDay) => fromHits && (day.day <= start / 86_400 || day.day >= end / 86_400 || day.lastHit >= end);
      // A part of a day (the Stats API v2's date-times): the days it cuts are counted from the rows.
      const partial = start % 86_400 !== 0 || end % 86_400 !== 0;
      const cut = (day: CandidateDay) => partial && (day.day * 86_400 < start || (day.day + 1) * 86_400 > end);
      const columns = columnsFor(counting.block, conditions, false);
      const timeColumns = columnsFor(counting.block, conditions, true);
      return { request, start, end, counting, days: reaching(all, fromHits, start, end), needsTime, cut, columns, timeColumns };
    });
    const reached = [...new Map(plans.flatMap((plan) => plan.days).map((day) => [day.day, day])).values()];
    const timed = [...new Map(plans.flatMap((plan) => plan.days.filter(plan.needsTime)).map((day) => [day.day, day])).values()];
    await readColumns([
      { days: reached, names: [...new Set(plans.flatMap((plan) => plan.columns))] },
      { days: timed, names: [...new Set(plans.flatMap((plan) => plan.timeColumns))] },
    ]);

    const counts = plans.map(() => new Map<number, number>());
    const add = (into: Map<number, number>, key: number, n: number) => into.set(key, (into.get(key) ?? 0) + n);
    const rowDays: number[][] = [];
    for (const [index, plan] of plans.entries()) {
      // The days whose current block has every column this request reads there (read above).
      const blockDays = plan.days.filter((day) => {
        const cached = columnCache.get(day.day);
        return cached && !plan.cut(day) && (plan.needsTime(day) ? plan.timeColumns : plan.columns).every((name) => cached.get(name));
      });
      if (blockDays.length > 0) {
        const scan = await blockScan(plan.request.stat, plan.counting, plan.start, plan.end);
        for (const day of blockDays) {
          const block = preparedBlock(day.day, scan.conditions);
          countBlock({ block, scan, withTime: plan.needsTime(day), into: counts[index]! });
        }
      }
      const counted = new Set(blockDays);
      rowDays.push(plan.days.filter((day) => !counted.has(day)).map((day) => day.day));
    }

    // From rows: the day series of visits (per visit column alike) and pageviews together, everything else a statement each.
    const visitSeriesBy = new Map<VisitDimension | undefined, number[]>();
    for (const [index, plan] of plans.entries()) {
      if (!VISIT_DAY_SERIES.includes(plan.request.stat.name) || rowDays[index]!.length === 0) continue;
      const by = plan.request.stat.by;
      visitSeriesBy.set(by, [...(visitSeriesBy.get(by) ?? []), index]);
    }
    const fromVisitSeries = new Set([...visitSeriesBy.values()].flat());
    const pageviewSeries = plans.flatMap((plan, index) =>
      plan.request.stat.name === "pageviews" && plan.request.stat.by === undefined && rowDays[index]!.length > 0 ? [index] : [],
    );
    const union = (indexes: readonly number[]) => [...new Set(indexes.flatMap((index) => rowDays[index]!))].sort((a, b) => a - b);
    const span = (indexes: readonly number[]) =>
      [Math.min(...indexes.map((index) => plans[index]!.start)), Math.max(...indexes.map((index) => plans[index]!.end))] as const;
    for (const [by, indexes] of visitSeriesBy) {
      const rows = await visitSeries(union(indexes), ...span(indexes), by);
      for (const index of indexes) {
        const { request, start, end } = plans[index]!;
        const own = new Set(rowDays[index]);
        for (const row of rows)
          if (own.has(row.day) && row.day >= Math.floor(start / 86_400) && row.day < end / 86_400)
            add(counts[index]!, row.key, Number(row.counts[request.stat.name]));
      }
    }
    if (pageviewSeries.length > 0) {
      const rows = await pageviewsByVisitDay(union(pageviewSeries), ...span(pageviewSeries));
      for (const index of pageviewSeries) {
        const { start, end } = plans[index]!;
        const own = new Set(rowDays[index]);
        for (const row of rows)
          if (own.has(row.visitDay) && row.day >= Math.floor(start / 86_400) && row.day < end / 86_400) add(counts[index]!, row.day, row.n);
      }
    }
    for (const [index, plan] of plans.entries()) {
      if (rowDays[index]!.length === 0 || fromVisitSeries.has(index) || pageviewSeries.includes(index)) continue;
      for (const row of await run<{ k: number; n: number }>(grouped(plan.request.stat, plan.request.range, rowDays[index]!)))
        add(counts[index]!, Number(row.k), Number(row.n));
    }
    return counts;
  }

  /** Every row of each request, with keys read as values (day, hour or dictionary value). */
  async function allOf(requests: readonly CountRequest[]): Promise<StatRow[][]> {
    const counts = await countsByKey(requests);
    return Promise.all(requests.map(({ stat }, index) => rowsOf(stat, counts[index]!)));
  }

  async function rowsOf(stat: Statistic, byKey: Map<number, number>): Promise<StatRow[]> {
    const counted = [...byKey].filter(([, n]) => n > 0);
    const keys = countingOf(stat).keys;
    if (keys === "dimension") {
      const values = await dictionaryValues(
        db,
        counted.map(([id]) => id),
      );
      return counted.flatMap(([id, count]) => (values.has(id) ? [{ value: values.get(id)!, count }] : []));
    }
    const read =
      keys === "goal"
        ? () => pageGoalValue(stat.pattern ?? "")
        : keys === "day"
          ? dayValue
          : keys === "day-hour"
            ? dayHourValue
            : hourValue;
    return counted.map(([key, count]) => ({ value: read(key), count }));
  }

  const all = async (stat: Statistic, range: DayRange) => (await allOf([{ stat, range }]))[0]!;

  return {
    async page(stat, range, list) {
      if (countingOf(stat).keys !== "dimension" || list.search !== "" || list.sortBy !== "count")
        return pageRows(await all(stat, range), list);
      const [counts] = await countsByKey([{ stat, range }]);
      return pageByCount(counts!, list, (ids) => dictionaryValues(db, ids));
    },
    all,
    allOf,
    async countsOf(stat, range, values) {
      const wanted = new Set(values);
      const counts = new Map<string, number>();
      for (const row of await all(stat, range)) if (wanted.has(row.value)) counts.set(row.value, row.count);
      return counts;
    },
    source: (stat) => (COUNTINGS[stat.name] !== undefined && COUNTINGS[stat.name]!.from !== "visits" ? "hits" : "visits"),
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
