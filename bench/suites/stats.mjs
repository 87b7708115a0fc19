// Figure 3 (and 6 on PostgreSQL): p50/p95 of every statistic over 7, 30 and 365 days,
// against the same question answered by GROUP BY over raw events in the same database.
//   node bench/suites/stats.mjs [--quick] [--backend sqlite|postgres]
import Database from "better-sqlite3";
import pg from "pg";
import { args, log, percentile, report, round } from "../lib/measure.mjs";
import { importDist } from "../lib/paths.mjs";
import { createBenchDatabase } from "../lib/postgres.mjs";
import { PG_RAW_INSERT, PG_RAW_SCHEMA, RAW_COLUMNS, baselineSql, columnsOf, rangeBounds } from "../lib/raw-events.mjs";
import { ensureStatsDatabase } from "../lib/stats-db.mjs";

const opts = args();
const quick = Boolean(opts.quick);
const backend = opts.backend ?? "sqlite";
const SIZE = quick ? { pageviews: 300_000, visitors: 30_000, pages: 5000 } : { pageviews: 10_000_000, visitors: 1_000_000, pages: 5000 };
const REPS = quick ? 5 : 20;
const WARMUP = quick ? 1 : 3;
/** Raw baseline: at least one timed run after a warm-up; stop once this much time went into one (stat, range). */
const BASELINE_BUDGET_MS = quick ? 250 : 3000;

const { STAT_NAMES, createTally } = await importDist("core");
const { path, meta } = await ensureStatsDatabase({ ...SIZE, log });

const days = (n) => new Date(Date.parse(`${meta.endDay}T00:00:00Z`) - (n - 1) * 86_400_000).toISOString().slice(0, 10);
const RANGES = [
  ["7d", days(7), meta.endDay],
  ["30d", days(30), meta.endDay],
  ["365d", days(365), meta.endDay],
];

let tally;
let runBaseline;
let cleanup = async () => {};
let accountId = meta.accountId;
let websiteId = meta.websiteId;

if (backend === "sqlite") {
  const sqlite = new Database(path);
  tally = createTally({ database: sqlite });
  const statements = new Map();
  runBaseline = async (name, params) => {
    let statement = statements.get(name);
    if (!statement) statements.set(name, (statement = sqlite.prepare(baselineSql(name, "sqlite"))));
    return statement.all(...params);
  };
  cleanup = async () => {
    await tally.close();
    sqlite.close();
  };
} else {
  const database = await createBenchDatabase("stats");
  cleanup = async () => {
    await tally?.close();
    await pool?.end();
    await database.drop();
  };
  var pool = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    tally = createTally({ database: database.url });
    ({ accountId } = await tally.accounts.create({ name: "bench" }));
    ({ id: websiteId } = await tally.websites.create(accountId, { domain: meta.domain, timezone: meta.timezone }));
    await copyToPostgres(path, pool, meta.websiteId, websiteId);
  } catch (error) {
    await cleanup();
    throw error;
  }
  runBaseline = async (name, params) => (await pool.query({ name: `baseline_${name}`, text: baselineSql(name, "postgres"), values: params })).rows;
}

const results = [];
const agreement = { range: "30d", same: [], different: [] };
try {
  for (const [range, from, to] of RANGES) {
    const [start, end] = rangeBounds(from, to, meta.timezone);
    for (const name of STAT_NAMES) {
      const query = { name, from, to };
      let answer;
      for (let i = 0; i < WARMUP; i++) answer = await tally.stats.query(accountId, websiteId, query);
      const samples = [];
      for (let i = 0; i < REPS; i++) {
        const t = performance.now();
        await tally.stats.query(accountId, websiteId, query);
        samples.push(performance.now() - t);
      }
      const params = [websiteId, start, end];
      let t = performance.now();
      const baselineRows = await runBaseline(name, params);
      const first = performance.now() - t;
      const baselineSamples = first > BASELINE_BUDGET_MS / 3 ? [first] : [];
      let spent = first;
      while (baselineSamples.length < REPS && (baselineSamples.length === 0 || spent < BASELINE_BUDGET_MS)) {
        t = performance.now();
        await runBaseline(name, params);
        const ms = performance.now() - t;
        baselineSamples.push(ms);
        spent += ms;
      }
      const p50 = percentile(samples, 50);
      const baselineP50 = percentile(baselineSamples, 50);
      results.push({
        name,
        range,
        from,
        to,
        p50: round(p50, 3),
        p95: round(percentile(samples, 95), 3),
        runs: samples.length,
        baselineP50: round(baselineP50, 3),
        baselineRuns: baselineSamples.length,
        speedup: round(baselineP50 / p50, 1),
        rows: answer.total,
      });
      if (range === agreement.range) {
        const same = JSON.stringify(answer.data) === JSON.stringify(baselineRows.map((r) => ({ value: String(r.value), count: Number(r.count) })));
        (same ? agreement.same : agreement.different).push(name);
      }
      log(`  ${backend} ${range.padEnd(4)} ${name.padEnd(15)} p50 ${round(p50, 2)} ms   raw ${round(baselineP50, 1)} ms`);
    }
  }
} finally {
  await cleanup();
}

const label = backend === "sqlite" ? "SQLite" : "PostgreSQL";
const figures = [];
for (const [range] of RANGES) {
  const rows = results.filter((r) => r.range === range);
  const slowest = rows.reduce((a, b) => (b.p50 > a.p50 ? b : a));
  const weakest = rows.reduce((a, b) => (b.speedup < a.speedup ? b : a));
  const baselineSlowest = rows.reduce((a, b) => (b.baselineP50 > a.baselineP50 ? b : a));
  figures.push({
    id: `stats.${backend}.${range}.p50`,
    group: `stats ${label}`,
    name: `stats ${label} ${range}: slowest p50 (${slowest.name})`,
    value: slowest.p50,
    unit: "ms",
    baseline: baselineSlowest.baselineP50,
    baselineLabel: `raw GROUP BY, slowest (${baselineSlowest.name})`,
    ratio: round(baselineSlowest.baselineP50 / slowest.p50, 1),
    ratioLabel: "× faster",
    target: range === "365d" ? "p50 ≤ 20 ms" : null,
    met: range === "365d" ? slowest.p50 <= 20 : null,
    details: { p95OfSlowest: slowest.p95 },
  });
  figures.push({
    id: `stats.${backend}.${range}.speedup`,
    group: `stats ${label}`,
    name: `stats ${label} ${range}: smallest speed-up (${weakest.name})`,
    value: weakest.p50,
    unit: "ms",
    baseline: weakest.baselineP50,
    baselineLabel: `raw GROUP BY (${weakest.name})`,
    ratio: weakest.speedup,
    ratioLabel: "× faster",
    target: "≥ 100× faster",
    met: weakest.speedup >= 100,
  });
}
figures.push({
  id: `stats.${backend}.table`,
  group: `stats ${label}`,
  kind: "stats-table",
  name: `stats latency per statistic (${label})`,
  details: {
    database: { ...meta, path: backend === "sqlite" ? path : "copied from the SQLite file into a fresh PostgreSQL database" },
    repetitions: REPS,
    warmup: WARMUP,
    agreement,
    results,
  },
});
report(figures);
process.exit(0);

/** Same rollups and raw rows as the SQLite file, into the fresh PostgreSQL database. */
async function copyToPostgres(sqlitePath, pool, fromWebsite, toWebsite) {
  const source = new Database(sqlitePath, { readonly: true });
  const started = performance.now();
  try {
    log(`  postgres: copying rollups and raw events…`);
    let batch = [];
    const flushRollups = async () => {
      if (batch.length === 0) return;
      await pool.query(
        "insert into rollups (website_id, name, period, value, count) select * from unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::bigint[])",
        columnsOf(batch, 5),
      );
      batch = [];
    };
    for (const r of source.prepare("select name, period, value, count from rollups where website_id = ?").raw().iterate(fromWebsite)) {
      batch.push([toWebsite, ...r]);
      if (batch.length >= 20_000) await flushRollups();
    }
    await flushRollups();
    await pool.query(PG_RAW_SCHEMA);
    const flushRaw = async () => {
      if (batch.length === 0) return;
      await pool.query(PG_RAW_INSERT, columnsOf(batch, RAW_COLUMNS.length));
      batch = [];
    };
    let n = 0;
    for (const r of source.prepare(`select ${RAW_COLUMNS.join(", ")} from raw_events where website_id = ?`).raw().iterate(fromWebsite)) {
      r[0] = toWebsite;
      batch.push(r);
      if (batch.length >= 20_000) await flushRaw();
      if (++n % 2_000_000 === 0) log(`  postgres: ${n.toLocaleString("en-US")} raw rows`);
    }
    await flushRaw();
    await pool.query("create index raw_events_website_ts on raw_events (website_id, ts)");
    await pool.query("vacuum analyze raw_events");
    await pool.query("vacuum analyze rollups");
    log(`  postgres: copied in ${Math.round((performance.now() - started) / 1000)} s`);
  } finally {
    source.close();
  }
}
