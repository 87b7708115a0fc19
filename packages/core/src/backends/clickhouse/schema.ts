import { HIT_DIMENSIONS, VISIT_COLUMNS, type HitDimension } from "../../model/dimensions.js";

/** Where the tables are made: one server (or chDB), or every node of a cluster. */
export interface SchemaPlace {
  /** A cluster of the servers' configuration (`remote_servers`): tables made `ON CLUSTER`, replicated, with a Distributed table in front. */
  cluster?: string | undefined;
}

/** The table of hits every statistic is read from (on a cluster: the Distributed table in front of the shards' tables). */
export const HITS_TABLE = "tally_hits";
/** On a cluster: each shard's replicated table, behind `tally_hits`. */
export const LOCAL_HITS_TABLE = "tally_hits_local";

/** The stored visits of days that can no longer change (on a cluster: the Distributed table in front of the shards'). */
export const VISITS_TABLE = "tally_visits";
/** The stored visitor-days of days that can no longer change (on a cluster: the Distributed table in front of the shards'). */
export const VISITOR_DAYS_TABLE = "tally_visitor_days";
/** Which visits of a day are stored: their version, and the hits of the days they were formed from. */
export const VISIT_DAYS_TABLE = "tally_visit_days";

/** Batch ids remembered per table: a retried batch within the last this many inserts is written once (ClickHouse's insert deduplication). */
export const DEDUPLICATION_WINDOW = 10_000;

/** A name as ClickHouse quotes it. */
export const quoted = (name: string): string => `\`${name.replace(/[\\`]/g, (c) => `\\${c}`)}\``;

/** Dimensions with few distinct values per website (dictionary-encoded by ClickHouse): not pages, referrers, cities or campaign tags. */
const LOW_CARDINALITY = new Set<HitDimension>([
  "browser",
  "browser_version",
  "os",
  "os_version",
  "device",
  "country",
  "continent",
  "region",
  "language",
  "resolution",
  "channel",
  "source",
  "hostname",
  "event",
]);

/**
 * The order hits were written in (the sessions explorer lists visits started at the same
 * time as the database does, the later written first): increasing in each process, about
 * the time in microseconds. 0 for hits copied from a database, and those of tables made
 * before the column was.
 */
const ARRIVAL = ["arrival", "UInt64"] as const;

/**
 * An event's revenue (docs/revenue.md): the amount in ten-thousandths of its currency's unit
 * (0 without revenue) and the currency ("" without).
 */
const REVENUE = [
  ["revenue_amount", "Int64"],
  ["revenue_currency", "LowCardinality(String)"],
] as const;

/** The columns added since the table was first made, in order: tables made before them get them at start. */
const ADDED: readonly (readonly [name: string, type: string])[] = [ARRIVAL, ...REVENUE];

/**
 * The columns of a hit, one per dimension of the registry after the hit's own: its kind,
 * website, local day and time, visitor, the neighbouring days' hashes (visits across
 * midnight), engagement, properties, then the columns added since (arrival, revenue).
 */
export const HIT_COLUMNS: readonly (readonly [name: string, type: string])[] = [
  ["website_id", "UInt32"],
  ["day", "Date"],
  ["visitor", "String"],
  ["local_time", "DateTime('UTC')"],
  ["timestamp", "DateTime64(3, 'UTC')"],
  ["kind", "Enum8('pageview' = 1, 'event' = 2, 'engagement' = 3)"],
  ["previous_visitor", "String"],
  ["next_visitor", "String"],
  ["engaged_ms", "UInt32"],
  ["scroll_depth", "Nullable(UInt8)"],
  ["vitals", "Map(LowCardinality(String), Float64)"],
  ["props", "Map(String, String)"],
  ...HIT_DIMENSIONS.map((kind) => [kind, LOW_CARDINALITY.has(kind) ? "LowCardinality(String)" : "String"] as const),
  ...ADDED,
];

/** A hit column's type by name. */
const HIT_TYPES = new Map(HIT_COLUMNS);

/** Every dimension a visit keeps its first hit's value of (the visit columns' kinds: entry pages are pages). */
export const VISIT_KINDS: readonly HitDimension[] = [...new Set(VISIT_COLUMNS.map((column) => column.kind))];

/**
 * A visit's hit as statements under filters, funnels and journeys read it (visits.ts's
 * `VISIT_HIT`): its kind, day, local hour and local time (seconds), page, event name and
 * properties.
 */
export const VISIT_HIT_TYPE = `Array(Tuple(UInt8, Date, UInt8, UInt32, String, ${HIT_TYPES.get("event")!}, Map(String, String)))`;

/** The columns added to a stored visit since its table was first made: its hits and start, and its visitor's number. */
const VISIT_ADDED: readonly (readonly [name: string, type: string])[] = [
  ["visitor", "UInt32"],
  ["start", "Int64"],
  ["start_hour", "UInt8"],
  ["start_local", "UInt32"],
  ["hits", VISIT_HIT_TYPE],
];

/**
 * A stored visit (visits.ts forms them): its website, start day and the version of that
 * day's forming, figures, pageviews on its start day (a visit past midnight has the rest on
 * the next), exit page and its first hit's values: what the unfiltered statistics read.
 * Then what filters, funnels and journeys read: its visitor's number among the visitors of
 * its start day (a visitor's hash is most of a row's size; the number tells visitor-days
 * apart as well), its start (time, local hour and local seconds) and its hits in order
 * (pageviews and events, without the hash).
 */
export const VISIT_ROW_COLUMNS: readonly (readonly [name: string, type: string])[] = [
  ["website_id", "UInt32"],
  ["vday", "Date"],
  ["version", "UInt64"],
  ["pageviews", "UInt32"],
  ["first_day_pageviews", "UInt32"],
  ["events", "UInt32"],
  ["duration", "Int64"],
  ["exit_page", "String"],
  ...VISIT_KINDS.map((kind) => [kind, HIT_TYPES.get(kind)!] as const),
  ...VISIT_ADDED,
];

/**
 * The shape of the stored visits a day's forming writes: a day stored in an older shape
 * (before the visits kept their hits) is formed again when read.
 */
export const VISIT_SHAPE = 1;

/** The dimensions counted once per visitor-day from its first hit, and those counted once per visitor-day and value. */
export const VISITOR_KINDS: readonly HitDimension[] = VISIT_COLUMNS.filter((column) => column.counted === "visitor").map((c) => c.kind);
export const VISITOR_VALUE_KINDS: readonly HitDimension[] = VISIT_COLUMNS.filter((column) => column.counted === "visitor-value").map(
  (c) => c.kind,
);
/** The column of a stored visitor-day holding the values of a dimension its hits had. */
export const valuesColumn = (kind: HitDimension) => `${kind}_values`;

/**
 * A stored visitor-day (a visitor's hits of one day, engagement signals aside): its
 * website, day and the version of that day's forming, the hour and values of its first
 * hit, the values its hits had of the dimensions counted per visitor and value, and the
 * names of its events (each once). Not the visitor's hash: a row is one visitor-day.
 */
export const VISITOR_DAY_COLUMNS: readonly (readonly [name: string, type: string])[] = [
  ["website_id", "UInt32"],
  ["day", "Date"],
  ["version", "UInt64"],
  ["hour", "UInt8"],
  ...VISITOR_KINDS.map((kind) => [kind, HIT_TYPES.get(kind)!] as const),
  ...VISITOR_VALUE_KINDS.map((kind) => [valuesColumn(kind), `Array(${HIT_TYPES.get(kind)!})`] as const),
  ["event_names", `Array(${HIT_TYPES.get("event")!})`],
];

/** The column of a stored day added since its table was first made: the shape of its visits (`VISIT_SHAPE`). */
const VISIT_DAY_ADDED: readonly (readonly [name: string, type: string])[] = [["shape", "UInt16"]];

/** A day whose visits are stored: their version, the hits of the day before, the day and the day after they were formed from, and their shape. */
const VISIT_DAY_COLUMNS: readonly (readonly [name: string, type: string])[] = [
  ["website_id", "UInt32"],
  ["day", "Date"],
  ["version", "UInt64"],
  ["hits_before", "UInt64"],
  ["hits", "UInt64"],
  ["hits_after", "UInt64"],
  ...VISIT_DAY_ADDED,
];

/**
 * Ordered for the reads (a website's range of days, then each visitor's hits in time: visits are
 * formed from them at read time), a partition per month (retention drops old months whole,
 * a website's deletion touches only its parts' granules).
 */
const ORDER = "PARTITION BY toYYYYMM(day) ORDER BY (website_id, day, visitor, timestamp)";

/** Times that grow along a visitor's hits: stored as the differences between neighbours, which are small. */
const DELTA_COLUMNS = new Set(["timestamp", "local_time", "arrival", "start", "start_local"]);

/**
 * How a column is compressed: ZSTD, which takes pages, cities, referrers and the repeated
 * values of a visitor's neighbouring hits to less than half of ClickHouse's default (LZ4);
 * times as differences first (docs/architecture.md).
 */
export const codecOf = (name: string): string => `CODEC(${DELTA_COLUMNS.has(name) ? "Delta, " : ""}ZSTD(3))`;

/**
 * The statement that sets every column's compression (`codecOf`) on a table made before its
 * columns had one (idempotent; a change of metadata: parts written before keep theirs until
 * merged). On a cluster: each shard's table, where the data is.
 */
function codecStatement(table: string, columns: readonly (readonly [string, string])[], place: SchemaPlace): string {
  const modify = columns.map(([name]) => `MODIFY COLUMN ${quoted(name)} ${codecOf(name)}`).join(", ");
  return place.cluster === undefined
    ? `ALTER TABLE ${table} ${modify}`
    : `ALTER TABLE ${table}_local ON CLUSTER ${quoted(place.cluster)} ${modify}`;
}

/** The statements that add columns added since a table (on a cluster: its shards' tables and the one in front) was first made (idempotent). */
function addColumns(table: string, local: string, added: readonly (readonly [string, string])[], place: SchemaPlace): string[] {
  const add = added.map(([name, type]) => `ADD COLUMN IF NOT EXISTS ${quoted(name)} ${type}`).join(", ");
  if (place.cluster === undefined) return [`ALTER TABLE ${table} ${add}`];
  const onCluster = `ON CLUSTER ${quoted(place.cluster)}`;
  return [`ALTER TABLE ${local} ${onCluster} ${add}`, `ALTER TABLE ${table} ${onCluster} ${add}`];
}

/** The statements that add the columns added since a table was first made (idempotent). */
export function upgradeStatements(place: SchemaPlace = {}): string[] {
  return [...addColumns(HITS_TABLE, LOCAL_HITS_TABLE, ADDED, place), codecStatement(HITS_TABLE, HIT_COLUMNS, place)];
}

const columnList = (columns: readonly (readonly [string, string])[]) =>
  columns.map(([name, type]) => `  ${quoted(name)} ${type} ${codecOf(name)}`).join(",\n");

/** A table of the stored visits: made like `tally_hits` (on a cluster, a replicated table per shard behind a Distributed one). */
interface TableOf {
  name: string;
  columns: readonly (readonly [string, string])[];
  /** The engine's name without `Replicated`, and its arguments. */
  engine: string;
  arguments?: string;
  order: string;
  /** On a cluster: how the Distributed table sends rows to shards. */
  sharding: string;
}

function tableStatements(table: TableOf, place: SchemaPlace): string[] {
  const body = `(\n${columnList(table.columns)}\n)`;
  const args = table.arguments === undefined ? "" : `(${table.arguments})`;
  if (place.cluster === undefined)
    return [`CREATE TABLE IF NOT EXISTS ${table.name} ${body} ENGINE = ${table.engine}${args} ${table.order}`];
  const onCluster = `ON CLUSTER ${quoted(place.cluster)}`;
  const local = `${table.name}_local`;
  const replicated = [
    `'/clickhouse/tables/{shard}/{database}/${local}'`,
    "'{replica}'",
    ...(table.arguments === undefined ? [] : [table.arguments]),
  ];
  return [
    `CREATE TABLE IF NOT EXISTS ${local} ${onCluster} ${body} ENGINE = Replicated${table.engine}(${replicated.join(", ")}) ${table.order}`,
    `CREATE TABLE IF NOT EXISTS ${table.name} ${onCluster} AS ${local} ENGINE = Distributed(${quoted(place.cluster)}, currentDatabase(), ${local}, ${table.sharding})`,
  ];
}

/**
 * The statements that make the stored visits' tables (idempotent): `tally_visits` and
 * `tally_visitor_days`, ordered for the reads (a website's range of days, each day's
 * version), a partition per month as `tally_hits` (retention drops the same months);
 * `tally_visit_days`, one row per stored day and forming (the latest version kept). On a
 * cluster visits and visitor-days are spread over the shards, a website's days kept on one.
 */
export function visitSchemaStatements(place: SchemaPlace = {}): string[] {
  return [
    ...tableStatements(
      {
        name: VISITS_TABLE,
        columns: VISIT_ROW_COLUMNS,
        engine: "MergeTree",
        order: "PARTITION BY toYYYYMM(vday) ORDER BY (website_id, vday, version)",
        sharding: "rand()",
      },
      place,
    ),
    ...tableStatements(
      {
        name: VISITOR_DAYS_TABLE,
        columns: VISITOR_DAY_COLUMNS,
        engine: "MergeTree",
        order: "PARTITION BY toYYYYMM(day) ORDER BY (website_id, day, version)",
        sharding: "rand()",
      },
      place,
    ),
    ...tableStatements(
      {
        name: VISIT_DAYS_TABLE,
        columns: VISIT_DAY_COLUMNS,
        engine: "ReplacingMergeTree",
        arguments: "version",
        order: "PARTITION BY toYYYYMM(day) ORDER BY (website_id, day)",
        sharding: "website_id",
      },
      place,
    ),
    ...addColumns(VISITS_TABLE, `${VISITS_TABLE}_local`, VISIT_ADDED, place),
    ...addColumns(VISIT_DAYS_TABLE, `${VISIT_DAYS_TABLE}_local`, VISIT_DAY_ADDED, place),
    codecStatement(VISITS_TABLE, VISIT_ROW_COLUMNS, place),
    codecStatement(VISITOR_DAYS_TABLE, VISITOR_DAY_COLUMNS, place),
    codecStatement(VISIT_DAYS_TABLE, VISIT_DAY_COLUMNS, place),
  ];
}

/** The statements that make the tables, in order; idempotent (`IF NOT EXISTS`). */
export function schemaStatements(place: SchemaPlace = {}): string[] {
  const columns = columnList(HIT_COLUMNS);
  const settings = `SETTINGS non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}, replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;
  if (place.cluster === undefined) {
    return [`CREATE TABLE IF NOT EXISTS ${HITS_TABLE} (\n${columns}\n) ENGINE = MergeTree ${ORDER}\n${settings}`];
  }
  const onCluster = `ON CLUSTER ${quoted(place.cluster)}`;
  return [
    `CREATE TABLE IF NOT EXISTS ${LOCAL_HITS_TABLE} ${onCluster} (\n${columns}\n) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/${LOCAL_HITS_TABLE}', '{replica}') ${ORDER}\n${settings}`,
    // A visitor's hits stay on one shard: each shard forms its visitors' visits alone.
    `CREATE TABLE IF NOT EXISTS ${HITS_TABLE} ${onCluster} AS ${LOCAL_HITS_TABLE} ENGINE = Distributed(${quoted(place.cluster)}, currentDatabase(), ${LOCAL_HITS_TABLE}, cityHash64(website_id, visitor))`,
  ];
}
