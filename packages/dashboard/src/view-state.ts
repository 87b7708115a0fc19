// What a statistics page shows, as the URL holds it (`#/websites/1?range=7d&filter=…`):
// shareable, and the back button walks through it.
import { parseRange, rangeQuery, type Range } from "./dates.js";

export type Compare = "" | "previous_period" | "year";

/** The figures the top tiles show; the main chart draws one of them. */
export const METRICS = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration"] as const;
export type Metric = (typeof METRICS)[number];

/** One `filter` of the API: `country:is:US:United States`, `prop:plan:is:pro`. */
export interface Filter {
  dimension: string;
  operator: "is" | "is_not" | "contains";
  values: string[];
}

export interface ViewState {
  range: Range;
  filters: Filter[];
  compare: Compare;
  metric: Metric;
  /** Page goals (`/blog/*`) counted in the goals card beside the events. */
  goals: string[];
}

/** The API's own bound on page goals of one query. */
export const MAX_PAGE_GOALS = 10;

const SYNTAX = /^(prop:[\s\S]+?|[a-z_]+):(is|is_not|contains):([\s\S]+)$/;

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
  return {
    range: parseRange(query, today),
    filters: query
      .getAll("filter")
      .map(parseFilter)
      .filter((filter) => filter !== null),
    compare: compare === "previous_period" || compare === "year" ? compare : "",
    metric: METRICS.includes(metric) ? metric : "visitors",
    goals: [...new Set(query.getAll("goal").filter((goal) => goal !== "" && goal.length <= 200))].slice(0, MAX_PAGE_GOALS),
  };
}

/** The query string of a state; defaults are left out. */
export function stateQuery(state: ViewState): string {
  const query = new URLSearchParams(rangeQuery(state.range));
  for (const filter of state.filters) query.append("filter", filterParam(filter));
  if (state.compare) query.set("compare", state.compare);
  if (state.metric !== "visitors") query.set("metric", state.metric);
  for (const goal of state.goals) query.append("goal", goal);
  return query.toString();
}

/** Adds a filter, replacing one on the same dimension (clicking France after Germany). */
export function withFilter(filters: readonly Filter[], filter: Filter): Filter[] {
  return [...filters.filter((f) => f.dimension !== filter.dimension), filter];
}

/** The API's `filter` parameters of a state. */
export const filterParams = (state: ViewState): string[] => state.filters.map(filterParam);
