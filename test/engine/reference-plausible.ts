/**
 * Filter sets as Stats API v2 queries (`tally.stats.plausible`): the same conditions as v2
 * filters, and a breakdown by a visit column with the totals' metrics, whose every row must
 * count what the filter set with `column is value` counts (reference-segments.ts).
 */
import { PLAUSIBLE_DIMENSIONS } from "@tally-analytics/core/internal";
import type { FilterCondition } from "./reference-segments.js";

/**
 * The totals call's figures a v2 breakdown by `dimension` may ask (Plausible's rules: never
 * `views_per_visit` with a dimension, no visit figures beside an event dimension).
 */
export const totalsMetrics = (dimension: string) =>
  dimension.startsWith("visit:")
    ? (["visitors", "visits", "pageviews", "bounce_rate", "visit_duration"] as const)
    : (["visitors", "visits", "pageviews"] as const);

/** The v2 dimension that filters as a v1 filter dimension does, its values passed through unchanged (not a `name` part). */
function plausibleDimension(dimension: string): string | null {
  if (dimension === "page") return "event:page";
  if (dimension === "event") return "event:goal";
  if (dimension.startsWith("prop:")) return `event:props:${dimension.slice("prop:".length)}`;
  const found = Object.entries(PLAUSIBLE_DIMENSIONS).find(([, mapping]) => mapping?.filter === dimension && mapping.part !== "name");
  return found?.[0] ?? null;
}

/** A condition as a v2 filter, or null where v2 cannot say it (a dimension it lacks, an empty value). */
export function plausibleFilter(condition: FilterCondition): unknown[] | null {
  if ("any" in condition) {
    const parts = condition.any.map(plausibleFilter);
    return parts.includes(null) ? null : ["or", parts];
  }
  const dimension = plausibleDimension(condition.dimension);
  if (dimension === null || condition.values.includes("")) return null;
  return [condition.operator, dimension, condition.values];
}

/** The v2 dimensions whose rows are a visit column's values as stored (no `code:name` part): [v2 dimension, column]. */
export function breakdownColumns(columns: readonly string[]): [string, string][] {
  return Object.entries(PLAUSIBLE_DIMENSIONS).flatMap(([dimension, mapping]): [string, string][] =>
    mapping && !mapping.part && columns.includes(mapping.filter) ? [[dimension, mapping.filter]] : [],
  );
}
