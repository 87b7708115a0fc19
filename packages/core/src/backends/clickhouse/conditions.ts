import { isCoded, VISIT_COLUMNS, type DimensionKind } from "../../model/dimensions.js";
import {
  appliesToHit,
  isNegated,
  isPattern,
  isSubstring,
  NO_VALUE,
  simpleConditions,
  type Condition,
  type SimpleCondition,
  type VisitDimension,
} from "../../model/filters.js";
import type { QueryParams } from "./query.js";
import { quoted } from "./schema.js";
import { HIT, KIND } from "./visits.js";

/** The dimension kind of each visit column (entry and exit pages are pages). */
const KIND_OF = new Map(VISIT_COLUMNS.map(({ column, kind }) => [column, kind]));

/** A visit column as the visits of visits.ts name it: the first hit's value of its kind, or the exit page. */
export const visitColumn = (column: VisitDimension): string => (column === "exit_page" ? "exit_page" : quoted(KIND_OF.get(column)!));

/** A visit's hit's value (visits.ts's `HIT`, the hit `x`): its page, its event name, or one of its properties. */
const hitValue = (x: string, condition: SimpleCondition, params: QueryParams): string =>
  condition.on === "prop"
    ? `${x}.${HIT.props}[${params.add(condition.name, "String")}]`
    : `${x}.${condition.on === "event" ? HIT.event : HIT.page}`;

/** A page pattern (page goals, funnel and journey steps: `*` any characters, the rest literal) as a LIKE pattern. */
export const likePattern = (pattern: string) =>
  pattern
    .split("*")
    .map((part) => part.replace(/[\\%_]/g, (c) => `\\${c}`))
    .join("%");

/**
 * Whether a value matches a condition's values as `is`, `contains` or `matches` would
 * (docs/statistics.md, "Segments: filters"): an unknown value ("") never does; a code
 * matches `code:name` for countries, continents and regions; `contains` ignores case.
 */
function valueMatches(value: string, condition: SimpleCondition, kind: DimensionKind, params: QueryParams): string {
  // `(none)` among a visit condition's values (is, is_not) is a visit without one.
  const none =
    condition.on === "visit" && !isSubstring(condition.operator) && !isPattern(condition.operator) && condition.values.includes(NO_VALUE);
  const values = none ? condition.values.filter((wanted) => wanted !== NO_VALUE) : condition.values;
  const tests: string[] = [];
  if (isSubstring(condition.operator)) {
    const needles = params.add(
      values.map((wanted) => wanted.toLowerCase()),
      "Array(String)",
    );
    tests.push(`arrayExists(needle -> position(lowerUTF8(${value}), needle) > 0, ${needles})`);
  } else if (isPattern(condition.operator)) {
    tests.push(...values.map((pattern) => `match(${value}, ${params.add(pattern, "String")})`));
  } else {
    if (values.length > 0) tests.push(`has(${params.add(values, "Array(String)")}, ${value})`);
    const codes = isCoded(kind) ? values.filter((wanted) => !wanted.includes(":")).map((code) => `${code.toUpperCase()}:`) : [];
    if (codes.length > 0) tests.push(`arrayExists(code -> startsWith(${value}, code), ${params.add(codes, "Array(String)")})`);
  }
  const known = tests.length === 0 ? "0" : `(${value} != '' AND (${tests.join(" OR ")}))`;
  return none ? `(${known} OR ${value} = '')` : known;
}

/** A visit's hit `x` matches a hit condition positively (is, contains, matches): a page of any hit, an event's name, a property of any hit. */
function hitMatches(x: string, condition: SimpleCondition, params: QueryParams): string {
  const kind = condition.on === "event" ? `${x}.${HIT.kind} = ${KIND.event}` : "1";
  const has = condition.on === "prop" ? ` AND mapContains(${x}.${HIT.props}, ${params.add(condition.name, "String")})` : "";
  const valueKind: DimensionKind = condition.on === "prop" ? "prop_value" : (condition.on as DimensionKind);
  return `(${kind}${has} AND ${valueMatches(hitValue(x, condition, params), condition, valueKind, params)})`;
}

/**
 * A request's filters in ClickHouse SQL, on the visits of visits.ts: each hit condition
 * becomes a flag of the visit (`flags`: one aggregate over its elements `e`, whether one of
 * its hits matches it), each visit condition a test of the visit's own value.
 */
export function clickhouseConditions(conditions: readonly Condition[], params: QueryParams) {
  const hitConditions = simpleConditions(conditions).filter((condition) => condition.on !== "visit");
  const flagOf = new Map(hitConditions.map((condition, index) => [condition, `matched_${index}`]));

  function onVisit(condition: Condition): string {
    if (condition.on === "any") return `(${condition.conditions.map(onVisit).join(" OR ")})`;
    const positive =
      condition.on === "visit"
        ? valueMatches(visitColumn(condition.dimension), condition, KIND_OF.get(condition.dimension)!, params)
        : `${flagOf.get(condition)!} = 1`;
    return isNegated(condition.operator) ? `NOT ${positive}` : positive;
  }

  /** A hit `h` (an element) of a matching visit matches itself; `any`: one of its conditions, on the hit where it narrows hits, else on the visit. */
  function onHit(condition: Condition, events: boolean, h: string): string {
    if (condition.on === "any") {
      const parts = condition.conditions.map((part) => (appliesToHit(part, events) ? onHit(part, events, h) : onVisit(part)));
      return `(${parts.join(" OR ")})`;
    }
    const positive = hitMatches(h, condition, params);
    return isNegated(condition.operator) ? `NOT ${positive}` : positive;
  }

  const narrowsHits = (condition: Condition, events: boolean) =>
    condition.on === "any" ? condition.conditions.some((part) => appliesToHit(part, events)) : appliesToHit(condition, events);
  const all = (parts: readonly string[]) => (parts.length === 0 ? "1" : parts.join(" AND "));

  return {
    /** The visit's flags, over its hits (`hits`). */
    flags: hitConditions.map(
      (condition) => `toUInt8(arrayExists(x -> ${hitMatches("x", condition, params)}, hits)) AS ${flagOf.get(condition)!}`,
    ),
    /** Every condition, on the visit. */
    visit: () => all(conditions.map(onVisit)),
    /** What a hit `h` of a matching visit must match itself: page and property conditions, and for event statistics event ones. */
    hit: (events: boolean, h: string) => all(conditions.filter((c) => narrowsHits(c, events)).map((c) => onHit(c, events, h))),
  };
}

export type ClickhouseConditions = ReturnType<typeof clickhouseConditions>;
