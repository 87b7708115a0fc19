import type { StatsPage } from "@tally-analytics/core";
import type { Fallbacks } from "./fallbacks.js";
import { paginated } from "./pagination.js";

/** A statistic's page as the API answers it: the list envelope, with `total` the range's figure, `previous_total` and `comparison` when present. */
export function statsBody(url: URL, page: StatsPage, fallbacks: Fallbacks = {}) {
  return {
    ...paginated(url, page, fallbacks),
    ...(page.rangeTotal === undefined ? {} : { total: page.rangeTotal }),
    ...(page.previousRangeTotal === undefined ? {} : { previous_total: page.previousRangeTotal }),
    ...(page.comparison === undefined ? {} : { comparison: page.comparison }),
  };
}
