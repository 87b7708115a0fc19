import * as z from "zod";
import { dayNumber, FIRST_DAY, isCalendarDate, isInDomain, LAST_DAY } from "../calendar.js";
import { ValidationError } from "../errors.js";
import { choice, paginationQuery, sortDirection, validate } from "../validation.js";
import { parseFilters, type Condition } from "./filters.js";
import { STAT_NAMES } from "./stat-names.js";

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
  /** One condition or several: `country:is:US`, `page:contains:/blog` (docs/statistics.md). */
  filter?: unknown;
  /** `previous_period` or `year`. */
  compare?: unknown;
  /** With `name=event_property`: the event and the property to break down. */
  event?: unknown;
  property?: unknown;
}

/** The totals call's parameters. */
export interface TotalsQueryInput {
  from?: unknown;
  to?: unknown;
  filter?: unknown;
  compare?: unknown;
}

/** Longest range accepted, so one query stays bounded: 10 years. */
const MAX_RANGE_DAYS = 3660;

const date = (field: string) =>
  z
    .string({ error: `The ${field} field is required.` })
    .refine(isCalendarDate, `The ${field} is not a valid date in the format Y-m-d.`)
    .refine((text) => !isCalendarDate(text) || isInDomain(text), `The ${field} must be a date from ${FIRST_DAY} to ${LAST_DAY}.`);

/** The range, filter and comparison parameters every statistic and the totals call share. */
const rangeFields = {
  from: date("from"),
  to: date("to"),
  filter: z.union([z.string(), z.array(z.string())], { error: "The filter must be a string." }).optional(),
  compare: choice("compare", ["previous_period", "year"]).optional(),
};

type RangeFields = { from: string; to: string; filter?: string | string[] | undefined };

/** Range order and length, and the filters' syntax: issues beside the fields' own. */
function checkRange(query: RangeFields, context: z.RefinementCtx): void {
  try {
    parseFilters(query.filter);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const [field, messages] of Object.entries(error.errors)) {
      for (const message of messages) context.addIssue({ code: "custom", path: field.split("."), message });
    }
  }
  // An invalid date already has its own error: comparing it would only add a misleading one.
  if (!isInDomain(query.from) || !isInDomain(query.to)) return;
  if (query.from > query.to) context.addIssue({ code: "custom", path: ["to"], message: "The to must be a date after or equal to from." });
  else if (dayNumber(query.to) - dayNumber(query.from) > MAX_RANGE_DAYS) {
    context.addIssue({ code: "custom", path: ["to"], message: `The range may not be longer than ${MAX_RANGE_DAYS} days.` });
  }
}

const withConditions = <T extends RangeFields>(query: T) => ({ ...query, conditions: parseFilters(query.filter) as Condition[] });

/** Every parameter of `/stats`; `search_by` accepts `value` and `url` (the default), which mean the same. */
export const statsQuerySchema = z
  .object({
    name: choice("name", STAT_NAMES),
    search: z.string({ error: "The search must be a string." }).max(255, "The search may not be longer than 255 characters.").default(""),
    search_by: choice("search_by", ["url", "value"]).default("url"),
    sort_by: choice("sort_by", ["count", "value"]).default("count"),
    sort: sortDirection,
    ...paginationQuery,
    ...rangeFields,
    event: z.string({ error: "The event must be a string." }).max(200, "The event may not be longer than 200 characters.").optional(),
    property: z.string({ error: "The property must be a string." }).max(200, "The property may not be longer than 200 characters.").optional(),
  })
  .superRefine((query, context) => {
    checkRange(query, context);
    if (query.name !== "event_property") return;
    if (!query.event) context.addIssue({ code: "custom", path: ["event"], message: "The event field is required for event_property." });
    if (!query.property) context.addIssue({ code: "custom", path: ["property"], message: "The property field is required for event_property." });
  })
  .transform(withConditions);

/** The totals call: a range, filters, a comparison. */
export const totalsQuerySchema = z.object(rangeFields).superRefine(checkRange).transform(withConditions);

export type StatsQuery = z.output<typeof statsQuerySchema>;
export type TotalsQuery = z.output<typeof totalsQuerySchema>;

export function parseStatsQuery(input: StatsQueryInput): StatsQuery {
  return validate(statsQuerySchema, input);
}

export function parseTotalsQuery(input: TotalsQueryInput): TotalsQuery {
  return validate(totalsQuerySchema, input);
}

export interface StatRow {
  value: string;
  count: number;
  /** With `compare`: the count in the comparison range. */
  previous?: number;
  /** `goals` only: event hits, and visitors as a share of all visitors (percent). */
  events?: number;
  conversion_rate?: number;
}
