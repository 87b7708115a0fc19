import type { VisitDimension } from "../model/filters.js";
import type { StatName } from "../model/stat-names.js";

/** How a Plausible dimension maps onto Tally: the statistic that lists its values and the filter that selects one. */
export interface DimensionMapping {
  /** The statistic whose rows are the dimension's values (`GET /api/v1/stats?name=`). */
  statistic: StatName;
  /** The filter dimension that selects a value (`filter=<filter>:is:<value>`). */
  filter: VisitDimension | "page" | "event";
  /** The Plausible metric the statistic's count is: a breakdown asking only for it needs no more than the statistic. */
  counts: "visitors" | "visits" | "pageviews";
  /** For values stored `code:name` (`US:United States`, `US:Austin`): which part Plausible shows. */
  part?: "code" | "name";
}

/**
 * Plausible's dimensions (Stats API v2) → Tally's statistic and filter, one row each; `null`
 * for what Tally does not keep (a query naming it is a 400 that names it). `event:props:<name>`
 * and the `time` dimensions are handled apart (plausible-rows.ts).
 */
export const PLAUSIBLE_DIMENSIONS: Readonly<Record<string, DimensionMapping | null>> = {
  "event:page": { statistic: "page", filter: "page", counts: "pageviews" },
  "event:goal": { statistic: "goals", filter: "event", counts: "visitors" },
  // A visit is on one host (docs/statistics.md, "Hostname"): the pageviews of the visits on it.
  "event:hostname": { statistic: "hostname", filter: "hostname", counts: "pageviews" },
  "visit:entry_page": { statistic: "landing_page", filter: "entry_page", counts: "visits" },
  "visit:exit_page": { statistic: "exit_page", filter: "exit_page", counts: "visits" },
  "visit:entry_page_hostname": null,
  "visit:exit_page_hostname": null,
  "visit:source": { statistic: "source", filter: "source", counts: "visits" },
  "visit:channel": { statistic: "channel", filter: "channel", counts: "visits" },
  "visit:referrer": { statistic: "referrer", filter: "referrer", counts: "visits" },
  "visit:utm_source": { statistic: "utm_source", filter: "utm_source", counts: "visits" },
  "visit:utm_medium": { statistic: "utm_medium", filter: "utm_medium", counts: "visits" },
  "visit:utm_campaign": { statistic: "campaign", filter: "utm_campaign", counts: "visits" },
  "visit:utm_content": { statistic: "utm_content", filter: "utm_content", counts: "visits" },
  "visit:utm_term": { statistic: "utm_term", filter: "utm_term", counts: "visits" },
  "visit:device": { statistic: "device", filter: "device", counts: "visitors" },
  "visit:browser": { statistic: "browser", filter: "browser", counts: "visitors" },
  "visit:browser_version": null,
  "visit:os": { statistic: "os", filter: "os", counts: "visitors" },
  "visit:os_version": null,
  "visit:country": { statistic: "country", filter: "country", part: "code", counts: "visitors" },
  "visit:country_name": { statistic: "country", filter: "country", part: "name", counts: "visitors" },
  // Stored `US-TX:Texas` (the ISO 3166-2 code, or the country's code when the subdivision has none).
  "visit:region": { statistic: "region", filter: "region", part: "code", counts: "visitors" },
  "visit:region_name": { statistic: "region", filter: "region", part: "name", counts: "visitors" },
  // Tally keeps a city's name, not its GeoName id: both show the name.
  "visit:city": { statistic: "city", filter: "city", part: "name", counts: "visitors" },
  "visit:city_name": { statistic: "city", filter: "city", part: "name", counts: "visitors" },
};

/** The custom property dimension's prefix: `event:props:plan`. */
export const PROPS_PREFIX = "event:props:";

/** A stored value as Plausible shows it: the code or the name of `code:name`, or the value itself. */
export function shownValue(mapping: DimensionMapping, stored: string): string {
  if (!mapping.part) return stored;
  const colon = stored.indexOf(":");
  if (colon < 0) return stored;
  return mapping.part === "code" ? stored.slice(0, colon) : stored.slice(colon + 1);
}

/** The visit column a dimension's values are (`visit:browser` → `browser`), or null (`event:page`, goals, properties, time). */
export function visitColumnOf(dimension: string): VisitDimension | null {
  const filter = PLAUSIBLE_DIMENSIONS[dimension]?.filter;
  return filter === undefined || filter === "page" || filter === "event" ? null : filter;
}
