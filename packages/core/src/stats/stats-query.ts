import { sql, type Kysely } from "kysely";
import type { Database } from "../database/schema.js";
import type { SqlDialect } from "../dialect/dialect.js";
import * as z from "zod";
import { choice, paginationQuery, sortDirection, validate } from "../validation.js";
import type { Page } from "../websites/websites.js";
import { FIRST_DAY, isCalendarDate, isInDomain, LAST_DAY } from "../calendar.js";
import { coveringPeriods } from "./periods.js";
import { DAILY_SERIES, STAT_NAMES } from "./stat-names.js";

/** Raw statistic parameters, as a query string or an in-process call gives them. */
export interface StatsQueryInput {
  name?: unknown;
  from?: unknown;
  to?: unknown;
  search?: unknown;
  search_by?: unknown;
  sort_by?: unknown;
  sort?: unknown;
  per_page?: unknown;
  page?: unknown;
}

export interface StatRow {
  value: string;
  count: number;
}

/** Longest range accepted, so one query stays bounded: 10 years. */
const MAX_RANGE_DAYS = 3660;

const date = (field: string) =>
  z
    .string({ error: `The ${field} field is required.` })
    .refine(isCalendarDate, `The ${field} is not a valid date in the format Y-m-d.`)
    .refine((text) => !isCalendarDate(text) || isInDomain(text), `The ${field} must be a date from ${FIRST_DAY} to ${LAST_DAY}.`);

/** Every parameter of SPEC §5; `search_by` accepts `value` and `url` (the default), which mean the same. */
export const statsQuerySchema = z
  .object({
    name: choice("name", STAT_NAMES),
    from: date("from"),
    to: date("to"),
    search: z.string({ error: "The search must be a string." }).max(255, "The search may not be longer than 255 characters.").default(""),
    search_by: choice("search_by", ["url", "value"]).default("url"),
    sort_by: choice("sort_by", ["count", "value"]).default("count"),
    sort: sortDirection,
    ...paginationQuery,
  })
  .superRefine((query, context) => {
    // An invalid date already has its own error: comparing it would only add a misleading one.
    if (!isInDomain(query.from) || !isInDomain(query.to)) return;
    if (query.from > query.to) context.addIssue({ code: "custom", path: ["to"], message: "The to must be a date after or equal to from." });
    else if (Date.parse(query.to) - Date.parse(query.from) > MAX_RANGE_DAYS * 86_400_000) {
      context.addIssue({ code: "custom", path: ["to"], message: `The range may not be longer than ${MAX_RANGE_DAYS} days.` });
    }
  });

export type StatsQuery = z.output<typeof statsQuerySchema>;

export function parseStatsQuery(input: StatsQueryInput): StatsQuery {
  return validate(statsQuerySchema, input);
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
      query.sort_by === "value"
        ? grouped.orderBy(byValue, query.sort)
        : grouped.orderBy(sql`sum(${sql.ref("count")})`, query.sort).orderBy(byValue, "asc");
    const result = await ordered
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute();
    const total = result[0] ? Number(result[0].groups) : await countGroups();
    return {
      data: result.map((row) => ({ value: row.value, count: Number(row.total) })),
      total,
      page: query.page,
      perPage: query.per_page,
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
