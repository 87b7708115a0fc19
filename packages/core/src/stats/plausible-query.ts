import * as z from "zod";
import { addDays, dayNumber, dayText, isCalendarDate, isInDomain, isTimeInDomain } from "../shared/calendar.js";
import { createLocalClock } from "../model/local-time.js";
import { PlausibleQueryError } from "./plausible-query-error.js";
import type { Operator } from "../model/filters.js";
import { compilePattern } from "../shared/patterns.js";
import { PLAUSIBLE_DIMENSIONS, PROPS_PREFIX } from "./plausible-dimensions.js";

/** A Stats API v2 query Tally cannot answer: a 400 `{"error": message}`, as Plausible answers. */
export { PlausibleQueryError };

const fail = (message: string): never => {
  throw new PlausibleQueryError(message);
};
const show = (value: unknown) => JSON.stringify(value) ?? String(value);

export const PLAUSIBLE_METRICS = [
  "visitors",
  "visits",
  "pageviews",
  "views_per_visit",
  "bounce_rate",
  "visit_duration",
  "events",
  "percentage",
  "conversion_rate",
  "scroll_depth",
  "time_on_page",
  "total_revenue",
  "average_revenue",
] as const;
export type PlausibleMetric = (typeof PLAUSIBLE_METRICS)[number];

/** The revenue metrics: a figure in one currency, `{short, long, value, currency}`, as Plausible's (docs/revenue.md). */
export type RevenueMetric = "total_revenue" | "average_revenue";
export const isRevenueMetric = (metric: string): metric is RevenueMetric => metric === "total_revenue" || metric === "average_revenue";

/** Plausible's per-page metrics: a page's v1 `scroll_depth` average, its `time_on_page` seconds. */
export const PAGE_METRICS = { scroll_depth: "average", time_on_page: "seconds" } as const;
export type PageMetric = keyof typeof PAGE_METRICS;
export const isPageMetric = (metric: string): metric is PageMetric => Object.hasOwn(PAGE_METRICS, metric);

/** Plausible's metrics Tally does not compute: named in the 400. */
const METRICS_NOT_KEPT = new Set(["group_conversion_rate"]);

export const TIME_DIMENSIONS = ["time", "time:hour", "time:day", "time:week", "time:month"] as const;
export type TimeDimension = (typeof TIME_DIMENSIONS)[number];
export const isTimeDimension = (name: string): name is TimeDimension => (TIME_DIMENSIONS as readonly string[]).includes(name);

/** Named date ranges (Plausible's `date_range` strings), all ending in the current period; `24h` ends now. */
const NAMED_RANGES = ["day", "24h", "7d", "28d", "30d", "91d", "month", "6mo", "12mo", "year", "all"] as const;
export type DateRangeInput = (typeof NAMED_RANGES)[number] | [string, string];

/** One simple condition, on a Plausible dimension; `or` of one dimension merged into its clauses. */
export interface PlausibleCondition {
  operator: Operator;
  dimension: string;
  clauses: string[];
  /** `has_done` / `has_not_done`: selects visits, never narrows which of their hits are counted. */
  visitLevel?: boolean;
}

/** A filter that must hold: a condition, or (`or` across dimensions) any of several. */
export type PlausibleFilter = PlausibleCondition | { any: PlausibleCondition[] };

/** Every simple condition of the filters, those within `or` included. */
export const conditionsIn = (filters: readonly PlausibleFilter[]): PlausibleCondition[] =>
  filters.flatMap((filter) => ("any" in filter ? filter.any : [filter]));

export interface PlausibleQuery {
  site_id: string;
  date_range: DateRangeInput;
  metrics: PlausibleMetric[];
  dimensions: string[];
  conditions: PlausibleFilter[];
  /** The filters as sent, echoed back in `query`. */
  filters: unknown[];
  order_by: [string, "asc" | "desc"][];
  pagination: { limit: number; offset: number };
  include: { total_rows: boolean; time_labels: boolean; imports: boolean };
}

/** The request body's shape, for the OpenAPI document; `parsePlausibleQuery` checks the rest with Plausible's messages. */
export const plausibleQuerySchema = z
  .object({
    site_id: z.string().meta({ description: "The website's domain.", example: "example.com" }),
    date_range: z.union([z.enum(NAMED_RANGES), z.tuple([z.string(), z.string()])]).meta({
      description:
        "`day`, `24h`, `7d`, `28d`, `30d`, `91d`, `month`, `6mo`, `12mo`, `year`, `all`, or `[from, to]` dates (`2024-01-01`), or date-times with an offset (`2024-01-01T12:00:00+02:00`, the last second included).",
      example: "7d",
    }),
    metrics: z.array(z.enum(PLAUSIBLE_METRICS)).meta({ example: ["visitors", "pageviews"] }),
    dimensions: z
      .array(z.string())
      .optional()
      .meta({ description: "`event:page`, `event:goal`, `event:props:<name>`, `visit:*`, `time`, `time:hour|day|week|month`." }),
    filters: z
      .array(z.unknown())
      .optional()
      .meta({
        description:
          "`[operator, dimension, clauses, modifiers?]` with `is`, `is_not`, `contains`, `contains_not`, `matches`, `matches_not` (RE2 regular expressions), `{case_sensitive}` modifiers on `is` and `contains`; `and`, `or` (of conditions, across dimensions too), `not` (of a condition, an `and` or an `or`), `has_done` and `has_not_done` of one event condition.",
        example: [["is", "visit:country", ["DE"]]],
      }),
    order_by: z.array(z.tuple([z.string(), z.enum(["asc", "desc"])])).optional(),
    pagination: z.object({ limit: z.int().optional(), offset: z.int().optional() }).optional(),
    include: z
      .object({ total_rows: z.boolean().optional(), time_labels: z.boolean().optional(), imports: z.boolean().optional() })
      .optional(),
  })
  .meta({ id: "PlausibleQuery" });

const NEGATION: Readonly<Record<Operator, Operator>> = {
  is: "is_not",
  is_not: "is",
  contains: "contains_not",
  contains_not: "contains",
  matches: "matches_not",
  matches_not: "matches",
};

/** A dimension Tally keeps, or a 400 that names it. */
function checkDimension(name: unknown, where: string): string {
  if (typeof name !== "string") return fail(`Invalid ${where} ${show(name)}.`);
  if (name.startsWith(PROPS_PREFIX) && name.length > PROPS_PREFIX.length) return name;
  if (PLAUSIBLE_DIMENSIONS[name] === null) return fail(`Tally does not keep ${name}; it cannot be used in ${where}.`);
  if (PLAUSIBLE_DIMENSIONS[name] === undefined) return fail(`Invalid ${where} ${show(name)}: unknown dimension.`);
  return name;
}

/** RE2's metacharacters escaped: a value as a pattern that matches it literally. */
const literal = (value: string) => value.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");

/**
 * A condition honouring Plausible's `case_sensitive` modifier. Tally's `is` is case-sensitive
 * and its `contains` ignores case; the other two cases are regular expressions: `is` ignoring
 * case is `(?i)^value$`, a case-sensitive `contains` is the value as a pattern.
 */
function withCase(condition: PlausibleCondition, caseSensitive: boolean): PlausibleCondition {
  const { operator, clauses } = condition;
  const negated = operator.endsWith("_not");
  if ((operator === "is" || operator === "is_not") && !caseSensitive)
    return { ...condition, operator: negated ? "matches_not" : "matches", clauses: clauses.map((value) => `(?i)^${literal(value)}$`) };
  if ((operator === "contains" || operator === "contains_not") && caseSensitive)
    return { ...condition, operator: negated ? "matches_not" : "matches", clauses: clauses.map(literal) };
  return condition;
}

function simpleCondition(filter: unknown[]): PlausibleCondition {
  const [operator, dimension, clauses, modifiers] = filter;
  if (typeof operator !== "string" || !Object.hasOwn(NEGATION, operator)) return fail(`Invalid filter ${show(filter)}: unknown operator.`);
  if (dimension === "segment")
    return fail(`Invalid filter ${show(filter)}: filter by one saved segment, ["is", "segment", [id]], at the top level.`);
  if (typeof dimension === "string" && isTimeDimension(dimension))
    return fail(`Invalid filter ${show(filter)}: set date_range instead of filtering on time.`);
  const checked = checkDimension(dimension, "filters");
  if (
    !Array.isArray(clauses) ||
    clauses.length === 0 ||
    clauses.some((clause) => typeof clause !== "string" && typeof clause !== "number")
  ) {
    return fail(`Invalid filter ${show(filter)}: clauses must be a non-empty list of strings.`);
  }
  const op = operator as Operator;
  const condition: PlausibleCondition = { operator: op, dimension: checked, clauses: clauses.map(String) };
  if (op === "matches" || op === "matches_not") {
    const invalid = condition.clauses.map(compilePattern).find((regex) => typeof regex === "string");
    if (invalid !== undefined) fail(`Invalid filter ${show(filter)}: ${invalid}`);
  }
  if (modifiers === undefined) return condition;
  const caseSensitive = (modifiers as { case_sensitive?: unknown } | null)?.case_sensitive;
  if (typeof caseSensitive !== "boolean" || (op !== "is" && op !== "is_not" && op !== "contains" && op !== "contains_not"))
    return fail(`Invalid filter ${show(filter)}: only is and contains take modifiers, {"case_sensitive": true|false}.`);
  return withCase(condition, caseSensitive);
}

/** `has_done` / `has_not_done`: whether a visit has (has no) event or pageview matching the inner condition. */
function behaviouralCondition(filter: unknown[]): PlausibleCondition {
  const [head, inner] = filter;
  const parts = conditionsOf(inner);
  const [part] = parts;
  if (parts.length !== 1 || !part || "any" in part || !part.dimension.startsWith("event:"))
    return fail(`Invalid filter ${show(filter)}: ${String(head)} takes one condition on an event: dimension.`);
  // v1's negated condition keeps the visits none of whose hits match: "has done a hit that is not X" is not one of them.
  if (part.operator.endsWith("_not"))
    return fail(`Tally answers ${String(head)} of is, contains or matches conditions only, not of ${show(inner)}.`);
  return { ...part, operator: head === "has_done" ? part.operator : NEGATION[part.operator], visitLevel: true };
}

const negate = (condition: PlausibleCondition): PlausibleCondition => ({ ...condition, operator: NEGATION[condition.operator] });

/** `not`: of a condition, its negation; of an `or`, every negated branch (and); of an `and`, any negated part (or). */
function negated(filter: unknown): PlausibleFilter[] {
  const parts = conditionsOf(filter);
  const [first] = parts;
  if (parts.length === 1 && first) return "any" in first ? first.any.map(negate) : [negate(first)];
  const simple = parts.filter((part): part is PlausibleCondition => !("any" in part) && !part.visitLevel);
  if (simple.length !== parts.length || parts.length === 0) return fail(`Tally cannot negate (not) this filter: ${show(filter)}.`);
  return [{ any: simple.map(negate) }];
}

/** `or`: conditions on one dimension with one operator merged into one (any of its clauses), else any of the conditions. */
function anyOf(filter: unknown[], inner: unknown): PlausibleFilter[] {
  if (!Array.isArray(inner) || inner.length === 0) return fail(`Invalid filter ${show(filter)}.`);
  const parts = inner.map(conditionsOf).map((branch) => {
    const [only] = branch;
    if (branch.length !== 1 || !only) return fail(`Tally can combine with or only single conditions, not an and: ${show(filter)}.`);
    return "any" in only ? only.any : [only];
  });
  const branches = parts.flat();
  if (branches.some((part) => part.visitLevel)) return fail(`Tally cannot combine has_done or has_not_done with or: ${show(filter)}.`);
  const [first] = branches;
  const oneDimension = branches.every((part) => part.dimension === first!.dimension && part.operator === first!.operator);
  if (oneDimension && (first!.operator === "is" || first!.operator === "contains" || first!.operator === "matches"))
    return [{ ...first!, clauses: branches.flatMap((part) => part.clauses) }];
  return [{ any: branches }];
}

/** One filter as filters that must all hold: `and` flattened, `not` and `or` as above. */
function conditionsOf(filter: unknown): PlausibleFilter[] {
  if (!Array.isArray(filter)) return fail(`Invalid filter ${show(filter)}.`);
  const [head, inner] = filter;
  if (head === "and") {
    if (!Array.isArray(inner)) return fail(`Invalid filter ${show(filter)}.`);
    return inner.flatMap(conditionsOf);
  }
  if (head === "not") return negated(inner);
  if (head === "has_done" || head === "has_not_done") return [behaviouralCondition(filter)];
  if (head === "or") return anyOf(filter, inner);
  return [simpleCondition(filter)];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function list(body: Record<string, unknown>, key: string): unknown[] {
  const value = body[key];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : fail(`Invalid ${key} ${show(value)}: must be a list.`);
}

function parseMetrics(body: Record<string, unknown>): PlausibleMetric[] {
  const metrics = list(body, "metrics");
  if (metrics.length === 0) return fail("The metrics field is required: a non-empty list.");
  for (const metric of metrics) {
    if (typeof metric === "string" && METRICS_NOT_KEPT.has(metric)) fail(`Tally does not compute the metric ${metric}.`);
    if (!(PLAUSIBLE_METRICS as readonly unknown[]).includes(metric)) fail(`Unknown metric ${show(metric)}.`);
  }
  if (new Set(metrics).size !== metrics.length) fail("Metrics cannot be queried multiple times.");
  return metrics as PlausibleMetric[];
}

function parseDateRange(value: unknown): DateRangeInput {
  if (typeof value === "string" && (NAMED_RANGES as readonly string[]).includes(value)) return value as DateRangeInput;
  if (Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === "string"))
    return [String(value[0]), String(value[1])];
  return fail(`Invalid date_range ${show(value)}.`);
}

function parseOrderBy(body: Record<string, unknown>, names: readonly string[]): [string, "asc" | "desc"][] {
  return list(body, "order_by").map((entry) => {
    if (!Array.isArray(entry) || entry.length !== 2 || (entry[1] !== "asc" && entry[1] !== "desc"))
      return fail(`Invalid order_by entry ${show(entry)}.`);
    if (!names.includes(entry[0])) return fail(`Invalid order_by entry ${show(entry)}. Entry is not a queried metric or dimension.`);
    return [entry[0] as string, entry[1]];
  });
}

function parsePagination(value: unknown): { limit: number; offset: number } {
  if (value === undefined) return { limit: 10_000, offset: 0 };
  if (!isObject(value)) return fail(`Invalid pagination ${show(value)}.`);
  const { limit = 10_000, offset = 0 } = value;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 10_000)
    fail("Invalid pagination.limit: an integer from 1 to 10000.");
  if (!Number.isInteger(offset) || (offset as number) < 0) fail("Invalid pagination.offset: an integer from 0.");
  return { limit: limit as number, offset: offset as number };
}

function parseInclude(value: unknown): PlausibleQuery["include"] {
  if (value === undefined) return { total_rows: false, time_labels: false, imports: false };
  if (!isObject(value)) return fail(`Invalid include ${show(value)}.`);
  for (const [key, flag] of Object.entries(value)) {
    if (key === "comparisons") fail("Tally does not support include.comparisons yet.");
    if (!["total_rows", "time_labels", "imports"].includes(key)) fail(`Invalid include.${key}.`);
    if (typeof flag !== "boolean") fail(`Invalid include.${key}: must be true or false.`);
  }
  return { total_rows: value.total_rows === true, time_labels: value.time_labels === true, imports: value.imports === true };
}

const SESSION_METRICS: readonly PlausibleMetric[] = ["bounce_rate", "views_per_visit", "visit_duration"];

/** Plausible's rules on which metrics go with which dimensions and filters. */
function checkMetrics(query: PlausibleQuery): void {
  const filtersOn = (dimension: string) => conditionsIn(query.conditions).some((condition) => condition.dimension === dimension);
  const goal = query.dimensions.includes("event:goal") || filtersOn("event:goal");
  if (query.metrics.includes("conversion_rate") && !goal)
    fail("Metric `conversion_rate` can only be queried with event:goal filters or dimensions.");
  if (query.metrics.includes("percentage") && query.dimensions.length === 0)
    fail("Metric `percentage` can only be queried with dimensions.");
  if (query.metrics.includes("views_per_visit")) {
    if (filtersOn("event:page")) fail("Metric `views_per_visit` cannot be queried with a filter on `event:page`.");
    // Plausible refuses any dimension; a time dimension's rows are whole visits too, so Tally answers those.
    if (query.dimensions.some((name) => !isTimeDimension(name)))
      fail("Metric `views_per_visit` cannot be queried with `dimensions` other than time.");
  }
  const session = query.metrics.filter((metric) => SESSION_METRICS.includes(metric));
  if (session.length > 0 && query.dimensions.some((name) => name.startsWith("event:") && name !== "event:page")) {
    fail(`Session metric(s) \`${session.join(", ")}\` cannot be queried along with event dimensions.`);
  }
  const perPage = query.metrics.find(isPageMetric);
  if (perPage && !query.dimensions.includes("event:page") && filteredPage(query.conditions) === null) {
    fail(`Metric \`${perPage}\` can only be queried with an event:page dimension or an is filter on one event:page.`);
  }
  checkBehavioural(query);
  if (query.include.time_labels && !query.dimensions.some(isTimeDimension)) fail("Invalid include.time_labels: requires a time dimension.");
}

/** The one page an `is` filter on `event:page` names (the page of `scroll_depth` and `time_on_page` without the dimension), else null. */
export function filteredPage(conditions: readonly PlausibleFilter[]): string | null {
  const condition = conditions.find(
    (each): each is PlausibleCondition =>
      !("any" in each) && each.dimension === "event:page" && each.operator === "is" && each.clauses.length === 1 && !each.visitLevel,
  );
  return condition?.clauses[0] ?? null;
}

/**
 * `has_done` selects visits only. Tally's v1 filters select visits too, and also narrow the hits
 * a page condition's pageviews (or an event condition's events) count: answered where that
 * narrowing changes nothing the query asks, else a 400 that says so. `has_not_done` is v1's
 * negated condition, which keeps the visits none of whose hits match and narrows their hits to
 * those that do not match: all of them, so it is answered with any metric and dimension
 * (Plausible's own example, filtering-by-segment, counts `events` under one).
 */
function checkBehavioural(query: PlausibleQuery): void {
  const hasDone = (part: PlausibleCondition) => part.visitLevel === true && !part.operator.endsWith("_not");
  for (const condition of conditionsIn(query.conditions).filter(hasDone)) {
    const onPages = condition.dimension === "event:page";
    const narrowed = query.metrics.filter((metric) =>
      onPages ? ["pageviews", "events", "views_per_visit"].includes(metric) : metric === "events",
    );
    const eventDimension = query.dimensions.find((name) => name.startsWith("event:") && (onPages || name !== "event:page"));
    if (narrowed.length > 0 || eventDimension) {
      fail(
        `Tally answers has_done on ${condition.dimension} only with visit metrics and dimensions, not ${[...narrowed, eventDimension].filter(Boolean).join(", ")}.`,
      );
    }
  }
}

const KEYS = new Set(["site_id", "date_range", "metrics", "dimensions", "filters", "order_by", "pagination", "include"]);

/** A Stats API v2 body checked, with Plausible's error messages; its filters as conditions that must all hold. */
export function parsePlausibleQuery(body: unknown): PlausibleQuery {
  if (!isObject(body)) return fail("The request body must be a JSON object.");
  for (const key of Object.keys(body)) if (!KEYS.has(key)) fail(`Invalid query: unknown key ${show(key)}.`);
  if (typeof body.site_id !== "string" || body.site_id === "") return fail("The site_id field is required: the website's domain.");
  if (body.date_range === undefined) return fail("The date_range field is required.");
  const metrics = parseMetrics(body);
  const dimensions = list(body, "dimensions").map((name) =>
    typeof name === "string" && isTimeDimension(name) ? name : checkDimension(name, "dimensions"),
  );
  if (new Set(dimensions).size !== dimensions.length) fail("Some dimensions are listed multiple times.");
  if (dimensions.filter(isTimeDimension).length > 1) fail("Only one time dimension may be queried.");
  const filters = list(body, "filters");
  const query: PlausibleQuery = {
    site_id: body.site_id,
    date_range: parseDateRange(body.date_range),
    metrics,
    dimensions,
    conditions: filters.flatMap(conditionsOf),
    filters,
    order_by: parseOrderBy(body, [...metrics, ...dimensions]),
    pagination: parsePagination(body.pagination),
    include: parseInclude(body.include),
  };
  checkMetrics(query);
  return query;
}

/** The day a date or a whole-day date-time names, or null: a date-time within a day. */
function dayOf(text: string, end: boolean): string | null {
  const [day = "", time] = text.split("T");
  if (!isCalendarDate(day) || !isInDomain(day)) return fail(`Invalid date_range: ${show(text)} is not a date.`);
  return time === undefined || time.startsWith(end ? "23:59:59" : "00:00:00") ? day : null;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const localClock = createLocalClock();
const pad = (n: number) => String(n).padStart(2, "0");

/** A moment as local wall-clock seconds and as Plausible shows it in the website's zone (`2024-01-01T12:00:00+02:00`). */
function localMoment(timeZone: string, epochMs: number): { seconds: number; shown: string } {
  const seconds = localClock(timeZone, epochMs).seconds;
  const offset = Math.round((seconds - Math.floor(epochMs / 1000)) / 60);
  const day = Math.floor(seconds / 86_400);
  const time = seconds - day * 86_400;
  const zone = `${offset < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return { seconds, shown: `${dayText(day)}T${pad(Math.floor(time / 3600))}:${pad(Math.floor(time / 60) % 60)}:${pad(time % 60)}${zone}` };
}

/** The epoch milliseconds of a date-time with an offset, or a 400. */
function epochOf(text: string): number {
  const epochMs = DATE_TIME.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(epochMs) || !isTimeInDomain(epochMs))
    return fail(`Invalid date_range: ${show(text)} is neither a date nor a date-time with an offset.`);
  return epochMs;
}

/** A part of the days: [first, last] moments (the last second included) as local seconds [start, end). */
function partOfDays(timeZone: string, first: number, last: number): ResolvedRange {
  const [from, to] = [localMoment(timeZone, first), localMoment(timeZone, last)];
  const [start, end] = [from.seconds, to.seconds + 1];
  if (start >= end) return fail("Invalid date_range: it ends before it starts.");
  const days = { from: dayText(Math.floor(start / 86_400)), to: dayText(Math.floor((end - 1) / 86_400)) };
  if (start % 86_400 === 0 && end % 86_400 === 0) return days;
  return { ...days, seconds: [start, end], shown: [from.shown, to.shown] };
}

/** The days a query counts; a part of them (date-times, `24h`): local wall-clock seconds [start, end), shown as Plausible echoes them. */
export interface ResolvedRange {
  from: string;
  to: string;
  seconds?: [number, number];
  shown?: [string, string];
}

/** The website's zone, its day "today" and the moment now (epoch milliseconds). */
export interface RangeClock {
  timezone: string;
  today: string;
  now: number;
}

const monthStart = (day: string) => `${day.slice(0, 7)}-01`;
const monthEnd = (day: string) => addDays(monthStart(addDays(monthStart(day), 31)), -1);
const monthsBefore = (day: string, months: number) => {
  const index = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1 - months;
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${String((index % 12) + 1).padStart(2, "0")}-01`;
};

/** Longest range, as the v1 statistics: 10 years. */
const MAX_RANGE_DAYS = 3660;

/**
 * The days a `date_range` covers, in the website's time zone, as Plausible reckons them
 * (`7d`: today and the 6 days before; `30d`: today and the 30 before; `month`, `year`: the whole
 * current period). `all` starts at `firstDay`, the first day with statistics.
 */
export async function resolveDateRange(
  range: DateRangeInput,
  { timezone, today, now }: RangeClock,
  firstDay: () => Promise<string>,
): Promise<ResolvedRange> {
  let resolved: ResolvedRange;
  if (Array.isArray(range)) {
    const [from, to] = [dayOf(range[0], false), dayOf(range[1], true)];
    resolved = from !== null && to !== null ? { from, to } : partOfDays(timezone, epochOf(range[0]), epochOf(range[1]));
  } else if (range === "24h") resolved = partOfDays(timezone, now - 86_400_000, now);
  else if (range === "all") {
    const from = await firstDay();
    resolved = { from: from < today ? from : today, to: today };
  } else {
    const last = {
      day: today,
      "7d": today,
      "28d": today,
      "30d": today,
      "91d": today,
      month: monthEnd(today),
      "6mo": monthEnd(today),
      "12mo": monthEnd(today),
      year: `${today.slice(0, 4)}-12-31`,
    }[range];
    const first = {
      day: today,
      "7d": addDays(today, -6),
      "28d": addDays(today, -28),
      "30d": addDays(today, -30),
      "91d": addDays(today, -91),
      month: monthStart(today),
      "6mo": monthsBefore(today, 5),
      "12mo": monthsBefore(today, 11),
      year: `${today.slice(0, 4)}-01-01`,
    }[range];
    resolved = { from: first, to: last };
  }
  if (resolved.from > resolved.to) fail("Invalid date_range: the first day is after the last.");
  if (dayNumber(resolved.to) - dayNumber(resolved.from) > MAX_RANGE_DAYS) fail(`Invalid date_range: at most ${MAX_RANGE_DAYS} days.`);
  return resolved;
}
