// Saved segments in a Stats API v2 query (`["is", "segment", [2]]`): before the query is
// parsed, each is replaced by its filters, written as v2 filters, as Plausible itself does
// (its answer echoes the segment's filters, not the segment). A saved segment keeps the v1
// filters of the dashboard and `GET /api/v1/stats`; each maps onto one v2 filter.
import { isNegated, parseFilters, type SimpleCondition } from "../model/filters.js";
import { PLAUSIBLE_DIMENSIONS, PROPS_PREFIX } from "./plausible-dimensions.js";
import { PlausibleQueryError } from "./plausible-query.js";

const SEGMENT = "segment";
const isSegmentFilter = (filter: unknown): filter is [unknown, typeof SEGMENT, unknown] => Array.isArray(filter) && filter[1] === SEGMENT;

/** Whether a query body filters on a saved segment anywhere (within `and`, `or`, `not` too). */
export function usesSegments(body: unknown): boolean {
  const filters = (body as { filters?: unknown } | null)?.filters;
  const visit = (filter: unknown): boolean =>
    Array.isArray(filter) &&
    (isSegmentFilter(filter) || filter.some((part) => Array.isArray(part) && (isSegmentFilter(part) || part.some(visit))));
  return Array.isArray(filters) && filters.some(visit);
}

/** The v2 dimension a v1 filter dimension is (`entry_page` → `visit:entry_page`): the mapping that shows the stored value whole, or its code. */
function v2Dimension(condition: SimpleCondition): string {
  if (condition.on === "prop") return `${PROPS_PREFIX}${condition.name}`;
  if (condition.on !== "visit") return condition.on === "page" ? "event:page" : "event:goal";
  const column = condition.dimension;
  const found = Object.entries(PLAUSIBLE_DIMENSIONS).find(
    ([, mapping]) => mapping !== null && mapping.filter === column && mapping.part !== "name",
  );
  if (!found) throw new PlausibleQueryError(`The segment filters on ${column}, which the Stats API v2 does not filter on.`);
  return found[0];
}

/** One v1 condition as a v2 filter; a negated event condition is `has_not_done` (the visits without it), as v1 counts it. */
function v2Condition(condition: SimpleCondition): unknown[] {
  const dimension = v2Dimension(condition);
  if (condition.on === "event" && isNegated(condition.operator))
    return ["has_not_done", [condition.operator.replace(/_not$/, ""), dimension, condition.values]];
  return [condition.operator, dimension, condition.values];
}

/** A segment's v1 filters as v2 filters (each `||` group an `or`). */
export function v2Filters(filters: readonly string[]): unknown[] {
  return parseFilters([...filters]).map((condition) =>
    condition.on === "any" ? ["or", condition.conditions.map(v2Condition)] : v2Condition(condition),
  );
}

/**
 * The body with each segment filter replaced by its segment's filters (an `and` of them when
 * it is within another filter). `filtersOf` answers a segment's v1 filters, or throws NotFoundError.
 */
export async function expandSegments(
  body: Record<string, unknown>,
  filtersOf: (id: number) => Promise<string[]>,
): Promise<Record<string, unknown>> {
  async function expand(filter: unknown): Promise<unknown[]> {
    if (!Array.isArray(filter)) return [filter];
    if (isSegmentFilter(filter)) {
      const [operator, , ids] = filter;
      if (operator !== "is" || !Array.isArray(ids) || ids.length !== 1 || !Number.isSafeInteger(ids[0]))
        throw new PlausibleQueryError(`Invalid filter ${JSON.stringify(filter)}: filter by one saved segment, ["is", "segment", [id]].`);
      let filters: string[];
      try {
        filters = await filtersOf(ids[0] as number);
      } catch {
        throw new PlausibleQueryError(`Invalid filter ${JSON.stringify(filter)}: no saved segment ${String(ids[0])} on this site.`);
      }
      return v2Filters(filters);
    }
    const [head, inner, ...rest] = filter;
    if (head === "and" && Array.isArray(inner)) return [["and", (await Promise.all(inner.map(expand))).flat()]];
    if ((head === "or" || head === "not" || head === "has_done" || head === "has_not_done") && Array.isArray(inner)) {
      const parts = head === "or" ? await Promise.all(inner.map(async (part) => andOf(await expand(part)))) : andOf(await expand(inner));
      return [[head, parts, ...rest]];
    }
    return [filter];
  }
  const andOf = (filters: unknown[]) => (filters.length === 1 ? filters[0] : ["and", filters]);
  const filters = body.filters as unknown[];
  return { ...body, filters: (await Promise.all(filters.map(expand))).flat() };
}
