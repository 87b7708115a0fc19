import { ValidationError } from "../shared/errors.js";
import { compilePattern } from "../shared/patterns.js";
import { VISIT_DIMENSIONS, type VisitColumnName } from "./dimensions.js";

/** A filter on a visit column. */
export type VisitDimension = VisitColumnName;
export type Operator = "is" | "is_not" | "contains" | "contains_not" | "matches" | "matches_not";

/** Operators that keep what does not match: `is_not`, `contains_not`, `matches_not`. */
export const isNegated = (operator: Operator): boolean => operator.endsWith("_not");

/** Operators whose values are regular expressions (RE2 syntax): `matches`, `matches_not`. */
export const isPattern = (operator: Operator): boolean => operator === "matches" || operator === "matches_not";

/** Operators that match a substring, ignoring case: `contains`, `contains_not`. */
export const isSubstring = (operator: Operator): boolean => operator === "contains" || operator === "contains_not";

/** One condition: a visit dimension, `page`, `event`, or a property `prop:<name>` (of an event or a pageview). */
export type SimpleCondition =
  | { on: "visit"; dimension: VisitDimension; operator: Operator; values: string[] }
  | { on: "page" | "event"; operator: Operator; values: string[] }
  | { on: "prop"; name: string; operator: Operator; values: string[] };

/** Conditions joined by `||` in one `filter`: any of them holds (Plausible's `or` across dimensions). */
export interface AnyCondition {
  on: "any";
  conditions: SimpleCondition[];
}

/** One `filter`: a condition, or several of which any must hold. */
export type Condition = SimpleCondition | AnyCondition;

/** Every simple condition of a filter set, those within `any` included: what each needs looked up. */
export const simpleConditions = (conditions: readonly Condition[]): SimpleCondition[] =>
  conditions.flatMap((condition) => (condition.on === "any" ? condition.conditions : [condition]));

/**
 * Whether a hit statistic's hits must match a condition themselves (docs/statistics.md,
 * "Segments: filters"): every hit has a page and may have properties; only events have a
 * name, so an `event` condition narrows the events counted and, for pageviews, only the visits.
 */
export const appliesToHit = (condition: SimpleCondition, events: boolean): boolean =>
  condition.on === "page" || condition.on === "prop" || (events && condition.on === "event");

/** A visit dimension's value that stands for none: `referrer:is:(none)` keeps the visits without a referrer. */
export const NO_VALUE = "(none)";

/** Bounds on one request's filters, so a query's work stays bounded. */
export const FILTER_LIMITS = { conditions: 20, values: 50, valueLength: 2048 } as const;

const SYNTAX = /^(prop:[\s\S]+?|[a-z_]+):(is|is_not|contains_not|contains|matches_not|matches):([\s\S]*)$/;

/** `a||b` → ["a", "b"]: an unescaped `||` separates conditions (an empty value, invalid before, cannot be meant). */
function splitConditions(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "|" && text[i + 1] === "|") {
      parts.push(text.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** `a|b\|c` → ["a", "b|c"]: `|` separates, `\|` and `\\` are literal. */
function splitValues(text: string): string[] {
  const values: string[] = [];
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === "\\" && (text[i + 1] === "|" || text[i + 1] === "\\")) current += text[++i];
    else if (char === "|") {
      values.push(current);
      current = "";
    } else current += char;
  }
  values.push(current);
  return values;
}

function parseCondition(text: string): SimpleCondition | string {
  const match = SYNTAX.exec(text);
  if (!match)
    return `The filter "${text.slice(0, 100)}" is not of the form dimension:operator:value (operators: is, is_not, contains, contains_not, matches, matches_not).`;
  const [, dimension = "", operator = "", rest = ""] = match;
  const values = splitValues(rest);
  if (values.some((value) => value === "")) return `The filter "${text.slice(0, 100)}" has an empty value.`;
  if (values.length > FILTER_LIMITS.values) return `A filter may list at most ${FILTER_LIMITS.values} values.`;
  if (values.some((value) => value.length > FILTER_LIMITS.valueLength))
    return `A filter value may be at most ${FILTER_LIMITS.valueLength} characters.`;
  const op = operator as Operator;
  if (isPattern(op)) {
    const invalid = values.map(compilePattern).find((regex) => typeof regex === "string");
    if (invalid !== undefined) return invalid;
  }
  if (dimension.startsWith("prop:")) return { on: "prop", name: dimension.slice(5), operator: op, values };
  if (dimension === "page" || dimension === "event") return { on: dimension, operator: op, values };
  if ((VISIT_DIMENSIONS as readonly string[]).includes(dimension))
    return { on: "visit", dimension: dimension as VisitDimension, operator: op, values };
  return `The filter dimension "${dimension.slice(0, 50)}" is unknown.`;
}

/** One `filter` parameter: a condition, or conditions joined by `||` (any of them). */
function parseFilter(text: string): Condition | string {
  const parts = splitConditions(text).map(parseCondition);
  const invalid = parts.find((part) => typeof part === "string");
  if (invalid !== undefined) return invalid;
  const conditions = parts as SimpleCondition[];
  return conditions.length === 1 ? conditions[0]! : { on: "any", conditions };
}

/** The `filter` parameter (one string or several) as conditions; a ValidationError names each bad one (`filter.N`). */
export function parseFilters(input: unknown): Condition[] {
  if (input === undefined || input === null || input === "") return [];
  const texts = Array.isArray(input) ? input : [input];
  const errors: Record<string, string[]> = {};
  const conditions: Condition[] = [];
  if (texts.length > FILTER_LIMITS.conditions) errors.filter = [`At most ${FILTER_LIMITS.conditions} filters are allowed.`];
  texts.slice(0, FILTER_LIMITS.conditions).forEach((text, index) => {
    const parsed = typeof text === "string" ? parseFilter(text) : "The filter must be a string.";
    if (typeof parsed === "string") errors[`filter.${index}`] = [parsed];
    else conditions.push(parsed);
  });
  if (simpleConditions(conditions).length > FILTER_LIMITS.conditions)
    errors.filter = [`At most ${FILTER_LIMITS.conditions} conditions are allowed, those joined by || included.`];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return conditions;
}
