// What a statistics page shows, as the URL holds it (`#/websites/1?range=7d&filter=…`):
// shareable, and the back button walks through it.
import { parseRange, rangeQuery, type Range } from "./dates.js";

export type Compare = "" | "previous_period" | "year";

/** The figures the top tiles show; the main chart draws one of them. */
export const METRICS = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration"] as const;
export type Metric = (typeof METRICS)[number];

/** The API's filter operators (docs/statistics.md, "Filters"), in the order the filter builder offers them. */
export const OPERATORS = ["is", "is_not", "contains", "contains_not", "matches", "matches_not"] as const;
export type Operator = (typeof OPERATORS)[number];

/** One `filter` of the API: `country:is:US:United States`, `prop:plan:is:pro`. */
export interface Filter {
  dimension: string;
  operator: Operator;
  values: string[];
}

export interface ViewState {
  range: Range;
  filters: Filter[];
  compare: Compare;
  metric: Metric;
  /** A saved segment whose filters apply beside `filters`. */
  segment: number | null;
}

const SYNTAX = /^(prop:[\s\S]+?|[a-z_]+):(is_not|is|contains_not|contains|matches_not|matches):([\s\S]+)$/;

/** The API's text for a filter: `|` separates values, so `|` and `\` in a value are escaped. */
export const filterParam = (filter: Filter): string =>
  `${filter.dimension}:${filter.operator}:${filter.values.map((value) => value.replace(/[\\|]/g, "\\$&")).join("|")}`;

/** The reverse of filterParam; null for text that is not a filter. */
export function parseFilter(text: string): Filter | null {
  const match = SYNTAX.exec(text);
  if (!match) return null;
  const values: string[] = [];
  let current = "";
  const rest = match[3] ?? "";
  for (let i = 0; i < rest.length; i++) {
    const char = rest[i];
    if (char === "\\" && (rest[i + 1] === "|" || rest[i + 1] === "\\")) current += rest[++i];
    else if (char === "|") {
      values.push(current);
      current = "";
    } else current += char;
  }
  values.push(current);
  return { dimension: match[1] ?? "", operator: match[2] as Filter["operator"], values };
}

export function parseState(query: URLSearchParams, today: string): ViewState {
  const compare = query.get("compare");
  const metric = query.get("metric") as Metric;
  const segment = Number(query.get("segment"));
  return {
    range: parseRange(query, today),
    filters: query
      .getAll("filter")
      .map(parseFilter)
      .filter((filter) => filter !== null),
    compare: compare === "previous_period" || compare === "year" ? compare : "",
    metric: METRICS.includes(metric) ? metric : "visitors",
    segment: Number.isSafeInteger(segment) && segment > 0 ? segment : null,
  };
}

/** The query string of a state; defaults are left out. */
export function stateQuery(state: ViewState): string {
  const query = new URLSearchParams(rangeQuery(state.range));
  for (const filter of state.filters) query.append("filter", filterParam(filter));
  if (state.compare) query.set("compare", state.compare);
  if (state.metric !== "visitors") query.set("metric", state.metric);
  if (state.segment !== null) query.set("segment", String(state.segment));
  return query.toString();
}

/** Adds a filter, replacing one on the same dimension (clicking France after Germany). */
export function withFilter(filters: readonly Filter[], filter: Filter): Filter[] {
  return [...filters.filter((f) => f.dimension !== filter.dimension), filter];
}

/** The API's `filter` parameters of a state, and of its segment's when it has one (`segmentFilters`: the API's texts). */
export const filterParams = (state: ViewState, segmentFilters: readonly string[] = []): string[] => [
  ...state.filters.map(filterParam),
  ...segmentFilters,
];
