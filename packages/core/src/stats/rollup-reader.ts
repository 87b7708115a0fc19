import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import { DIMENSION_KINDS, PROPERTY_SEPARATOR, STAT_KINDS } from "../model/dimensions.js";
import { coveringPeriods, dayAfter, dayBefore } from "../model/periods.js";
import { dayNumber } from "../shared/calendar.js";
import { DAY_ONLY, WIDER_ROLLUPS } from "../model/stat-names.js";
import { TRAILING_PERIOD, throughTrailing } from "../model/trailing-period.js";
import type { CountReader, DayRange, ListOptions, Statistic } from "./count-reader.js";
import type { StatRow } from "../model/stats-schemas.js";
import { trailingPage } from "./trailing-page.js";

/** The character after PROPERTY_SEPARATOR: no value with a property's prefix sorts at or past the prefix ending in it. */
const NEXT_TO_SEPARATOR = String.fromCharCode(PROPERTY_SEPARATOR.charCodeAt(0) + 1);

/** The statistics with trailing rows. */
const WIDER: ReadonlySet<string> = new Set(WIDER_ROLLUPS);

/** Days after the last closed period listed one by one; a longer run (a range far past today) is read as one range of day rows. */
const MAX_DAYS_LISTED = 62;

/**
 * Where a range's rollup rows are: the widest closed periods that cover it and the days
 * after them; a long run of days after the last closed period as one range of day rows.
 */
export function periodsOf(range: DayRange, closedThrough: string): { periods: string[]; days: DayRange | null } {
  const firstOpen = closedThrough === "" || closedThrough < range.from ? range.from : dayAfter(closedThrough);
  if (firstOpen > range.to || dayNumber(range.to) - dayNumber(firstOpen) < MAX_DAYS_LISTED) {
    return { periods: coveringPeriods(range.from, range.to, closedThrough), days: null };
  }
  const periods = firstOpen > range.from ? coveringPeriods(range.from, dayBefore(firstOpen)) : [];
  return { periods, days: { from: firstOpen, to: range.to } };
}

/**
 * Where a range's rollup rows are, through the trailing period when that reads fewer
 * (model/trailing-period.ts): its rows and the periods of the days the range has beyond
 * it, less the periods of the days it has beyond the range (`subtract`).
 */
export function rangePeriods(
  name: string,
  range: DayRange,
  closedThrough: string,
): { periods: string[]; days: DayRange | null; subtract: string[] } {
  const trailing = WIDER.has(name) ? throughTrailing(range, closedThrough) : null;
  if (!trailing) return { ...periodsOf(range, closedThrough), subtract: [] };
  const periods = [TRAILING_PERIOD];
  let days: DayRange | null = null;
  for (const part of trailing.add) {
    const read = periodsOf(part, closedThrough);
    periods.push(...read.periods);
    days = read.days ?? days;
  }
  const subtract = trailing.subtract.flatMap((part) => coveringPeriods(part.from, part.to, closedThrough));
  return { periods, days, subtract };
}

/**
 * Statistics from the rollups: a range reads whole years, months and at most ~60 days,
 * so the cost depends on the range and the number of distinct values, never on hits.
 */
export function createRollupReader(db: Kysely<Database>, dialect: SqlDialect, websiteId: number): CountReader {
  /** `event_property` rows of one event and property: their values start with this. */
  const propertyPrefix = (stat: Statistic) => [stat.event ?? "", stat.property ?? "", ""].join(PROPERTY_SEPARATOR);
  /** SQL's substr counts characters (code points), not JavaScript's UTF-16 units: 🎉 is one, not two. */
  const characters = (text: string) => [...text].length;

  /** The value a row answers with: the property value alone for `event_property`. */
  function valueOf(stat: Statistic): RawBuilder<string> {
    if (stat.name !== "event_property") return sql<string>`value`;
    return sql<string>`substr(value, ${sql.raw(String(characters(propertyPrefix(stat)) + 1))})`;
  }

  /** The day the website's closed periods end by (model/periods.ts): read once per reader, "" when none has closed. */
  let closedThrough: Promise<string> | undefined;
  const closed = () =>
    (closedThrough ??= db
      .selectFrom("rollup_watermarks")
      .select("closed_through")
      .where("website_id", "=", websiteId)
      .executeTakeFirst()
      .then((row) => row?.closed_through ?? ""));

  /** The statistic's rollup rows in the range's periods, and the periods whose counts are subtracted (none unless read through the trailing period). */
  function sourceOf(stat: Statistic, range: DayRange, closedThrough: string) {
    let rows = db.selectFrom("rollups").where("website_id", "=", websiteId).where("name", "=", stat.name);
    let subtracted: string[] = [];
    if (DAY_ONLY.has(stat.name)) rows = rows.where("period", ">=", range.from).where("period", "<=", range.to);
    else {
      const { periods, days, subtract } = rangePeriods(stat.name, range, closedThrough);
      subtracted = subtract;
      rows = rows.where((eb) =>
        eb.or([
          ...(periods.length > 0 ? [eb("period", "in", [...periods, ...subtract])] : []),
          ...(days ? [eb.and([eb("period", ">=", days.from), eb("period", "<=", days.to), eb(sql`length(period)`, "=", 10)])] : []),
        ]),
      );
    }
    if (stat.name === "event_property") {
      const prefix = propertyPrefix(stat);
      rows = rows.where(sql<boolean>`substr(value, 1, ${sql.raw(String(characters(prefix)))}) = ${prefix}`);
      // SQLite compares text bytewise: the values with this prefix are one index range per period
      // (up to the prefix with its last character, the separator, counted one up).
      if (dialect.name === "sqlite") rows = rows.where("value", ">=", prefix).where("value", "<", prefix.slice(0, -1) + NEXT_TO_SEPARATOR);
    }
    return { rows, subtracted };
  }

  /** Those rows as (value, count), a subtracted period's count negative. */
  function rowsOf(stat: Statistic, range: DayRange, closedThrough: string) {
    const { rows, subtracted } = sourceOf(stat, range, closedThrough);
    const count =
      subtracted.length === 0 ? sql<number>`count` : sql<number>`case when period in (${sql.join(subtracted)}) then -count else count end`;
    return db.selectFrom(rows.select([valueOf(stat).as("value"), count.as("count")]).as("r"));
  }

  type Rows = ReturnType<typeof rowsOf>;

  /** Case-insensitive search through the dictionary's lower-cased copies (no per-row function). */
  function searched(rows: Rows, stat: Statistic, needle: string): Rows {
    if (needle === "") return rows;
    const kind = STAT_KINDS[stat.name];
    if (kind === undefined) return rows.where(dialect.contains(sql.ref("value"), needle));
    const matching = db
      .selectFrom("dimensions")
      .select("value")
      .where("website_id", "=", websiteId)
      .where("kind", "=", DIMENSION_KINDS[kind])
      .where(dialect.contains(sql.ref("search"), needle));
    return rows.where("r.value", "in", matching);
  }

  function grouped(stat: Statistic, range: DayRange, closedThrough: string, needle = "") {
    return searched(rowsOf(stat, range, closedThrough), stat, needle)
      .select((eb) => ["r.value", eb.fn.sum<number>("r.count").as("total")])
      .groupBy("r.value")
      .having((eb) => eb.fn.sum("r.count"), ">", 0);
  }

  async function page(stat: Statistic, range: DayRange, list: ListOptions) {
    const closedThrough = await closed();
    if (list.search === "" && list.sortBy === "count" && stat.name !== "event_property" && !DAY_ONLY.has(stat.name)) {
      const plan = rangePeriods(stat.name, range, closedThrough);
      if (plan.periods[0] === TRAILING_PERIOD) return trailingPage(db, dialect, { websiteId, name: stat.name, plan }, list);
    }
    const rows = grouped(stat, range, closedThrough, list.search).select(sql<number>`count(*) over ()`.as("groups"));
    const byValue = dialect.byCodePoint(sql.ref("r.value"));
    const ordered =
      list.sortBy === "value"
        ? rows.orderBy(byValue, list.sort)
        : rows.orderBy(sql`sum(${sql.ref("r.count")})`, list.sort).orderBy(byValue, "asc");
    const result = (await ordered
      .limit(list.perPage)
      .offset((list.page - 1) * list.perPage)
      .execute()) as { value: string; total: number; groups: number }[];
    let total = result[0] ? Number(result[0].groups) : 0;
    // A page past the end has no row to carry the window count: count separately.
    if (!result[0] && list.page > 1) {
      const row = await db
        .selectFrom(grouped(stat, range, closedThrough, list.search).as("g"))
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      total = Number(row.n);
    }
    return { rows: result.map((row) => ({ value: row.value, count: Number(row.total) })), total };
  }

  async function all(stat: Statistic, range: DayRange): Promise<StatRow[]> {
    const rows = (await grouped(stat, range, await closed()).execute()) as { value: string; total: number }[];
    return rows.map((row) => ({ value: row.value, count: Number(row.total) }));
  }

  return {
    page,
    all,
    // Each a few indexed rollup rows: nothing to gain from planning them together.
    allOf: (requests) => Promise.all(requests.map(({ stat, range }) => all(stat, range))),
    async countsOf(stat, range, values) {
      const counts = new Map<string, number>();
      if (values.length === 0) return counts;
      const rows = (await grouped(stat, range, await closed())
        .where("r.value", "in", [...values])
        .execute()) as { value: string; total: number }[];
      for (const row of rows) counts.set(row.value, Number(row.total));
      return counts;
    },
    // Each statistic has rollup rows of its own.
    source: (stat) => `rollups:${stat.name}:${stat.event ?? ""}:${stat.property ?? ""}`,
    async rowsRead(stat, range, atMost) {
      const source = sourceOf(stat, range, await closed())
        .rows.select(sql<number>`1`.as("one"))
        .limit(atMost + 1);
      const row = await db
        .selectFrom(source.as("s"))
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
