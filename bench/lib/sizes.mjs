// Database size per million pageviews: Tally's tables (rollups, the visits-and-hits
// store, its dictionary and visitor rows) beside the raw events table holding the same hits.

/** Tables and indexes that are the bench's own, not Tally's. */
const RAW = new Set(["raw_events", "raw_events_website_ts"]);
const BENCH = new Set(["bench_meta", "sqlite_autoindex_bench_meta_1"]);
const MB = 1024 * 1024;

/** Bytes per table or index of a SQLite database (its dbstat pages). */
export function sqliteTableSizes(sqlite) {
  return new Map(
    sqlite
      .prepare("select name, sum(pgsize) as bytes from dbstat group by name")
      .all()
      .map((row) => [row.name, Number(row.bytes)]),
  );
}

/** Bytes per table of a PostgreSQL database, indexes and TOAST included, partitions under their table. */
export async function postgresTableSizes(pool) {
  const { rows } = await pool.query(`
    select coalesce(parent.relname, c.relname) as name, sum(pg_total_relation_size(c.oid))::bigint as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    left join pg_inherits i on i.inhrelid = c.oid left join pg_class parent on parent.oid = i.inhparent
    where n.nspname = 'public' and c.relkind = 'r'
    group by 1`);
  return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
}

/** MB per million pageviews, Tally's and the raw table's, with Tally's largest parts. */
export function databaseSizes(bytesByName, pageviews) {
  let tally = 0;
  let raw = 0;
  const parts = {};
  for (const [name, bytes] of bytesByName) {
    if (BENCH.has(name)) continue;
    if (RAW.has(name)) raw += bytes;
    else {
      tally += bytes;
      if (bytes >= MB / 10) parts[name] = Math.round((bytes / MB) * 10) / 10;
    }
  }
  const perMillion = (bytes) => Math.round((bytes / MB / (pageviews / 1e6)) * 10) / 10;
  return {
    tallyPerMillion: perMillion(tally),
    rawPerMillion: perMillion(raw),
    tallyMB: Math.round(tally / MB),
    rawMB: Math.round(raw / MB),
    pageviews,
    parts,
  };
}
