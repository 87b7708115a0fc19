/**
 * The dimension registry: one row per kind of value Tally keeps, and every list the code
 * needs per dimension derived from it (dictionary codes, daily limits, hit values, visit
 * columns, filters, statistics, rollup counting, day-block columns). Adding a dimension
 * is a row here plus a migration that adds its `visits` column (docs/architecture.md).
 */

/** How a visit column's statistic is counted into the rollups (docs/statistics.md). */
export type Counted =
  /** once per visit, from the visit's first hit */
  | "visit"
  /** once per visitor-day, from the day's first hit */
  | "visitor"
  /** once per visitor-day and distinct value */
  | "visitor-value"
  /** the visit's latest pageview: moved as the visit goes on */
  | "exit";

interface VisitColumn {
  /** The statistic that breaks visits down by this column. */
  readonly statistic: string;
  readonly counted: Counted;
}

interface DimensionRow {
  /** Stored in `dimensions.kind`: never renumber. */
  readonly code: number;
  /** New values per website and local day (docs/statistics.md, "Limits on distinct values"). */
  readonly newPerDay: number;
  /** Carried by each hit (`hit.values[name]`); property names and values travel apart. */
  readonly onHit: boolean;
  /** Columns of `visits` holding a value of this kind (filter `name:is:…` on visits). */
  readonly visit?: Readonly<Record<string, VisitColumn>>;
  /** Statistics of hits whose values are of this kind. */
  readonly hitStatistics?: readonly string[];
  /** Stored as `code:name`; a filter value without `:` is a code (`country:is:US`). */
  readonly coded?: true;
}

const visitOnce = (statistic: string) => ({ statistic, counted: "visit" }) as const;
const perVisitor = (statistic: string) => ({ statistic, counted: "visitor" }) as const;
const perValue = (statistic: string) => ({ statistic, counted: "visitor-value" }) as const;

export const DIMENSIONS = {
  page: {
    code: 1,
    newPerDay: 5000,
    onHit: true,
    visit: { entry_page: visitOnce("landing_page"), exit_page: { statistic: "exit_page", counted: "exit" } },
    hitStatistics: ["page"],
  },
  referrer: { code: 2, newPerDay: 2000, onHit: true, visit: { referrer: visitOnce("referrer") } },
  utm_source: { code: 3, newPerDay: 1000, onHit: true, visit: { utm_source: visitOnce("utm_source") } },
  utm_medium: { code: 4, newPerDay: 1000, onHit: true, visit: { utm_medium: visitOnce("utm_medium") } },
  utm_campaign: { code: 5, newPerDay: 1000, onHit: true, visit: { utm_campaign: visitOnce("campaign") } },
  utm_content: { code: 6, newPerDay: 1000, onHit: true, visit: { utm_content: visitOnce("utm_content") } },
  utm_term: { code: 7, newPerDay: 1000, onHit: true, visit: { utm_term: visitOnce("utm_term") } },
  browser: { code: 8, newPerDay: 500, onHit: true, visit: { browser: perVisitor("browser") } },
  os: { code: 9, newPerDay: 500, onHit: true, visit: { os: perVisitor("os") } },
  device: { code: 10, newPerDay: 500, onHit: true, visit: { device: perVisitor("device") } },
  country: { code: 11, newPerDay: 500, onHit: true, visit: { country: perVisitor("country") }, coded: true },
  continent: { code: 12, newPerDay: 500, onHit: true, visit: { continent: perVisitor("continent") }, coded: true },
  city: { code: 13, newPerDay: 5000, onHit: true, visit: { city: perVisitor("city") } },
  language: { code: 14, newPerDay: 500, onHit: true, visit: { language: perValue("language") } },
  resolution: { code: 15, newPerDay: 500, onHit: true, visit: { resolution: perValue("resolution") } },
  event: { code: 16, newPerDay: 200, onHit: true, hitStatistics: ["event", "goals", "event_visitors"] },
  prop_name: { code: 17, newPerDay: 200, onHit: false },
  prop_value: { code: 18, newPerDay: 5000, onHit: false, hitStatistics: ["event_property"] },
} as const satisfies Record<string, DimensionRow>;

export type DimensionKind = keyof typeof DIMENSIONS;

type Rows = typeof DIMENSIONS;
/** The kinds a hit carries a value of. */
export type HitDimension = { [K in DimensionKind]: Rows[K]["onHit"] extends true ? K : never }[DimensionKind];
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

/** The kinds every hit carries, in code order. */
export const HIT_DIMENSIONS = KINDS.filter((kind) => row(kind).onHit) as HitDimension[];

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

/** The dimension kind of each statistic whose values are dimension values. */
export const STAT_KINDS: Readonly<Record<string, DimensionKind>> = Object.fromEntries([
  ...VISIT_COLUMNS.map((visit) => [visit.statistic, visit.kind]),
  ...KINDS.flatMap((kind) => (row(kind).hitStatistics ?? []).map((statistic) => [statistic, kind])),
]);

/** Kinds stored as `code:name` (a filter value without `:` is a code). */
export const isCoded = (kind: DimensionKind): boolean => row(kind).coded === true;

/** What a value past its kind's daily limit is counted as. */
export const OTHER = "(other)";

/** Longest stored event property value; longer ones are cut. */
export const PROP_VALUE_LENGTH = 200;

/** Separates event, property name and value in the `event_property` rollup's values. */
export const PROPERTY_SEPARATOR = "\u001f";
