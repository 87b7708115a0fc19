/**
 * Filtered statistics by brute force, from the model's visits and docs/statistics.md
 * ("Segments: filters"): which visits match, and what each statistic counts of them.
 */
import type { Counter } from "./reference-answers.js";
import {
  addTo,
  durationOf,
  isBounce,
  PAGEVIEW,
  propertyCounter,
  revenueCounter,
  sumDays,
  VISIT_DIMENSIONS,
  type DayCounts,
  type ModelHit,
  type ModelVisit,
  type VisitDimension,
} from "./reference-model.js";
import { remembered } from "./reference-memo.js";

export type Operator = "is" | "is_not" | "contains" | "contains_not";

const negated = (operator: Operator) => operator === "is_not" || operator === "contains_not";
const substring = (operator: Operator) => operator === "contains" || operator === "contains_not";

/** One condition: a visit dimension, `page`, `event` or `prop:<name>`. */
export interface SimpleFilter {
  dimension: string;
  operator: Operator;
  values: string[];
}

/** A condition, or conditions of which any must hold (`||` in one filter). */
export type FilterCondition = SimpleFilter | { any: SimpleFilter[] };

/** `dimension:operator:value|value`, with `|` and `\` in values escaped; `any` joined by `||`. */
export function filterText(condition: FilterCondition): string {
  if ("any" in condition) return condition.any.map(filterText).join("||");
  const values = condition.values.map((value) => value.replace(/\\/g, "\\\\").replace(/\|/g, "\\|"));
  return `${condition.dimension}:${condition.operator}:${values.join("|")}`;
}

const isVisitDimension = (dimension: string): dimension is VisitDimension => (VISIT_DIMENSIONS as readonly string[]).includes(dimension);
const CODED = new Set(["country", "continent", "region"]);

/** Does a known value match `is` (or `contains`)? An unknown value ("") never does. */
function valueMatches(dimension: string, value: string, values: readonly string[], contains: boolean): boolean {
  if (value === "") return false;
  if (contains) return values.some((wanted) => value.toLowerCase().includes(wanted.toLowerCase()));
  return values.some(
    (wanted) =>
      wanted === value || (CODED.has(dimension) && !wanted.includes(":") && value.slice(0, value.indexOf(":")) === wanted.toUpperCase()),
  );
}

/** The value a hit has for a hit dimension: its page, its event name, or its property. */
function hitValue(hit: ModelHit, dimension: string): string {
  if (dimension === "page") return hit.page;
  if (dimension === "event") return hit.event ?? "";
  return hit.props?.get(dimension.slice(5)) ?? "";
}

/** The hits a hit condition looks at: the events for `event`, every hit for `page` and `prop:`. */
const hitsFor = (visit: ModelVisit, dimension: string) =>
  dimension === "event" ? visit.hits.filter((hit) => hit.event !== null) : visit.hits;

export function visitMatches(visit: ModelVisit, condition: FilterCondition): boolean {
  if ("any" in condition) return condition.any.some((part) => visitMatches(visit, part));
  const { dimension, operator, values } = condition;
  if (isVisitDimension(dimension)) {
    const value = visit.dims[dimension];
    return valueMatches(dimension, value, values, substring(operator)) !== negated(operator);
  }
  const hits = hitsFor(visit, dimension);
  return hits.some((hit) => valueMatches(dimension, hitValue(hit, dimension), values, substring(operator))) !== negated(operator);
}

/** A hit of a matching visit is counted when it matches the conditions on itself. */
function hitMatches(hit: ModelHit, condition: SimpleFilter): boolean {
  const { dimension, operator, values } = condition;
  const value = hitValue(hit, dimension);
  return valueMatches(dimension, value, values, substring(operator)) !== negated(operator);
}

const VISIT_COUNTS: readonly [string, VisitDimension][] = [
  ["landing_page", "entry_page"],
  ["exit_page", "exit_page"],
  ["referrer", "referrer"],
  ["campaign", "utm_campaign"],
  ["utm_source", "utm_source"],
  ["utm_medium", "utm_medium"],
  ["utm_content", "utm_content"],
  ["utm_term", "utm_term"],
  ["source", "source"],
  ["channel", "channel"],
];
const VISITOR_COUNTS: readonly VisitDimension[] = [
  "browser",
  "os",
  "device",
  "country",
  "continent",
  "city",
  "region",
  "language",
  "resolution",
  "browser_version",
  "os_version",
];

/** A page goal's pattern as a test: the whole page, `*` standing for any characters, case-sensitive. */
export function pagePattern(pattern: string): (page: string) => boolean {
  const regex = new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join("[\\s\\S]*")}$`,
  );
  return (page) => regex.test(page);
}

/**
 * The visits a filter keeps, with their statistics as additive counts by day (goals apart:
 * they count visitor-days over a range); page goals (`Visit <pattern>`) among the goals.
 */
export function segmentOf(
  visits: readonly ModelVisit[],
  conditions: readonly FilterCondition[],
  pageGoals: readonly string[] = [],
): Segment {
  return remembered(visits, JSON.stringify([conditions, pageGoals]), () => segmentOfNow(visits, conditions, pageGoals));
}

export interface Segment {
  matching: number;
  count: Counter;
  visits: readonly ModelVisit[];
}

function segmentOfNow(visits: readonly ModelVisit[], conditions: readonly FilterCondition[], pageGoals: readonly string[]): Segment {
  const goalTests = pageGoals.map((pattern) => [`Visit ${pattern}`, pagePattern(pattern)] as const);
  const matching = visits.filter((visit) => conditions.every((condition) => visitMatches(visit, condition)));
  const counts: DayCounts = new Map();
  const add = (name: string, day: string, value: string, amount = 1) => addTo(counts, name, day, value, amount);
  // A hit has a page and properties; only an event has a name.
  const onPageviews = (condition: SimpleFilter) => condition.dimension === "page" || condition.dimension.startsWith("prop:");
  const onEvents = (condition: SimpleFilter) =>
    condition.dimension === "page" || condition.dimension === "event" || condition.dimension.startsWith("prop:");
  /** The conditions a counted hit must match itself; `any`: one of its conditions, on the hit where it applies to hits, else on the visit. */
  const hitFilter = (applies: (condition: SimpleFilter) => boolean) => {
    const narrowing = conditions.filter((condition) => ("any" in condition ? condition.any.some(applies) : applies(condition)));
    return (visit: ModelVisit, hit: ModelHit) =>
      narrowing.every((condition) =>
        "any" in condition
          ? condition.any.some((part) => (applies(part) ? hitMatches(hit, part) : visitMatches(visit, part)))
          : hitMatches(hit, condition),
      );
  };
  const pageviewCounted = hitFilter(onPageviews);
  const eventCounted = hitFilter(onEvents);
  /** event name → visitor-day → days of its counted events */
  const goals = new Map<string, Map<string, Set<string>>>();
  /** visitor-day → its values already counted, as `name\0value` (visitor statistics count each once) */
  const counted = new Map<string, Set<string>>();
  const countedOf = (visit: ModelVisit) => {
    let values = counted.get(visit.visitor);
    if (!values) counted.set(visit.visitor, (values = new Set()));
    return values;
  };
  const once = (visit: ModelVisit, name: string, value: string) => {
    const key = `${name}\u0000${value}`;
    const values = countedOf(visit);
    if (value === "" || values.has(key)) return;
    values.add(key);
    add(name, visit.day, value);
  };

  const addGoal = (goal: string, visitor: string, day: string) => {
    let byVisitor = goals.get(goal);
    if (!byVisitor) goals.set(goal, (byVisitor = new Map()));
    let days = byVisitor.get(visitor);
    if (!days) byVisitor.set(visitor, (days = new Set()));
    days.add(day);
  };

  for (const visit of matching) {
    const { day } = visit;
    // By the hour of each day too (`…_by_hour`, the Stats API v2's time:hour): visits by the hour they started.
    const started = `${day} ${visit.hour}`;
    add("visits", day, day);
    add("bounces", day, day, Number(isBounce(visit)));
    add("visit_duration", day, day, durationOf(visit));
    add("visit_pageviews", day, day, visit.pageviews);
    add("visits_by_hour", day, started);
    add("bounces_by_hour", day, started, Number(isBounce(visit)));
    add("visit_duration_by_hour", day, started, durationOf(visit));
    add("visit_pageviews_by_hour", day, started, visit.pageviews);
    for (const [name, dimension] of VISIT_COUNTS) add(name, day, visit.dims[dimension]);
    // Visits are in order of start: the visitor-day's first matching visit comes first.
    once(visit, "visitors", day);
    if (!countedOf(visit).has("visitors_hours\u0000")) {
      countedOf(visit).add("visitors_hours\u0000");
      add("visitors_hours", day, visit.hour);
      add("visitors_by_hour", day, started);
    }
    for (const dimension of VISITOR_COUNTS) once(visit, dimension, visit.dims[dimension]);

    for (const hit of visit.hits) {
      if (hit.event === null) {
        if (!pageviewCounted(visit, hit)) continue;
        add("pageviews", hit.day, hit.day);
        add("pageviews_hours", hit.day, hit.hour);
        add("pageviews_by_hour", hit.day, `${hit.day} ${hit.hour}`);
        add("page", hit.day, hit.page);
        add("hostname", hit.day, hit.host);
        for (const [property, value] of hit.props ?? []) add(propertyCounter(PAGEVIEW, property), hit.day, value);
        for (const [goal, matches] of goalTests) {
          if (!matches(hit.page)) continue;
          add("page_goal_views", hit.day, goal);
          addGoal(goal, visit.visitor, hit.day);
        }
        continue;
      }
      if (!eventCounted(visit, hit)) continue;
      add("event", hit.day, hit.event);
      add("events_by_hour", hit.day, `${hit.day} ${hit.hour}`);
      if (hit.revenue) {
        add(revenueCounter("amount", hit.revenue.currency), hit.day, hit.event, hit.revenue.amount);
        add(revenueCounter("events", hit.revenue.currency), hit.day, hit.event);
      }
      for (const [property, value] of hit.props ?? []) add(propertyCounter(hit.event, property), hit.day, value);
      addGoal(hit.event, visit.visitor, hit.day);
    }
  }

  const count: Counter = (name, from, to) => {
    if (name !== "goal_visitors") return sumDays(counts.get(name), from, to);
    const visitors = new Map<string, number>();
    for (const [goal, byVisitor] of goals) {
      const n = [...byVisitor.values()].filter((days) => [...days].some((day) => day >= from && day <= to)).length;
      if (n > 0) visitors.set(goal, n);
    }
    return visitors;
  };
  return { matching: matching.length, count, visits: matching };
}

/** The visits the store still holds: those that started on or after the first kept local day. */
export const keptVisits = (visits: readonly ModelVisit[], site: string, firstKeptDay: string): readonly ModelVisit[] =>
  remembered(visits, `${site} from ${firstKeptDay}`, () => visits.filter((visit) => visit.site === site && visit.day >= firstKeptDay));
