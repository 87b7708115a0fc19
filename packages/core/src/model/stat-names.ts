import { DIMENSION_STATISTICS, STAT_KINDS, type DimensionStatistic } from "./dimensions.js";

/** The statistics that are not a breakdown by a dimension: the series of a day, an hour, a visit's figures. */
const SERIES_NAMES = [
  "bounce_rate",
  "pageviews",
  "pageviews_hours",
  "views_per_visit",
  "visit_duration",
  "visitors",
  "visitors_hours",
  "visits",
] as const;

/** The statistics of engagement signals, one row per page (docs/statistics.md, "Engagement"): read from their rows, never rolled up. */
export const ENGAGEMENT_STATISTICS = ["scroll_depth", "time_on_page", "vitals"] as const;
export type EngagementStatistic = (typeof ENGAGEMENT_STATISTICS)[number];
export const isEngagementStatistic = (name: string): name is EngagementStatistic =>
  (ENGAGEMENT_STATISTICS as readonly string[]).includes(name);

export type StatName = (typeof SERIES_NAMES)[number] | DimensionStatistic | EngagementStatistic;

/** Every statistic the API serves, in alphabetical order: the 17 of the original API and the visit metrics, UTM fields, exit pages, properties and goals. */
export const STAT_NAMES = [...SERIES_NAMES, ...DIMENSION_STATISTICS, ...ENGAGEMENT_STATISTICS].sort() as [StatName, ...StatName[]];

/** Series whose value is the day itself: stored at day level only. */
export const DAILY_SERIES: ReadonlySet<string> = new Set(["pageviews", "visitors", "visits"]);

/** Rollups kept at day level only: their value is the day. */
export const DAY_ONLY: ReadonlySet<string> = new Set(["pageviews", "visitors", "visits", "bounces", "visit_duration", "visit_pageviews"]);

/** Series whose value is the hour of the day. */
export const HOUR_SERIES: ReadonlySet<string> = new Set(["pageviews_hours", "visitors_hours"]);

/** Day series that are a ratio of two daily sums; `total` is the same ratio over the range. */
export const RATIO_SERIES = {
  bounce_rate: { numerator: "bounces", denominator: "visits", scale: 1000, divisor: 10 },
  visit_duration: { numerator: "visit_duration", denominator: "visits", scale: 1, divisor: 1 },
  views_per_visit: { numerator: "visit_pageviews", denominator: "visits", scale: 100, divisor: 100 },
} as const;

export type RatioName = keyof typeof RATIO_SERIES;

export const isRatio = (name: string): name is RatioName => Object.hasOwn(RATIO_SERIES, name);

/** The rollups that also have rows for wider periods (summed when a period closes): every other statistic, and the counts statistics are read from (`event_visitors`). */
export const WIDER_ROLLUPS: readonly string[] = [...new Set([...STAT_NAMES, ...Object.keys(STAT_KINDS)])].filter(
  (name) => !DAY_ONLY.has(name) && !isRatio(name) && !isEngagementStatistic(name),
);

/** docs/statistics.md: `Math.round(scale × numerator ÷ denominator) ÷ divisor`, 0 without visits. */
export function ratio(name: RatioName, numerator: number, denominator: number): number {
  const { scale, divisor } = RATIO_SERIES[name];
  return denominator === 0 ? 0 : Math.round((scale * numerator) / denominator) / divisor;
}

/** Names with a `total` beside their rows: the day series of visits and the ratios. */
export const HAS_RANGE_TOTAL: ReadonlySet<string> = new Set([
  "visits",
  "bounce_rate",
  "visit_duration",
  "views_per_visit",
  "scroll_depth",
  "time_on_page",
]);

/** Bounds on one request's page goals (and on the page goals a website keeps). */
export const PAGE_GOAL_LIMITS = { patterns: 10, length: 200 } as const;
