import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import { DIMENSION_KINDS, PROPERTY_SEPARATOR, STAT_KINDS } from "../model/dimensions.js";
import { coveringPeriods } from "../model/periods.js";
import { DAY_ONLY } from "../model/stat-names.js";
import type { CountReader, DayRange, ListOptions, Statistic } from "./count-reader.js";
import type { StatRow } from "../model/stats-schemas.js";

/** The character after PROPERTY_SEPARATOR: no value with a property's prefix sorts at or past the prefix ending in it. */
const NEXT_TO_SEPARATOR = String.fromCharCode(PROPERTY_SEPARATOR.charCodeAt(0) + 1);

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

  /** The statistic's rollup rows in the range's periods. */
  function sourceOf(stat: Statistic, range: DayRange, closedThrough: string) {
    let rows = db.selectFrom("rollups").where("website_id", "=", websiteId).where("name", "=", stat.name);
    rows = DAY_ONLY.has(stat.name)
      ? rows.where("period", ">=", range.from).where("period", "<=", range.to)
      : rows.where("period", "in", coveringPeriods(range.from, range.to, closedThrough));
    if (stat.name === "event_property") {
      const prefix = propertyPrefix(stat);
      rows = rows.where(sql<boolean>`substr(value, 1, ${sql.raw(String(characters(prefix)))}) = ${prefix}`);
      // SQLite compares text bytewise: the values with this prefix are one index range per period
      // (up to the prefix with its last character, the separator, counted one up).
      if (dialect.name === "sqlite") rows = rows.where("value", ">=", prefix).where("value", "<", prefix.slice(0, -1) + NEXT_TO_SEPARATOR);
    }
    return rows;
  }

  /** Those rows as (value, count). */
  function rowsOf(stat: Statistic, range: DayRange, closedThrough: string) {
    return db.selectFrom(
      sourceOf(stat, range, closedThrough)
        .select([valueOf(stat).as("value"), "count"])
        .as("r"),
    );
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
        .select(sql<number>`1`.as("one"))
        .limit(atMost + 1);
      const row = await db
        .selectFrom(source.as("s"))
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
