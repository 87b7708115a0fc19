import { HIT_DIMENSIONS, type HitDimension } from "../../model/dimensions.js";

/** Where the tables are made: one server (or chDB), or every node of a cluster. */
export interface SchemaPlace {
  /** A cluster of the servers' configuration (`remote_servers`): tables made `ON CLUSTER`, replicated, with a Distributed table in front. */
  cluster?: string | undefined;
}

/** The table of hits every statistic is read from (on a cluster: the Distributed table in front of the shards' tables). */
export const HITS_TABLE = "tally_hits";
/** On a cluster: each shard's replicated table, behind `tally_hits`. */
export const LOCAL_HITS_TABLE = "tally_hits_local";

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

/**
 * Ordered for the reads (a website's range of days, then each visitor's hits in time: visits are
 * formed from them at read time), a partition per month (retention drops old months whole,
 * a website's deletion touches only its parts' granules).
 */
const ORDER = "PARTITION BY toYYYYMM(day) ORDER BY (website_id, day, visitor, timestamp)";

/** The statements that add the columns added since a table was first made (idempotent). */
export function upgradeStatements(place: SchemaPlace = {}): string[] {
  const add = ADDED.map(([name, type]) => `ADD COLUMN IF NOT EXISTS ${quoted(name)} ${type}`).join(", ");
  if (place.cluster === undefined) return [`ALTER TABLE ${HITS_TABLE} ${add}`];
  const onCluster = `ON CLUSTER ${quoted(place.cluster)}`;
  return [`ALTER TABLE ${LOCAL_HITS_TABLE} ${onCluster} ${add}`, `ALTER TABLE ${HITS_TABLE} ${onCluster} ${add}`];
}

/** The statements that make the tables, in order; idempotent (`IF NOT EXISTS`). */
export function schemaStatements(place: SchemaPlace = {}): string[] {
  const columns = HIT_COLUMNS.map(([name, type]) => `  ${quoted(name)} ${type}`).join(",\n");
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
