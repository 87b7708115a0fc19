/**
 * The dimension registry: one row per kind of value Tally keeps, and every list the code
 * needs per dimension derived from it (dictionary codes, daily limits, hit values, visit
 * columns, filters, statistics, rollup counting, day-block columns). Adding a dimension
 * is a row here plus a migration that adds its `visits` column (docs/architecture.md).
 */

import { compileLiteral } from "../shared/compiled-literal.js";

/** How a visit column's statistic is counted into the rollups (docs/statistics.md). */
export type Counted =
  /** once per visit, from the visit's first hit */
  | "visit"
  /** once per visitor-day, from the day's first hit */
  | "visitor"
  /** once per visitor-day and distinct value */
  | "visitor-value"
  /** the visit's latest pageview: moved as the visit goes on */
  | "exit"
  /** once per pageview, under the visit's value (a value that stays the visit's: a new one starts a visit) */
  | "pageview";

interface VisitColumn {
  /** The statistic that breaks visits down by this column. */
  readonly statistic: string;
  readonly counted: Counted;
}

/**
 * What a hit's values are read from: ingest/collector.ts gathers it once per hit, and each
 * row's `read` (or, for a campaign tag, the URL parameter of the row's own name) picks one.
 */
export interface HitSources {
  readonly page: string;
  /** The page's host, `www.` stripped. */
  readonly host: string;
  /** The referring host ("" for the site itself or none). */
  readonly referrer: string;
  /** A campaign tag of the page URL by parameter name (`utm_source`…), "" when absent. */
  tag(name: string): string;
  readonly agent: {
    readonly browser: string;
    readonly os: string;
    readonly device: string;
    /** `Chrome 131`, `iOS 17.4` (enrich/user-agent.ts). */
    readonly browserVersion: string;
    readonly osVersion: string;
  };
  readonly place: { readonly country: string; readonly continent: string; readonly city: string; readonly region: string } | null;
  readonly language: string;
  readonly screen: string;
  /** The visit's named source and channel (enrich/sources.ts, enrich/channels.ts). */
  readonly acquisition: { readonly source: string; readonly channel: string };
  readonly event: string;
}

interface DimensionRow {
  /** Stored in `dimensions.kind`: never renumber. */
  readonly code: number;
  /** New values per website and local day (docs/statistics.md, "Limits on distinct values"). */
  readonly newPerDay: number;
  /** How a hit's value of this kind is read; without it, hits carry no value of the kind (property names and values travel apart). */
  readonly read?: (sources: HitSources) => string;
  /**
   * How a visit arrived (Plausible's "sources"): `referrer` is the referring host, `tag` a
   * campaign tag read from the page URL's query parameter of the dimension's own name.
   */
  readonly arrival?: "referrer" | "tag";
  /** Columns of `visits` holding a value of this kind (filter `name:is:…` on visits). */
  readonly visit?: Readonly<Record<string, VisitColumn>>;
  /** Statistics of hits whose values are of this kind. */
  readonly hitStatistics?: readonly string[];
  /** Rollups of this kind's values that the API serves inside another statistic (goals' visitors). */
  readonly innerRollups?: readonly string[];
  /** Stored as `code:name`; a filter value without `:` is a code (`country:is:US`). */
  readonly coded?: true;
  /** Named from Tally's own lists (channels, devices, places): no client can invent one, so none has a share of its own. */
  readonly closed?: true;
}

const visitOnce = <S extends string>(statistic: S) => ({ statistic, counted: "visit" }) as const;
const perVisitor = <S extends string>(statistic: S) => ({ statistic, counted: "visitor" }) as const;
const perValue = <S extends string>(statistic: S) => ({ statistic, counted: "visitor-value" }) as const;
/** A campaign tag: read from the page URL's query parameter of the dimension's own name. */
const tag = { arrival: "tag" } as const;

export const DIMENSIONS = {
  page: {
    code: 1,
    newPerDay: 5000,
    read: (s) => s.page,
    visit: { entry_page: visitOnce("landing_page"), exit_page: { statistic: "exit_page", counted: "exit" } },
    hitStatistics: ["page"],
  },
  referrer: { code: 2, newPerDay: 2000, read: (s) => s.referrer, arrival: "referrer", visit: { referrer: visitOnce("referrer") } },
  utm_source: { code: 3, newPerDay: 1000, ...tag, visit: { utm_source: visitOnce("utm_source") } },
  utm_medium: { code: 4, newPerDay: 1000, ...tag, visit: { utm_medium: visitOnce("utm_medium") } },
  utm_campaign: { code: 5, newPerDay: 1000, ...tag, visit: { utm_campaign: visitOnce("campaign") } },
  utm_content: { code: 6, newPerDay: 1000, ...tag, visit: { utm_content: visitOnce("utm_content") } },
  utm_term: { code: 7, newPerDay: 1000, ...tag, visit: { utm_term: visitOnce("utm_term") } },
  browser: { code: 8, newPerDay: 500, read: (s) => s.agent.browser, visit: { browser: perVisitor("browser") } },
  os: { code: 9, newPerDay: 500, read: (s) => s.agent.os, visit: { os: perVisitor("os") } },
  device: { code: 10, newPerDay: 500, read: (s) => s.agent.device, visit: { device: perVisitor("device") }, closed: true },
  country: {
    code: 11,
    newPerDay: 500,
    read: (s) => s.place?.country ?? "",
    visit: { country: perVisitor("country") },
    coded: true,
    closed: true,
  },
  continent: {
    code: 12,
    newPerDay: 500,
    read: (s) => s.place?.continent ?? "",
    visit: { continent: perVisitor("continent") },
    coded: true,
    closed: true,
  },
  city: { code: 13, newPerDay: 5000, read: (s) => s.place?.city ?? "", visit: { city: perVisitor("city") } },
  language: { code: 14, newPerDay: 500, read: (s) => s.language, visit: { language: perValue("language") } },
  resolution: { code: 15, newPerDay: 500, read: (s) => s.screen, visit: { resolution: perValue("resolution") } },
  event: { code: 16, newPerDay: 200, read: (s) => s.event, hitStatistics: ["event", "goals"], innerRollups: ["event_visitors"] },
  prop_name: { code: 17, newPerDay: 200 },
  prop_value: { code: 18, newPerDay: 5000, hitStatistics: ["event_property"] },
  source: { code: 19, newPerDay: 2000, read: (s) => s.acquisition.source, visit: { source: visitOnce("source") } },
  channel: { code: 20, newPerDay: 50, read: (s) => s.acquisition.channel, visit: { channel: visitOnce("channel") }, closed: true },
  browser_version: {
    code: 21,
    newPerDay: 1000,
    read: (s) => s.agent.browserVersion,
    visit: { browser_version: perVisitor("browser_version") },
  },
  os_version: { code: 22, newPerDay: 1000, read: (s) => s.agent.osVersion, visit: { os_version: perVisitor("os_version") } },
  region: {
    code: 23,
    newPerDay: 2000,
    read: (s) => s.place?.region ?? "",
    visit: { region: perVisitor("region") },
    coded: true,
    closed: true,
  },
  hostname: { code: 24, newPerDay: 500, read: (s) => s.host, visit: { hostname: { statistic: "hostname", counted: "pageview" } } },
} as const satisfies Record<string, DimensionRow>;

export type DimensionKind = keyof typeof DIMENSIONS;

type Rows = typeof DIMENSIONS;
/** The kinds a hit carries a value of. */
export type HitDimension = { [K in DimensionKind]: Rows[K] extends { read: unknown } | { arrival: "tag" } ? K : never }[DimensionKind];
/** Every column of `visits` that holds a dimension value's id. */
export type VisitColumnName = { [K in DimensionKind]: Rows[K] extends { visit: infer V } ? keyof V & string : never }[DimensionKind];
/** A hit's values, one per kind it carries ("" when it has none). */
export type DimensionValues = Record<HitDimension, string>;

const KINDS = Object.keys(DIMENSIONS) as DimensionKind[];
const row = (kind: DimensionKind): DimensionRow => DIMENSIONS[kind];

/** Kind → code stored in `dimensions.kind`. */
export const DIMENSION_KINDS = Object.fromEntries(KINDS.map((kind) => [kind, row(kind).code])) as Readonly<Record<DimensionKind, number>>;

/** Code → kind. */
export const KIND_BY_CODE: ReadonlyMap<number, DimensionKind> = new Map(KINDS.map((kind) => [row(kind).code, kind]));

export const NEW_VALUES_PER_DAY = Object.fromEntries(KINDS.map((kind) => [kind, row(kind).newPerDay])) as Readonly<
  Record<DimensionKind, number>
>;

/** Kinds named from Tally's own lists: within the clients' budget, no client has a share of its own. */
export const CLOSED_KINDS: ReadonlySet<DimensionKind> = new Set(KINDS.filter((kind) => row(kind).closed));

/** The kinds every hit carries, in code order. */
export const HIT_DIMENSIONS = KINDS.filter((kind) => row(kind).read || row(kind).arrival === "tag") as HitDimension[];

/** The campaign tags (`utm_*`): each read from the page URL's query parameter of its name. */
export const TAG_DIMENSIONS = HIT_DIMENSIONS.filter((kind) => row(kind).arrival === "tag");

const readerOf = (kind: HitDimension): ((sources: HitSources) => string) => row(kind).read ?? ((sources: HitSources) => sources.tag(kind));

const READERS = HIT_DIMENSIONS.map(readerOf);
/** The values as one literal (shared/compiled-literal.ts: a hit builds one on the hot path). */
const valuesLiteral = <F extends (...args: never[]) => DimensionValues>(parameters: string[], valueAt: (i: number) => string) =>
  compileLiteral<F>(
    parameters,
    HIT_DIMENSIONS.map((kind, i) => [kind, valueAt(i)]),
  );
const readEach = valuesLiteral<(readers: typeof READERS, sources: HitSources) => DimensionValues>(
  ["readers", "sources"],
  (i) => `readers[${i}](sources)`,
);

/** A hit's values, each read by its row from what the collector gathered. */
export const readValues = (sources: HitSources): DimensionValues => readEach(READERS, sources);

/** A hit's values from `data[at]` on, in `HIT_DIMENSIONS` order (hits packed for another thread). */
export const valuesAt = valuesLiteral<(data: readonly unknown[], at: number) => DimensionValues>(["data", "at"], (i) => `data[at + ${i}]`);

/** One column of `visits` with a dimension value: its kind, statistic and counting. */
export interface VisitColumnOf {
  column: VisitColumnName;
  kind: HitDimension;
  statistic: string;
  counted: Counted;
}

/** Every visit column, in code order (entry page, exit page, referrer, …). */
export const VISIT_COLUMNS: readonly VisitColumnOf[] = KINDS.flatMap((kind) =>
  Object.entries(row(kind).visit ?? {}).map(([column, spec]) => ({
    column: column as VisitColumnName,
    kind: kind as HitDimension,
    ...spec,
  })),
);

/** Names of the visit columns: also the filter dimensions on visits. */
export const VISIT_DIMENSIONS = VISIT_COLUMNS.map((visit) => visit.column);

type VisitStatistic = {
  [K in DimensionKind]: Rows[K] extends { visit: infer V }
    ? { [C in keyof V]: V[C] extends { statistic: infer S } ? S : never }[keyof V]
    : never;
}[DimensionKind];
type HitStatistic = { [K in DimensionKind]: Rows[K] extends { hitStatistics: readonly (infer S)[] } ? S : never }[DimensionKind];
/** The statistics the API serves whose rows are dimension values (`browser`, `campaign`, `goals`…). */
export type DimensionStatistic = VisitStatistic | HitStatistic;

const hitStatisticsOf = (kind: DimensionKind) => row(kind).hitStatistics ?? [];

export const DIMENSION_STATISTICS = [
  ...VISIT_COLUMNS.map((visit) => visit.statistic),
  ...KINDS.flatMap(hitStatisticsOf),
] as readonly DimensionStatistic[];

/** The dimension kind of each statistic and rollup whose values are dimension values. */
export const STAT_KINDS: Readonly<Record<string, DimensionKind>> = Object.fromEntries([
  ...VISIT_COLUMNS.map((visit) => [visit.statistic, visit.kind]),
  ...KINDS.flatMap((kind) => [...hitStatisticsOf(kind), ...(row(kind).innerRollups ?? [])].map((statistic) => [statistic, kind])),
]);

/** The visit columns that say how a visit arrived, referrer first then the campaign tags (Plausible's "sources"). */
export const ARRIVAL_COLUMNS = VISIT_COLUMNS.flatMap((visit) => {
  const arrival = row(visit.kind).arrival;
  return arrival ? [{ ...visit, arrival }] : [];
});

/** Kinds stored as `code:name` (a filter value without `:` is a code). */
export const isCoded = (kind: DimensionKind): boolean => row(kind).coded === true;

/** What a value past its kind's daily limit is counted as. */
export const OTHER = "(other)";

/** Longest stored event property value; longer ones are cut. */
export const PROP_VALUE_LENGTH = 200;

/** Separates event, property name and value in the `event_property` rollup's values. */
export const PROPERTY_SEPARATOR = "\u001f";

/**
 * The event part of a pageview's properties in `event_property` (Plausible's name for a
 * pageview). Never a custom event's name: a hit sent as the event `pageview` is a pageview
 * (model/hit-input.ts).
 */
export const PAGEVIEW_EVENT = "pageview";
