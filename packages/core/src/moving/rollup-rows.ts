import { sql, type Kysely } from "kysely";
import type { Database } from "../storage/schema.js";

/** Day-level rollup rows per page of the keyset walk. */
const PAGE = 5000;

export interface DayRow {
  day: string;
  value: string;
  count: number;
}

export interface ExportRange {
  from: string;
  to: string;
}

/**
 * One statistic's day-level rows of a website in `range`, by day and value, read in
 * pages along the rollups' primary key (website, name, period, value): bounded memory
 * and no sort, whatever the number of rows.
 */
export async function* dayRows(db: Kysely<Database>, websiteId: number, name: string, range: ExportRange): AsyncGenerator<DayRow> {
  let after: [string, string] | null = null;
  for (;;) {
    let query = db
      .selectFrom("rollups")
      .select(["period", "value", "count"])
      .where("website_id", "=", websiteId)
      .where("name", "=", name)
      .where("period", ">=", range.from)
      .where("period", "<=", range.to)
      .where(sql<boolean>`length(period) = 10`);
    if (after) query = query.where(sql<boolean>`(period, value) > (${after[0]}, ${after[1]})`);
    const rows = await query.orderBy("period").orderBy("value").limit(PAGE).execute();
    for (const row of rows) if (Number(row.count) !== 0) yield { day: row.period, value: row.value, count: Number(row.count) };
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1]!;
    after = [last.period, last.value];
  }
}

/** Several day series (their value is the day) side by side: day → name → count. Small: one row per day and name. */
export async function daySeries(
  rowsOf: (name: string, range: ExportRange) => AsyncIterable<DayRow>,
  names: readonly string[],
  range: ExportRange,
): Promise<Map<string, Map<string, number>>> {
  const days = new Map<string, Map<string, number>>();
  for (const name of names) {
    for await (const row of rowsOf(name, range)) {
      let counts = days.get(row.day);
      if (!counts) days.set(row.day, (counts = new Map()));
      counts.set(name, (counts.get(name) ?? 0) + row.count);
    }
  }
  return new Map([...days].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Rows grouped by day (they come ordered by day). */
export async function* byDay(rows: AsyncIterable<DayRow>): AsyncGenerator<{ day: string; rows: DayRow[] }> {
  let group: { day: string; rows: DayRow[] } | null = null;
  for await (const row of rows) {
    if (group && group.day !== row.day) {
      yield group;
      group = null;
    }
    (group ??= { day: row.day, rows: [] }).rows.push(row);
  }
  if (group) yield group;
}

/** How many day-level rows of these statistics the range holds (for progress). */
export async function countDayRows(db: Kysely<Database>, websiteId: number, names: readonly string[], range: ExportRange): Promise<number> {
  const row = await db
    .selectFrom("rollups")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("website_id", "=", websiteId)
    .where("name", "in", [...names])
    .where("period", ">=", range.from)
    .where("period", "<=", range.to)
    .where(sql<boolean>`length(period) = 10`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The first and last day with visitors or pageviews; null when the website has none. */
export async function dataRange(db: Kysely<Database>, websiteId: number): Promise<ExportRange | null> {
  const row = await db
    .selectFrom("rollups")
    .select((eb) => [eb.fn.min<string>("period").as("first"), eb.fn.max<string>("period").as("last")])
    .where("website_id", "=", websiteId)
    .where("name", "in", ["visitors", "pageviews"])
    .executeTakeFirst();
  return row?.first && row.last ? { from: row.first, to: row.last } : null;
}
