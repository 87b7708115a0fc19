/**
 * The kinds of values Tally keeps in its dimension dictionary (one table of distinct
 * values per website and kind), and how many new ones a website may create per day.
 * Numbers are stored: never renumber a kind.
 */
export const DIMENSION_KINDS = {
  page: 1,
  referrer: 2,
  utm_source: 3,
  utm_medium: 4,
  utm_campaign: 5,
  utm_content: 6,
  utm_term: 7,
  browser: 8,
  os: 9,
  device: 10,
  country: 11,
  continent: 12,
  city: 13,
  language: 14,
  resolution: 15,
  event: 16,
  prop_name: 17,
  prop_value: 18,
} as const;

export type DimensionKind = keyof typeof DIMENSION_KINDS;

/** What a value past its kind's daily limit is counted as. */
export const OTHER = "(other)";

/** Longest stored event property value; longer ones are cut. */
export const PROP_VALUE_LENGTH = 200;

/** New values per website, kind and local day (docs/statistics.md, "Limits on distinct values"). */
export const NEW_VALUES_PER_DAY: Readonly<Record<DimensionKind, number>> = {
  page: 5000,
  referrer: 2000,
  utm_source: 1000,
  utm_medium: 1000,
  utm_campaign: 1000,
  utm_content: 1000,
  utm_term: 1000,
  browser: 500,
  os: 500,
  device: 500,
  country: 500,
  continent: 500,
  city: 5000,
  language: 500,
  resolution: 500,
  event: 200,
  prop_name: 200,
  prop_value: 5000,
};

/** The dimension kind of a statistic's values, for those whose values are dimension values. */
export const STAT_KINDS: Readonly<Record<string, DimensionKind>> = {
  page: "page",
  landing_page: "page",
  exit_page: "page",
  referrer: "referrer",
  campaign: "utm_campaign",
  utm_source: "utm_source",
  utm_medium: "utm_medium",
  utm_campaign: "utm_campaign",
  utm_content: "utm_content",
  utm_term: "utm_term",
  browser: "browser",
  os: "os",
  device: "device",
  country: "country",
  continent: "continent",
  city: "city",
  language: "language",
  resolution: "resolution",
  event: "event",
  goals: "event",
  event_visitors: "event",
  event_property: "prop_value",
};

/** Separates event, property name and value in the `event_property` rollup's values. */
export const PROPERTY_SEPARATOR = "\u001f";
