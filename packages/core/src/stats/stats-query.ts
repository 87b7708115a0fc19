import * as z from "zod";
import { dayNumber, FIRST_DAY, isCalendarDate, isInDomain, LAST_DAY } from "../shared/calendar.js";
import { ValidationError } from "../shared/errors.js";
import { choice, fallbackChoice, paginationQuery, sortDirection, validate } from "../shared/validation.js";
import { VISIT_DIMENSIONS } from "../model/dimensions.js";
import { FILTER_LIMITS, parseFilters, type Condition } from "../model/filters.js";
import { PAGE_GOAL_LIMITS, STAT_NAMES } from "../model/stat-names.js";

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
  /** With `name=goals`: page patterns (`/blog/*`) counted as goals beside the events. */
  goal_page?: unknown;
}

/** The totals call's parameters. */
export interface TotalsQueryInput {
  from?: unknown;
  to?: unknown;
  filter?: unknown;
  compare?: unknown;
}

/** Longest range accepted, so one query stays bounded: 10 years. */
export const MAX_RANGE_DAYS = 3660;
const TOO_LONG = `The range may not be longer than ${MAX_RANGE_DAYS} days.`;

/**
 * A range longer than the limit whose `from` comes before the website's first data
 * (`firstDay`, null without any) starts at that first data instead, as answering it would
 * count nothing more; `startsAt` says so. Other inputs are left to the schema.
 */
export async function fromFirstData<T extends { from?: unknown; to?: unknown }>(
  input: T,
  firstDay: () => Promise<string | null>,
): Promise<{ input: T; startsAt?: string }> {
  const { from, to } = input;
  if (typeof from !== "string" || typeof to !== "string" || !isInDomain(from) || !isInDomain(to)) return { input };
  if (dayNumber(to) - dayNumber(from) <= MAX_RANGE_DAYS) return { input };
  const first = (await firstDay()) ?? to;
  const startsAt = first <= from ? from : first < to ? first : to;
  if (dayNumber(to) - dayNumber(startsAt) > MAX_RANGE_DAYS) throw ValidationError.field("to", TOO_LONG);
  return startsAt === from ? { input } : { input: { ...input, from: startsAt }, startsAt };
}

const date = (field: string) =>
  z
    .string({ error: `The ${field} field is required.` })
    .refine(isCalendarDate, `The ${field} is not a valid date in the format Y-m-d.`)
    .refine((text) => !isCalendarDate(text) || isInDomain(text), `The ${field} must be a date from ${FIRST_DAY} to ${LAST_DAY}.`)
    .meta({
      description: `${field === "from" ? "First" : "Last"} day of the range (inclusive), \`Y-m-d\` in the website's time zone, ${FIRST_DAY} to ${LAST_DAY}.`,
      format: "date",
      example: field === "from" ? "2026-11-01" : "2026-11-30",
    });

/** The filter syntax, for the API's documentation (docs/statistics.md, "Asking for statistics"). */
const FILTER_DESCRIPTION = [
  "Conditions that must all hold, each `<dimension>:<operator>:<value>[|<value>…]`; repeat the parameter for several.",
  `Dimensions: \`page\`, \`event\` (visits that fired it), ${VISIT_DIMENSIONS.map((name) => `\`${name}\``).join(", ")}, and \`prop:<name>\` (an event property).`,
  "Operators: `is`, `is_not`, `contains` and `contains_not` (ignoring case), `matches` and `matches_not` (RE2 regular expressions). `|` separates values (any of them; `is_not`, `contains_not`: none of them); `\\|` and `\\\\` are a literal `|` and `\\`. `country:is:US` matches by code; `(none)` is a visit without a value (`referrer:is:(none)`: the direct visits).",
  "`||` joins conditions into one filter that holds when any of them does (`country:is:DE||source:is:Google`).",
  `At most ${FILTER_LIMITS.conditions} conditions (those joined by \`||\` included), ${FILTER_LIMITS.values} values each, ${FILTER_LIMITS.valueLength} characters a value. A bad condition is a 422 naming it (\`filter.0\`).`,
].join(" ");
/** The range, filter and comparison parameters every statistic and the totals call share. */
export const rangeFields = {
  from: date("from"),
  to: date("to"),
  filter: z
    .union([z.string(), z.array(z.string())], { error: "The filter must be a string." })
    .optional()
    .meta({ description: FILTER_DESCRIPTION, example: ["country:is:DE|AT", "utm_source:is:newsletter"] }),
  compare: choice("compare", ["previous_period", "year"]).optional().meta({
    description:
      "Adds `previous` to every row (and `previous_total`, `comparison`): the same number of days just before, or the same days a year earlier.",
  }),
};

type RangeFields = { from: string; to: string; filter?: string | string[] | undefined };

/**
 * Range order and length: issues beside the fields' own. `length: false` leaves the length to
 * the caller (a statistic's range first starts at the website's first data: `fromFirstData`).
 */
export function checkRange(query: RangeFields, context: z.RefinementCtx, { length = true } = {}): void {
  // An invalid date already has its own error: comparing it would only add a misleading one.
  if (!isInDomain(query.from) || !isInDomain(query.to)) return;
  if (query.from > query.to) context.addIssue({ code: "custom", path: ["to"], message: "The to must be a date after or equal to from." });
  else if (length && dayNumber(query.to) - dayNumber(query.from) > MAX_RANGE_DAYS) {
    context.addIssue({ code: "custom", path: ["to"], message: TOO_LONG });
  }
}

/** Marks a query this module parsed: handed back to core (the server parsed it), it is not parsed again. */
const PARSED = Symbol("tally.parsed-query");

/** The filters parsed, once: a bad one is an issue naming it (`filter.0`). */
export function withConditions<T extends RangeFields>(query: T, context: z.RefinementCtx): T & { conditions: Condition[] } {
  let conditions: Condition[] = [];
  try {
    conditions = parseFilters(query.filter);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const [field, messages] of Object.entries(error.errors)) {
      for (const message of messages) context.addIssue({ code: "custom", path: field.split("."), message });
    }
  }
  return Object.defineProperty({ ...query, conditions }, PARSED, { value: true });
}

export const isParsed = (input: object): boolean => PARSED in input;

const asList = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** `goal_page`: only with `goals`, a bounded number of non-empty patterns. */
function checkPageGoals(query: { name: string; goal_page?: string | string[] | undefined }, context: z.RefinementCtx): void {
  const patterns = asList(query.goal_page);
  if (patterns.length === 0) return;
  if (query.name !== "goals")
    context.addIssue({ code: "custom", path: ["goal_page"], message: "The goal page field is only allowed with name=goals." });
  if (patterns.length > PAGE_GOAL_LIMITS.patterns) {
    context.addIssue({ code: "custom", path: ["goal_page"], message: `At most ${PAGE_GOAL_LIMITS.patterns} goal pages are allowed.` });
  }
  patterns.forEach((pattern, index) => {
    if (pattern === "" || pattern.length > PAGE_GOAL_LIMITS.length) {
      context.addIssue({
        code: "custom",
        path: ["goal_page", index],
        message: `A goal page must be 1 to ${PAGE_GOAL_LIMITS.length} characters.`,
      });
    }
  });
}

/** Every parameter of `/stats`; `search_by` accepts `value` and `url` (the default), which mean the same. */
export const statsQuerySchema = z
  .object({
    name: choice("name", STAT_NAMES).meta({
      description: "The statistic (docs/statistics.md).",
      example: "page",
    }),
    search: z
      .string({ error: "The search must be a string." })
      .max(255, "The search may not be longer than 255 characters.")
      .default("")
      .meta({ description: "Only rows whose value contains this, ignoring case." }),
    search_by: fallbackChoice(["url", "value"], "url").meta({
      description: "`url` and `value` mean the same: the row's value. Any other value means `url`.",
      default: "url",
    }),
    sort_by: fallbackChoice(["count", "value"], "count").meta({
      description: "Ties are ordered by value, ascending. Any other value means `count`.",
      default: "count",
    }),
    sort: sortDirection,
    ...paginationQuery,
    ...rangeFields,
    event: z.string({ error: "The event must be a string." }).max(200, "The event may not be longer than 200 characters.").optional().meta({
      description: "With `name=event_property`: the event whose property is broken down; `pageview` for the pageviews' properties.",
      example: "Signup",
    }),
    property: z
      .string({ error: "The property must be a string." })
      .max(200, "The property may not be longer than 200 characters.")
      .optional()
      .meta({ description: "With `name=event_property`: the property.", example: "plan" }),
    goal_page: z
      .union([z.string(), z.array(z.string())], { error: "The goal page must be a string." })
      .optional()
      .meta({
        description: `With \`name=goals\`: a page goal, counted beside the event goals as the row \`Visit <pattern>\`: visitors who viewed a page matching the pattern, where \`*\` stands for any characters (\`/blog/*\`), case-sensitive. Repeat for several (at most ${PAGE_GOAL_LIMITS.patterns}, ${PAGE_GOAL_LIMITS.length} characters each). Page goals are counted from the visits and hits, so goals asked with them cover the last \`retention_days\`.`,
        example: ["/pricing", "/blog/*"],
      }),
  })
  .superRefine((query, context) => {
    checkRange(query, context, { length: false });
    checkPageGoals(query, context);
    if (query.name !== "event_property") return;
    if (!query.event) context.addIssue({ code: "custom", path: ["event"], message: "The event field is required for event_property." });
    if (!query.property)
      context.addIssue({ code: "custom", path: ["property"], message: "The property field is required for event_property." });
  })
  .transform((query, context) => Object.assign(withConditions(query, context), { goal_page: asList(query.goal_page) }));

/** The totals call: a range, filters, a comparison. */
export const totalsQuerySchema = z.object(rangeFields).superRefine(checkRange).transform(withConditions);

export type StatsQuery = z.output<typeof statsQuerySchema>;
export type TotalsQuery = z.output<typeof totalsQuerySchema>;

/** The query's parameters checked and its filters parsed; a query already parsed here (by the server) is used as it is. */
export function parseStatsQuery(input: StatsQueryInput | StatsQuery): StatsQuery {
  return isParsed(input) ? (input as StatsQuery) : validate(statsQuerySchema, input);
}

export function parseTotalsQuery(input: TotalsQueryInput | TotalsQuery): TotalsQuery {
  return isParsed(input) ? (input as TotalsQuery) : validate(totalsQuerySchema, input);
}

export type { StatRow } from "../model/stats-schemas.js";
