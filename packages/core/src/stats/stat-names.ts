/** Every statistic the API serves (SPEC §5). */
export const STAT_NAMES = [
  "browser",
  "campaign",
  "city",
  "continent",
  "country",
  "device",
  "event",
  "landing_page",
  "language",
  "os",
  "page",
  "pageviews",
  "pageviews_hours",
  "referrer",
  "resolution",
  "visitors",
  "visitors_hours",
] as const;

export type StatName = (typeof STAT_NAMES)[number];

/** Series whose value is the day itself: stored at day level only. */
export const DAILY_SERIES: ReadonlySet<StatName> = new Set(["pageviews", "visitors"]);
