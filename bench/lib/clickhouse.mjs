// ClickHouse embedded through chDB for the clickhouse suites: a client of a chDB folder (Tally's own connection code), the raw events table copied in,
// and bytes on disk per table.
import Database from "better-sqlite3";
import { RAW_COLUMNS } from "./raw-events.mjs";
import { importDist } from "./paths.mjs";

/** A client of the chDB folder (`chdb:PATH`), through the same code Tally opens it with. */
export async function openClickhouse(url) {
  const { connectClickhouse } = await importDist("internal");
  return connectClickhouse(url);
}

/** Runs a statement that returns rows, its `{name:Type}` parameters given. */
export async function queryRows(client, query, params = {}, settings = {}) {
  const result = await client.query({ query, query_params: params, format: "JSONEachRow", clickhouse_settings: settings });
  return result.json();
}

/** Types of the raw table's columns in ClickHouse: the same rows as SQLite's and PostgreSQL's raw_events. */
const TYPES = {
  website_id: "Int64",
  ts: "Int64",
  day: "String",
  hour: "String",
  visitor: "Int64",
  visit: "Int64",
  page: "String",
  is_visit_start: "UInt8",
};
/** The raw table: every column as it comes, sorted by website and time (the raw table's index elsewhere). */
const RAW_SCHEMA = `CREATE TABLE raw_events (${RAW_COLUMNS.map((c) => `${c} ${TYPES[c] ?? "Nullable(String)"}`).join(", ")})
  ENGINE = MergeTree ORDER BY (website_id, ts)`;

/** Copies the raw events of the bench's SQLite file into ClickHouse's `raw_events`, in batches. */
export async function copyRawEvents(sqlitePath, client, { batch = 50_000, log = () => {} } = {}) {
  await client.command({ query: RAW_SCHEMA });
  const source = new Database(sqlitePath, { readonly: true });
  let rows = [];
  let n = 0;
  const flush = async () => {
    if (rows.length === 0) return;
    await client.insert({ table: "raw_events", values: rows, format: "JSONEachRow" });
    rows = [];
  };
  try {
    for (const r of source
      .prepare(`select ${RAW_COLUMNS.join(", ")} from raw_events`)
      .raw()
      .iterate()) {
      rows.push(Object.fromEntries(RAW_COLUMNS.map((column, index) => [column, r[index]])));
      if (rows.length >= batch) await flush();
      if (++n % 2_000_000 === 0) log(`  clickhouse: ${n.toLocaleString("en-US")} raw rows`);
    }
    await flush();
  } finally {
    source.close();
  }
  return n;
}

/** Bytes on disk of each table's active parts (`system.parts`), after merging each table's parts into one per partition. */
export async function clickhouseTableSizes(client, tables) {
  for (const table of tables) await client.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
  const rows = await queryRows(
    client,
    `SELECT table, sum(bytes_on_disk) AS bytes, sum(rows) AS rows FROM system.parts
     WHERE active AND database = currentDatabase() AND table IN {tables:Array(String)} GROUP BY table`,
    { tables },
  );
  return new Map(rows.map((row) => [row.table, { bytes: Number(row.bytes), rows: Number(row.rows) }]));
}

/** Every table Tally keeps in ClickHouse: the hits, and the visits, visitor-days and days kept for closed days once read. */
export const TALLY_TABLES = ["tally_hits", "tally_visits", "tally_visitor_days", "tally_visit_days"];

/** MB per million pageviews of Tally's tables (all of them, and each) and of ClickHouse's raw table, beside Tally's SQLite database (`sqlite`: databaseSizes of it). */
export function clickhouseSizes(tables, sqlite) {
  const MB = 1024 * 1024;
  const perMillion = (bytes) => Math.round((bytes / MB / (sqlite.pageviews / 1e6)) * 10) / 10;
  const sizeOf = (table) => tables.get(table) ?? { bytes: 0, rows: 0 };
  const tallyBytes = TALLY_TABLES.reduce((total, table) => total + sizeOf(table).bytes, 0);
  const raw = sizeOf("raw_events");
  return {
    tallyPerMillion: perMillion(tallyBytes),
    tablesPerMillion: Object.fromEntries(TALLY_TABLES.map((table) => [table, perMillion(sizeOf(table).bytes)])),
    tableRows: Object.fromEntries(TALLY_TABLES.map((table) => [table, sizeOf(table).rows])),
    sqlitePerMillion: sqlite.tallyPerMillion,
    rawPerMillion: perMillion(raw.bytes),
    tallyMB: Math.round(tallyBytes / MB),
    rawMB: Math.round(raw.bytes / MB),
    rawRows: raw.rows,
    pageviews: sqlite.pageviews,
  };
}
