import type { StatsPage } from "@tally-analytics/core";
import { paginated } from "./pagination.js";

/** A statistic's page as the API answers it: the list envelope, plus `total`, `previous_total` and `comparison` when present. */
export function statsBody(url: URL, page: StatsPage) {
  return {
    ...paginated(url, page),
    ...(page.rangeTotal === undefined ? {} : { total: page.rangeTotal }),
    ...(page.previousRangeTotal === undefined ? {} : { previous_total: page.previousRangeTotal }),
    ...(page.comparison === undefined ? {} : { comparison: page.comparison }),
  };
}
