import { sql, type Kysely } from "kysely";
import type { Database } from "../database/schema.js";
import type { SqlDialect } from "../dialect/dialect.js";
import { readListParams, throwIfInvalid, type ListParamsInput } from "../list-params.js";
import type { Page } from "../websites/websites.js";
import { coveringPeriods, isCalendarDate } from "./periods.js";
import { DAILY_SERIES, STAT_NAMES, type StatName } from "./stat-names.js";

export interface StatsQueryInput extends ListParamsInput {
  name?: unknown;
  from?: unknown;
  to?: unknown;
}

export interface StatRow {
  value: string;
  count: number;
}

export interface StatsQuery {
  name: StatName;
  from: string;
  to: string;
  search: string;
  sortBy: "count" | "value";
  sort: "asc" | "desc";
  perPage: number;
  page: number;
}

/** Longest range accepted, so one query stays bounded: 10 years. */
const MAX_RANGE_DAYS = 3660;

function readDate(errors: Record<string, string[]>, field: string, value: unknown): string | null {
  if (value === undefined || value === null || value === "") {
    (errors[field] ??= []).push(`The ${field} field is required.`);
    return null;
  }
  if (typeof value !== "string" || !isCalendarDate(value)) {
    (errors[field] ??= []).push(`The ${field} is not a valid date in the format Y-m-d.`);
    return null;
  }
  return value;
}

/** Validates every parameter of SPEC §5; throws one ValidationError naming each problem. */
export function parseStatsQuery(input: StatsQueryInput): StatsQuery {
  const errors: Record<string, string[]> = {};
  let name: StatName | undefined;
  if (input.name === undefined || input.name === null || input.name === "") errors.name = ["The name field is required."];
  else {
    name = STAT_NAMES.find((n) => n === input.name);
    if (!name) errors.name = ["The selected name is invalid."];
  }
  const from = readDate(errors, "from", input.from);
  const to = readDate(errors, "to", input.to);
  if (from && to && from > to) errors.to = ["The to must be a date after or equal to from."];
  if (from && to && Date.parse(to) - Date.parse(from) > MAX_RANGE_DAYS * 86_400_000) {
    errors.to = [`The range from ${from} to ${to} is longer than ${MAX_RANGE_DAYS} days.`];
  }
  const list = readListParams(input, errors, { sortBy: ["count", "value"] as const, searchBy: ["url", "value"] as const });
  throwIfInvalid(errors);
  return { name: name!, from: from!, to: to!, ...list };
}

/** Reads a statistic from the rollups: cost depends on the range and distinct values, not on hits. */
export function createStatsReader(db: Kysely<Database>, dialect: SqlDialect) {
  return async function readStat(websiteId: number, query: StatsQuery): Promise<Page<StatRow>> {
    let rows = db
      .selectFrom("rollups")
      .where("website_id", "=", websiteId)
      .where("name", "=", query.name);
    rows = DAILY_SERIES.has(query.name)
      ? rows.where("period", ">=", query.from).where("period", "<=", query.to)
      : rows.where("period", "in", coveringPeriods(query.from, query.to));
    if (query.search !== "") rows = rows.where(dialect.containsIgnoringCase(sql.ref("value"), query.search.toLowerCase()));

    const grouped = rows
      .select((eb) => ["value", eb.fn.sum<number>("count").as("total"), sql<number>`count(*) over ()`.as("groups")])
      .groupBy("value")
      .having((eb) => eb.fn.sum("count"), ">", 0);
    const byValue = dialect.byCodePoint(sql.ref("value"));
    const ordered =
      query.sortBy === "value"
        ? grouped.orderBy(byValue, query.sort)
        : grouped.orderBy(sql`sum(${sql.ref("count")})`, query.sort).orderBy(byValue, "asc");
    const result = await ordered
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute();
    const total = result[0] ? Number(result[0].groups) : await countGroups();
    return {
      data: result.map((row) => ({ value: row.value, count: Number(row.total) })),
      total,
      page: query.page,
      perPage: query.perPage,
    };

    // A page past the end has no row to carry the window count: count separately.
    async function countGroups(): Promise<number> {
      if (query.page === 1) return 0;
      const row = await db
        .selectFrom(grouped.as("g"))
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }
  };
}
