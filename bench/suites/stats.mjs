// Figure 3 (and 6 on PostgreSQL, and ClickHouse's): p50/p95 of every statistic over 7, 30 and 365 days,
// of four filtered queries over 30 and 365 days, and of a 4-step funnel (30 and 365 days)
// and a 3-deep journey (30 days), each against the same question answered by GROUP BY
// (window functions and self-joins for funnels and journeys) over raw events in the same
// database; and the database's size per million pageviews beside the raw table's. On ClickHouse
// (chDB in this process): the SQLite database's hits copied by `tally copy --to-clickhouse`, the
// raw table copied beside them, 30 and 365 days only, and the size of every table Tally keeps there
// (the hits, and the visits kept once the reads formed them) beside SQLite's.
//   node bench/suites/stats.mjs [--quick|--smoke] [--backend sqlite|postgres|clickhouse] [--statistics page,region,…]
// `--statistics` measures only the unfiltered statistics named (`page` among them: the day
// blocks' figure compares with it); the filtered queries, funnels and journeys run as always.
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clickhouseSizes, clickhouseTableSizes, copyRawEvents, openClickhouse, queryRows, TALLY_TABLES } from "../lib/clickhouse.mjs";
import { args, log, percentile, report, round } from "../lib/measure.mjs";
import { importDist } from "../lib/paths.mjs";
import { createBenchDatabase, createBenchPool } from "../lib/postgres.mjs";
import {
  PG_RAW_INSERT,
  PG_RAW_SCHEMA,
  RAW_COLUMNS,
  baselineSql,
  columnsOf,
  rangeBounds,
  rawEquals,
  visitsViewing,
} from "../lib/raw-events.mjs";
import { funnelBaselineSql, journeyBaselineSql } from "../lib/raw-paths.mjs";
import { databaseSizes, sqliteTableSizes, postgresTableSizes } from "../lib/sizes.mjs";
import { ensureStatsDatabase } from "../lib/stats-db.mjs";

const opts = args();
const mode = opts.smoke ? "smoke" : opts.quick ? "quick" : "full";
const backend = opts.backend ?? "sqlite";
const SIZE = {
  smoke: { pageviews: 20_000, visitors: 3_000, pages: 300 },
  quick: { pageviews: 300_000, visitors: 30_000, pages: 5000 },
  full: { pageviews: 10_000_000, visitors: 1_000_000, pages: 5000 },
}[mode];
// ClickHouse forms visits when read (each statement ~0.1 s of CPU in its analyzer, whatever the data):
// fewer runs keep a full run within the hour, and the smoke run short.
const REPS = { smoke: backend === "clickhouse" ? 1 : 2, quick: 5, full: backend === "clickhouse" ? 7 : 20 }[mode];
const FILTERED_REPS = { smoke: backend === "clickhouse" ? 1 : 2, quick: 5, full: 7 }[mode];
const WARMUP = mode === "full" ? 3 : mode === "smoke" && backend === "clickhouse" ? 0 : 1;
/** Raw baseline: at least one timed run after a warm-up; stop once this much time went into one (stat, range). */
const BASELINE_BUDGET_MS = { smoke: 50, quick: 250, full: 3000 }[mode];
/** The property broken down by `event_property` (the generator's Signup events carry a plan). */
const PROPERTY = { event: "Signup", property: "plan" };

const { ENGAGEMENT_STATISTICS, STAT_NAMES, copyDatabase, createTally } = await importDist("core");
const { copyHitsIntoClickhouse } = await importDist("internal");
// The engagement statistics have no raw baseline: the bench's data sends no engagement signals.
const named = typeof opts.statistics === "string" ? new Set(["page", ...opts.statistics.split(",")]) : null;
const COUNTED_STATISTICS = STAT_NAMES.filter((name) => !ENGAGEMENT_STATISTICS.includes(name) && (!named || named.has(name)));
const { path, meta } = await ensureStatsDatabase({ ...SIZE, log });

const days = (n) => new Date(Date.parse(`${meta.endDay}T00:00:00Z`) - (n - 1) * 86_400_000).toISOString().slice(0, 10);
const RANGES = [
  ["7d", days(7), meta.endDay],
  ["30d", days(30), meta.endDay],
  ["365d", days(365), meta.endDay],
].filter(([range]) => backend !== "clickhouse" || range !== "7d");

/** Filtered queries (segments issue): a Tally query and the raw conditions answering the same question. */
const FILTERED = [
  {
    id: "one-filter",
    label: "page, filter device is mobile",
    query: { name: "page", filter: ["device:is:mobile"] },
    raw: () => ["page", { extra: rawEquals("device", "mobile") }],
  },
  {
    id: "two-filters",
    label: "referrer, filters device is desktop and browser is Chrome",
    query: { name: "referrer", filter: ["device:is:desktop", "browser:is:Chrome"] },
    raw: () => ["referrer", { extra: `${rawEquals("device", "desktop")} and ${rawEquals("browser", "Chrome")}` }],
  },
  {
    id: "page-filter",
    label: "browser, filter page is /pricing",
    query: { name: "browser", filter: ["page:is:/pricing"] },
    raw: (bounds) => ["browser", { extra: visitsViewing("/pricing", meta.websiteId, bounds) }],
  },
  {
    id: "property-breakdown",
    label: "event_property Signup/plan, filter device is desktop",
    query: { name: "event_property", ...PROPERTY, filter: ["device:is:desktop"] },
    raw: () => ["event_property", { event: PROPERTY.event, prop: PROPERTY.property, extra: rawEquals("device", "desktop") }],
  },
];

/** Plausible's Stats API v2 (`POST /api/v2/query`) under a filter: browsers of mobile visitors, three metrics. */
const V2_QUERY = {
  id: "v2-query",
  label: "Stats API v2: visit:browser with visitors, pageviews, bounce_rate, filter visit:device is mobile",
  body: (from, to) => ({
    site_id: meta.domain,
    date_range: [from, to],
    metrics: ["visitors", "pageviews", "bounce_rate"],
    dimensions: ["visit:browser"],
    filters: [["is", "visit:device", ["mobile"]]],
  }),
};
/** Funnel and journey (issue 27): the steps, and the journey's start and depth. */
const FUNNEL = { name: "bench 4-step", steps: ["page:/", "page:/blog/*", "page:/pricing", "event:Signup"] };
const JOURNEY = { page: "/pricing", depth: 3 };

/** Where the statistics were read from, beside the SQLite file's. */
const COPIED_TO_POSTGRES = "copied from the SQLite file (tally copy) into a fresh PostgreSQL database";
const COPIED_TO_CLICKHOUSE = "the SQLite file's hits copied (tally copy --to-clickhouse) into a fresh chDB folder";

let tally;
/** What buildBlocks did. */
let dayBlocks;
let runBaseline;
let sizes;
let cleanup = async () => {};
/** Measures what only exists once the statistics were read (ClickHouse's kept visits). */
let afterReads = async () => {};
const { accountId, websiteId } = meta;

if (backend === "sqlite") {
  const sqlite = new Database(path);
  // No retention job: the data set ends in the past, and the filtered queries read its whole year.
  tally = createTally({ database: sqlite, retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
  await buildBlocks();
  sizes = databaseSizes(sqliteTableSizes(sqlite), meta.pageviews);
  const statements = new Map();
  runBaseline = async (key, sql, params) => {
    let statement = statements.get(key);
    if (!statement) statements.set(key, (statement = sqlite.prepare(sql)));
    return statement.all(...params);
  };
  cleanup = async () => {
    await tally.close();
    sqlite.close();
  };
} else if (backend === "clickhouse") {
  const dir = mkdtempSync(join(tmpdir(), "tally-bench-clickhouse-"));
  const url = `chdb:${join(dir, "clickhouse")}`;
  const sqlite = new Database(path);
  let client;
  cleanup = async () => {
    await tally?.close();
    await client?.close();
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const t = performance.now();
    log(`  clickhouse: copying the hits (tally copy --to-clickhouse)…`);
    const copied = await copyHitsIntoClickhouse({ from: `file:${path}`, clickhouse: url });
    const copySeconds = round((performance.now() - t) / 1000, 1);
    log(`  clickhouse: ${copied.rows.toLocaleString("en-US")} hits and signals copied in ${copySeconds} s; copying raw events…`);
    client = await openClickhouse(url);
    await copyRawEvents(path, client, { log });
    // Merged as a server would have merged them by now (the copy writes a part per batch).
    await clickhouseTableSizes(client, ["tally_hits", "raw_events"]);
    tally = createTally({ database: sqlite, clickhouse: url, retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
    // Sized once the reads have kept the closed days' visits: every table Tally keeps counts.
    afterReads = async () => {
      const tables = await clickhouseTableSizes(client, [...TALLY_TABLES, "raw_events"]);
      sizes = { ...clickhouseSizes(tables, databaseSizes(sqliteTableSizes(sqlite), meta.pageviews)), copySeconds };
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
  // The raw statements' parameters: the website and the range (twice for a journey: the same values).
  runBaseline = async (key, sql, [website, start, end]) => queryRows(client, sql, { website, start, end });
} else {
  const database = await createBenchDatabase("stats");
  const pool = createBenchPool(database.url, { max: 2 });
  // The raw funnel's steps join CTEs whose row counts PostgreSQL estimates at a handful, so it
  // plans nested loops that compare every step's rows with every other's: at 10M pageviews a
  // month ran for more than ten minutes. Hash joins answer the same in seconds: the baseline
  // is the raw table asked well, not a planner's misestimate.
  pool.on("connect", (client) => client.query("set enable_nestloop = off").catch(() => {}));
  cleanup = async () => {
    await tally?.close();
    await pool.end();
    await database.drop();
  };
  try {
    await copyToPostgres(path, database.url, pool);
    tally = createTally({ database: database.url, retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
    await buildBlocks();
    await pool.query("vacuum analyze");
    sizes = databaseSizes(await postgresTableSizes(pool), meta.pageviews);
  } catch (error) {
    await cleanup();
    throw error;
  }
  runBaseline = async (key, sql, params) => (await pool.query({ name: `baseline_${key}`, text: sql, values: params })).rows;
}

/**
 * The day blocks filtered statistics read (built by Tally's schedule in an installation):
 * those the file lacks are built now, timed (none when an earlier run left them in the cached file).
 */
async function buildBlocks() {
  let t = performance.now();
  const built = await tally.buildDayBlocks();
  const buildSeconds = (performance.now() - t) / 1000;
  log(`  ${backend} day blocks: ${built} built in ${round(buildSeconds, 1)} s`);
  dayBlocks = { built, buildSeconds: round(buildSeconds, 1) };
}

/**
 * p50/p95 of a Tally query (`ask`, or a statistic's query) and p50 of its raw baseline; the last
 * answers of both. Beside the wall time, the p50 of each run's CPU time in this process (its
 * threads, SQLite's readers and chDB's included; not PostgreSQL's server): a loaded machine
 * stretches the one, hardly the other.
 */
async function measure(query, key, rawSql, params, reps) {
  const ask = typeof query === "function" ? query : () => tally.stats.query(accountId, websiteId, query);
  let answer;
  for (let i = 0; i < WARMUP; i++) answer = await ask();
  const samples = [];
  const cpuSamples = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    const cpu = process.cpuUsage();
    answer = await ask();
    const used = process.cpuUsage(cpu);
    samples.push(performance.now() - t);
    cpuSamples.push((used.user + used.system) / 1000);
  }
  let t = performance.now();
  const baselineRows = await runBaseline(key, rawSql, params);
  const first = performance.now() - t;
  const baselineSamples = first > BASELINE_BUDGET_MS / 3 ? [first] : [];
  let spent = first;
  while (baselineSamples.length < reps && (baselineSamples.length === 0 || spent < BASELINE_BUDGET_MS)) {
    t = performance.now();
    await runBaseline(key, rawSql, params);
    const ms = performance.now() - t;
    baselineSamples.push(ms);
    spent += ms;
  }
  const p50 = percentile(samples, 50);
  const baselineP50 = percentile(baselineSamples, 50);
  return {
    answer,
    baselineRows,
    timing: {
      p50: round(p50, 3),
      p95: round(percentile(samples, 95), 3),
      cpuP50: round(percentile(cpuSamples, 50), 3),
      runs: samples.length,
      baselineP50: round(baselineP50, 3),
      baselineRuns: baselineSamples.length,
      speedup: speedupOf(baselineP50, p50),
      rows: answer.total ?? answer.data.length,
    },
  };
}

/** How many times faster than the raw baseline: a tenth's precision, a hundredth's below 1× (ClickHouse's raw GROUP BY is often the faster). */
const speedupOf = (baselineMs, ms) => round(baselineMs / ms, baselineMs < ms ? 2 : 1);

/** p50/p95 of a Stats API v2 query (no raw baseline: it answers what the filtered v1 queries answer, one per row). */
async function measureV2(body) {
  let answer;
  for (let i = 0; i < WARMUP; i++) answer = await tally.stats.plausible(accountId, body);
  const samples = [];
  for (let i = 0; i < FILTERED_REPS; i++) {
    const t = performance.now();
    answer = await tally.stats.plausible(accountId, body);
    samples.push(performance.now() - t);
  }
  const p50 = percentile(samples, 50);
  log(`  ${backend} v2 query p50 ${round(p50, 2)} ms (${answer.results.length} rows)`);
  return { p50: round(p50, 3), p95: round(percentile(samples, 95), 3), runs: samples.length, rows: answer.results.length };
}
/**
 * Each step's visitors from Tally and from the raw rows, side by side: the raw rows count a
 * range's hits and Tally the visits that started in it, so they differ by a few at the edges.
 */
const funnelAgreement = ({ answer, baselineRows }) => ({
  visitors: answer.data.map((row) => row.visitors),
  rawVisitors: baselineRows.map((row) => Number(row.visitors)),
});

/** Tally's first rows and the raw top 10 as (value, count) pairs, equal or not. */
const sameRows = (answer, baselineRows) =>
  JSON.stringify(answer.data.slice(0, 10).map((row) => ({ value: row.value, count: row.count }))) ===
  JSON.stringify(baselineRows.map((r) => ({ value: String(r.value), count: Number(r.count) })));

/** The bench funnel's id: defined once in the cached database (a copy to PostgreSQL carries it). */
async function benchFunnel() {
  const existing = (await tally.funnels.list(accountId, websiteId)).find((funnel) => funnel.name === FUNNEL.name);
  return (existing ?? (await tally.funnels.create(accountId, websiteId, FUNNEL))).id;
}

const results = [];
const filtered = [];
const paths = [];
const agreement = { range: "30d", same: [], different: [] };
try {
  for (const [range, from, to] of RANGES) {
    const bounds = rangeBounds(from, to, meta.timezone);
    const params = [websiteId, ...bounds];
    for (const name of COUNTED_STATISTICS) {
      const extra = name === "event_property" ? PROPERTY : {};
      const { answer, baselineRows, timing } = await measure(
        { name, from, to, ...extra },
        name,
        baselineSql(name, backend, { event: PROPERTY.event, prop: PROPERTY.property }),
        params,
        REPS,
      );
      results.push({ name, range, from, to, ...timing });
      if (range === agreement.range) (sameRows(answer, baselineRows) ? agreement.same : agreement.different).push(name);
      log(
        `  ${backend} ${range.padEnd(4)} ${name.padEnd(15)} p50 ${round(timing.p50, 2)} ms (CPU ${round(timing.cpuP50, 1)})   raw ${round(timing.baselineP50, 1)} ms`,
      );
    }
    if (range === "7d") continue;
    const funnel = await benchFunnel();
    const funnelRun = await measure(
      () => tally.stats.funnel(accountId, websiteId, { funnel, from, to }),
      `funnel_${range}`,
      funnelBaselineSql(FUNNEL.steps, backend),
      params,
      FILTERED_REPS,
    );
    paths.push({ id: "funnel", label: `${FUNNEL.steps.length}-step funnel`, range, ...funnelRun.timing, ...funnelAgreement(funnelRun) });
    log(
      `  ${backend} ${range.padEnd(4)} funnel ${"".padEnd(20)} p50 ${round(funnelRun.timing.p50, 2)} ms   raw ${round(funnelRun.timing.baselineP50, 1)} ms`,
    );
    if (range === "30d") {
      const journeyRun = await measure(
        () => tally.stats.journey(accountId, websiteId, { from_page: JOURNEY.page, depth: JOURNEY.depth, from, to }),
        `journey_${range}`,
        journeyBaselineSql(`page:${JOURNEY.page}`, JOURNEY.depth, backend),
        [...params, ...params],
        FILTERED_REPS,
      );
      paths.push({ id: "journey", label: `${JOURNEY.depth}-deep journey from ${JOURNEY.page}`, range, ...journeyRun.timing });
      log(
        `  ${backend} ${range.padEnd(4)} journey ${"".padEnd(19)} p50 ${round(journeyRun.timing.p50, 2)} ms   raw ${round(journeyRun.timing.baselineP50, 1)} ms`,
      );
    }
    for (const item of FILTERED) {
      const [rawName, rawOptions] = item.raw(bounds);
      const { answer, baselineRows, timing } = await measure(
        { ...item.query, from, to },
        `${item.id}_${range}`,
        baselineSql(rawName, backend, rawOptions),
        params,
        FILTERED_REPS,
      );
      filtered.push({ id: item.id, label: item.label, range, same: sameRows(answer, baselineRows), ...timing });
      log(
        `  ${backend} ${range.padEnd(4)} filtered ${item.id.padEnd(18)} p50 ${round(timing.p50, 2)} ms   raw ${round(timing.baselineP50, 1)} ms`,
      );
    }
    filtered.push({ id: V2_QUERY.id, label: V2_QUERY.label, range, ...(await measureV2(V2_QUERY.body(from, to))) });
  }
  await afterReads();
} finally {
  await cleanup();
}

const label = { sqlite: "SQLite", postgres: "PostgreSQL", clickhouse: "ClickHouse" }[backend];
/**
 * Targets, p50 in ms: SQLite's (the stats, segments, funnels and journeys issues; the
 * statistics' also stated for PostgreSQL) and ClickHouse's (its issue: a raw GROUP BY of
 * ClickHouse's is no yardstick of speed-up there); PostgreSQL's other figures are stated beside them.
 */
const TARGETS =
  backend === "clickhouse"
    ? { statistic: 50, speedup: null, filtered: { "365d": 100 }, paths: { "funnel.365d": 300, "journey.30d": 150 } }
    : {
        statistic: 20,
        speedup: 100,
        filtered: backend === "sqlite" ? { "30d": 100, "365d": 500 } : {},
        paths: backend === "sqlite" ? { "funnel.30d": 200, "funnel.365d": 1000, "journey.30d": 200 } : {},
      };
/** A target figure's `target` and `met`: none when `limit` is undefined or null. */
const against = (value, limit, text = `p50 ≤ ${limit} ms`) =>
  limit === undefined || limit === null ? { target: null, met: null } : { target: text, met: value <= limit };
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
    ratio: speedupOf(baselineSlowest.baselineP50, slowest.p50),
    ratioLabel: "× faster",
    ...against(slowest.p50, range === "365d" ? TARGETS.statistic : null),
    details: {
      p95OfSlowest: slowest.p95,
      [`over${TARGETS.statistic}ms`]: rows.filter((r) => r.p50 > TARGETS.statistic).map((r) => r.name),
    },
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
    target: TARGETS.speedup ? `≥ ${TARGETS.speedup}× faster` : null,
    met: TARGETS.speedup ? weakest.speedup >= TARGETS.speedup : null,
    details: { [`under${TARGETS.speedup ?? 100}x`]: rows.filter((r) => r.speedup < (TARGETS.speedup ?? 100)).map((r) => r.name) },
  });
}
for (const f of filtered) {
  figures.push({
    id: `filtered.${backend}.${f.id}.${f.range}`,
    group: `filtered ${label}`,
    name: `filtered ${label} ${f.range}: ${f.label}`,
    value: f.p50,
    unit: "ms",
    baseline: f.baselineP50 ?? null,
    baselineLabel: f.baselineP50 === undefined ? "no raw baseline" : "raw GROUP BY with the same conditions",
    ratio: f.speedup ?? null,
    ratioLabel: f.speedup === undefined ? "" : "× faster",
    ...against(f.p50, TARGETS.filtered[f.range]),
    details: { p95: f.p95, runs: f.runs, rows: f.rows, sameTop10AsRaw: f.same },
  });
}
for (const p of paths) {
  figures.push({
    id: `paths.${backend}.${p.id}.${p.range}`,
    group: `filtered ${label}`,
    name: `${p.id} ${label} ${p.range}: ${p.label}`,
    value: p.p50,
    unit: "ms",
    baseline: p.baselineP50,
    baselineLabel: "raw events: self-joins per step (funnel), window functions (journey)",
    ratio: p.speedup,
    ratioLabel: "× faster",
    ...against(p.p50, TARGETS.paths[`${p.id}.${p.range}`]),
    details: { p95: p.p95, runs: p.runs, rows: p.rows, ...(p.visitors ? { visitors: p.visitors, rawVisitors: p.rawVisitors } : {}) },
  });
}
const yearOfRaw = results.find((r) => r.name === "page" && r.range === "365d");
// ClickHouse reads no day blocks: they are the database's.
if (dayBlocks)
  figures.push({
    id: `dayblocks.${backend}`,
    group: `filtered ${label}`,
    name: `day blocks built when the bench opened the database (${label}): ${dayBlocks.built} days`,
    value: dayBlocks.buildSeconds,
    unit: "s",
    baseline: round(yearOfRaw.baselineP50 / 1000, 2),
    baselineLabel: "one raw GROUP BY page over the 365 days",
    ratio: round(dayBlocks.buildSeconds / (yearOfRaw.baselineP50 / 1000), 1),
    ratioLabel: "× the raw query",
    target: null,
    met: null,
    details: dayBlocks,
  });
figures.push(
  backend === "clickhouse"
    ? {
        id: "size.clickhouse",
        group: `stats ${label}`,
        name: "Tally's tables on disk per 1M pageviews (ClickHouse: hits and kept visits, system.parts)",
        value: sizes.tallyPerMillion,
        unit: "MB",
        baseline: sizes.sqlitePerMillion,
        baselineLabel: "Tally's SQLite database, same hits",
        ratio: round(sizes.tallyPerMillion / sizes.sqlitePerMillion, 2),
        ratioLabel: "× SQLite",
        ...against(sizes.tallyPerMillion, 40, "≤ 40 MB"),
        details: sizes,
      }
    : {
        id: `size.${backend}`,
        group: `stats ${label}`,
        name: `database size per 1M pageviews (${label})`,
        value: sizes.tallyPerMillion,
        unit: "MB",
        baseline: sizes.rawPerMillion,
        baselineLabel: "raw events table + its index, same hits",
        ratio: round(sizes.tallyPerMillion / sizes.rawPerMillion, 2),
        ratioLabel: "× raw",
        target: null,
        met: null,
        details: sizes,
      },
);
figures.push({
  id: `stats.${backend}.table`,
  group: `stats ${label}`,
  kind: "stats-table",
  name: `stats latency per statistic (${label})`,
  details: {
    database: { ...meta, path: { sqlite: path, postgres: COPIED_TO_POSTGRES, clickhouse: COPIED_TO_CLICKHOUSE }[backend] },
    label,
    repetitions: REPS,
    warmup: WARMUP,
    agreement,
    results,
    filtered,
  },
});
report(figures);
process.exit(0);

/** The whole installation (tally copy) and the raw rows, from the SQLite file into the fresh PostgreSQL database. */
async function copyToPostgres(sqlitePath, url, pool) {
  const started = performance.now();
  log(`  postgres: copying the installation (tally copy)…`);
  await copyDatabase({ from: `file:${sqlitePath}`, to: url });
  log(`  postgres: copying raw events…`);
  const source = new Database(sqlitePath, { readonly: true });
  try {
    await pool.query(PG_RAW_SCHEMA);
    let batch = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await pool.query(PG_RAW_INSERT, columnsOf(batch, RAW_COLUMNS.length));
      batch = [];
    };
    let n = 0;
    for (const r of source
      .prepare(`select ${RAW_COLUMNS.join(", ")} from raw_events`)
      .raw()
      .iterate()) {
      batch.push(r);
      if (batch.length >= 20_000) await flush();
      if (++n % 2_000_000 === 0) log(`  postgres: ${n.toLocaleString("en-US")} raw rows`);
    }
    await flush();
  } finally {
    source.close();
  }
  await pool.query("create index raw_events_website_ts on raw_events (website_id, ts)");
  await pool.query("vacuum analyze");
  log(`  postgres: copied in ${Math.round((performance.now() - started) / 1000)} s`);
}
