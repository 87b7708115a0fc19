import { PROPERTY_SEPARATOR, VISIT_COLUMNS } from "../model/dimensions.js";
import { ratio } from "../model/stat-names.js";

/**
 * Tally's own export: one CSV file per statistic, one row per day (and value), with the
 * daily counts the rollups hold. Written by `tally export --format csv`, read back by
 * `tally import`: the same table serves both, so they cannot drift apart.
 */
export interface TallyFile {
  file: string;
  /** Columns after `date` that name the row: none (day series), `hour`, `value`… */
  keys: readonly string[];
  /** Count columns → the rollup each one is (the day series' value is the day itself). */
  counts: Readonly<Record<string, string>>;
  /** Columns computed for people reading the file (ignored on import). */
  derived?: Readonly<Record<string, (counts: (name: string) => number) => number>>;
}

/** Statistics with a file of day, value and count: pages, every visit column's, events. */
const DIMENSION_STATS = ["page", ...VISIT_COLUMNS.map(({ statistic }) => statistic), "event"];

export const TALLY_FILES: readonly TallyFile[] = [
  { file: "pageviews.csv", keys: [], counts: { pageviews: "pageviews" } },
  { file: "visitors.csv", keys: [], counts: { visitors: "visitors" } },
  {
    file: "visits.csv",
    keys: [],
    counts: { visits: "visits", bounces: "bounces", total_duration: "visit_duration", visit_pageviews: "visit_pageviews" },
    derived: {
      bounce_rate: (count) => ratio("bounce_rate", count("bounces"), count("visits")),
      visit_duration: (count) => ratio("visit_duration", count("visit_duration"), count("visits")),
      views_per_visit: (count) => ratio("views_per_visit", count("visit_pageviews"), count("visits")),
    },
  },
  { file: "pageviews_hours.csv", keys: ["hour"], counts: { pageviews: "pageviews_hours" } },
  { file: "visitors_hours.csv", keys: ["hour"], counts: { visitors: "visitors_hours" } },
  ...DIMENSION_STATS.map((name) => ({ file: `${name}.csv`, keys: ["value"], counts: { count: name } })),
  { file: "goals.csv", keys: ["event"], counts: { visitors: "event_visitors" } },
  { file: "event_property.csv", keys: ["event", "property", "value"], counts: { count: "event_property" } },
];

/**
 * The website's funnel definitions, a row each: `name`, and `steps` one a line (as the form
 * input takes them). Not statistics: `tally import` defines the funnels the website lacks.
 */
export const FUNNELS_FILE = { file: "funnels.csv", columns: ["name", "steps"] } as const;

/** The rollup value of a row's key fields (the day itself for day series). */
export function rollupValue(file: TallyFile, day: string, keys: readonly string[]): string {
  return file.keys.length === 0 ? day : keys.join(PROPERTY_SEPARATOR);
}

/** A rollup value split into the file's key fields. */
export function keyFields(file: TallyFile, value: string): string[] {
  if (file.keys.length === 0) return [];
  return file.keys.length === 1 ? [value] : value.split(PROPERTY_SEPARATOR);
}
