// ClickHouse ingest (chDB, in this process): tally.collect() over a generated mix into
// ClickHouse (settings and accounts in SQLite), against two baselines of the same run: a plain batched
// JSONEachRow insert of the same rows (those Tally wrote to tally_hits) into one MergeTree
// of the same columns, and Tally's ingest into SQLite alone. Rates are per CPU-second of
// this process (chDB's threads are this process's): the machine may be loaded.
//   node bench/suites/clickhouse-ingest.mjs [--quick] [--hits N]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOMAIN, TIMEZONE, generateHits } from "../generate.mjs";
import { openClickhouse, queryRows } from "../lib/clickhouse.mjs";
import { args, log, report, round } from "../lib/measure.mjs";
import { importDist } from "../lib/paths.mjs";
import { EXCLUDE_PARAMS } from "../lib/stats-db.mjs";

const opts = args();
const HITS = Number(opts.hits ?? (opts.quick ? 100_000 : 1_000_000));
const MIX = { hits: HITS, days: 30, pages: 3000, visitors: 50_000 };
/** Rows per insert of the raw baseline: a batch of Tally's write queue (20,000 hits or a second). */
const BATCH = 20_000;

const { createTally } = await importDist("core");
log(`ingest clickhouse: generating ${HITS.toLocaleString("en-US")} hits…`);
const hits = [...generateHits(MIX)];

/** Wall and CPU time of `fn` (CPU: every thread of this process, chDB's and SQLite's writer included). */
async function timed(fn) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

/** Every hit through tally.collect into a fresh SQLite file (and ClickHouse when `clickhouse` is given), flushed. */
async function ingest(database, clickhouse) {
  const tally = createTally({ database, ...(clickhouse ? { clickhouse } : {}), retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
  const { accountId } = await tally.accounts.create({ name: "bench" });
  await tally.websites.create(accountId, { domain: DOMAIN, timezone: TIMEZONE, exclude_params: EXCLUDE_PARAMS });
  const time = await timed(async () => {
    for (const hit of hits) await tally.collect(hit);
    await tally.flush();
  });
  await tally.close();
  return time;
}

const dir = mkdtempSync(join(tmpdir(), "tally-bench-clickhouse-ingest-"));
const url = `chdb:${join(dir, "clickhouse")}`;
let sqlite;
let tally;
let raw;
let rows;
try {
  sqlite = await ingest(`file:${join(dir, "alone.sqlite")}`);
  log(`  tally.collect, SQLite alone: ${Math.round(hits.length / (sqlite.cpuMs / 1000)).toLocaleString("en-US")} hits per CPU-second`);
  tally = await ingest(`file:${join(dir, "beside.sqlite")}`, url);
  log(`  tally.collect into ClickHouse: ${Math.round(hits.length / (tally.cpuMs / 1000)).toLocaleString("en-US")} hits per CPU-second`);

  // The raw baseline: the rows Tally wrote, read back, inserted again in batches into a MergeTree of the same columns.
  const client = await openClickhouse(url);
  try {
    const written = await queryRows(client, "SELECT * FROM tally_hits");
    rows = written.length;
    await client.command({
      query: "CREATE TABLE raw_hits AS tally_hits ENGINE = MergeTree ORDER BY (website_id, day, visitor, timestamp)",
    });
    raw = await timed(async () => {
      for (let i = 0; i < written.length; i += BATCH)
        await client.insert({ table: "raw_hits", values: written.slice(i, i + BATCH), format: "JSONEachRow" });
    });
    const [copied] = await queryRows(client, "SELECT count() AS n FROM raw_hits");
    if (Number(copied.n) !== rows) throw new Error(`raw_hits holds ${copied.n} rows, tally_hits ${rows}`);
  } finally {
    await client.close();
  }
  log(`  raw batched insert: ${Math.round(rows / (raw.cpuMs / 1000)).toLocaleString("en-US")} rows per CPU-second (${rows} rows)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Hits (or rows) per CPU-second and per second. */
const rates = (count, time) => ({ perCpuSecond: Math.round(count / (time.cpuMs / 1000)), perSecond: Math.round(count / (time.ms / 1000)) });
const ofTally = rates(hits.length, tally);
const ofRaw = rates(rows, raw);
const ofSqlite = rates(hits.length, sqlite);
const details = {
  hits: hits.length,
  rowsInClickhouse: rows,
  tally: { ...ofTally, seconds: round(tally.ms / 1000, 2), cpuSeconds: round(tally.cpuMs / 1000, 2) },
  raw: { ...ofRaw, seconds: round(raw.ms / 1000, 2), cpuSeconds: round(raw.cpuMs / 1000, 2) },
  sqliteAlone: { ...ofSqlite, seconds: round(sqlite.ms / 1000, 2), cpuSeconds: round(sqlite.cpuMs / 1000, 2) },
  wallRatioToRaw: round(ofTally.perSecond / ofRaw.perSecond, 2),
  wallRatioToSqlite: round(ofTally.perSecond / ofSqlite.perSecond, 2),
};
const toRaw = ofTally.perCpuSecond / ofRaw.perCpuSecond;
const toSqlite = ofTally.perCpuSecond / ofSqlite.perCpuSecond;
report([
  {
    id: "ingest.clickhouse",
    group: "ClickHouse",
    name: "ingest in-process, tally.collect into ClickHouse (chDB) vs a raw batched insert, per CPU-second",
    value: ofTally.perCpuSecond,
    unit: "hits/s",
    baseline: ofRaw.perCpuSecond,
    baselineLabel: "plain batched JSONEachRow insert of the same rows (ClickHouse)",
    ratio: round(toRaw, 2),
    ratioLabel: "× baseline",
    target: "≥ 0.5× baseline",
    met: toRaw >= 0.5,
    details,
  },
  {
    id: "ingest.clickhouse.sqlite",
    group: "ClickHouse",
    name: "ingest in-process, tally.collect into ClickHouse (chDB) vs into SQLite, per CPU-second",
    value: ofTally.perCpuSecond,
    unit: "hits/s",
    baseline: ofSqlite.perCpuSecond,
    baselineLabel: "Tally's ingest into SQLite alone, same hits",
    ratio: round(toSqlite, 2),
    ratioLabel: "× SQLite",
    target: "≥ 2× SQLite",
    met: toSqlite >= 2,
    details,
  },
]);
process.exit(0);
