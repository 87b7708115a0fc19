// The stats database: N pageviews over 365 days counted through tally.collect (the
// real path, DB-IP city geo when installed), and in the SAME SQLite file the raw
// baseline table filled with the same hits. Built once, cached under bench/.cache/
// keyed by generator version and size.
import Database from "better-sqlite3";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DOMAIN, GENERATOR_VERSION, TIMEZONE, generateHits } from "../generate.mjs";
import { CACHE_DIR, geoDatabasePaths, importDist } from "./paths.mjs";
import { RAW_COLUMNS, RAW_INDEX, SQLITE_RAW_SCHEMA, createRawRowMaker, openRawGeo } from "./raw-events.mjs";

/** Bump when the way the database is built changes. */
const BUILD_VERSION = 6;
export const END_DAY = "2025-06-15";
export const EXCLUDE_PARAMS = "utm_source\nutm_medium\nutm_campaign";
const BATCH = 20_000;

/**
 * @param {{ pageviews: number, visitors: number, pages: number, days?: number, log?: (m: string) => void }} size
 * @returns {Promise<{ path: string, meta: any }>}
 */
export async function ensureStatsDatabase({ pageviews, visitors, pages, days = 365, log = () => {} }) {
  const geo = geoDatabasePaths();
  const key = `stats-g${GENERATOR_VERSION}b${BUILD_VERSION}-pv${pageviews}-v${visitors}-p${pages}-d${days}-${geo ? "geo" : "nogeo"}`;
  const path = join(CACHE_DIR, `${key}.sqlite`);
  if (existsSync(path)) {
    const db = new Database(path, { readonly: true });
    try {
      const row = db.prepare("select value from bench_meta where key = 'meta'").get();
      if (row) {
        log(`stats database: cached ${path}`);
        return { path, meta: { ...JSON.parse(row.value), cached: true } };
      }
    } catch {
      // incomplete: rebuild
    } finally {
      db.close();
    }
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  const building = `${path}.building`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(building + suffix, { force: true });
  log(`stats database: building ${pageviews.toLocaleString("en-US")} pageviews over ${days} days (cached afterwards)…`);

  const { createTally } = await importDist("core");
  const sqlite = new Database(building);
  // No retention job: the data set ends in the past (END_DAY), and its whole year must stay in the store.
  const tally = createTally({ database: sqlite, retentionIntervalMs: 0, ...(geo ? { geoip: geo } : {}) });
  const { accountId } = await tally.accounts.create({ name: "bench" });
  const website = await tally.websites.create(accountId, { domain: DOMAIN, timezone: TIMEZONE, exclude_params: EXCLUDE_PARAMS });
  sqlite.exec(SQLITE_RAW_SCHEMA);
  const insert = sqlite.prepare(`insert into raw_events (${RAW_COLUMNS.join(", ")}) values (${RAW_COLUMNS.map(() => "?").join(", ")})`);
  const insertMany = sqlite.transaction((rows) => {
    for (const row of rows) insert.run(row);
  });
  const rawRow = createRawRowMaker({ websiteId: website.id, domain: DOMAIN, timeZone: TIMEZONE, visitors, geo: await openRawGeo(geo) });

  const started = performance.now();
  let collectMs = 0;
  let hits = 0;
  let rawRows = 0;
  let humanPageviews = 0;
  let batch = [];
  for (const hit of generateHits({ pageviews, visitors, pages, days, endDay: END_DAY })) {
    const t = performance.now();
    await tally.collect(hit);
    collectMs += performance.now() - t;
    hits++;
    if (!hit.bot && hit.event === null) humanPageviews++;
    const row = rawRow(hit);
    if (row) {
      batch.push(row);
      if (batch.length >= BATCH) {
        insertMany(batch);
        rawRows += batch.length;
        batch = [];
      }
    }
    if (hits % 1_000_000 === 0) log(`  ${hits.toLocaleString("en-US")} hits, ${Math.round((performance.now() - started) / 1000)} s`);
  }
  insertMany(batch);
  rawRows += batch.length;
  const t = performance.now();
  await tally.flush();
  collectMs += performance.now() - t;
  sqlite.exec(RAW_INDEX);
  sqlite.exec("analyze");
  const counts = Object.fromEntries(
    sqlite
      .prepare("select name, count(*) as n from rollups group by name")
      .all()
      .map((r) => [r.name, r.n]),
  );
  const meta = {
    key,
    accountId,
    websiteId: website.id,
    domain: DOMAIN,
    timezone: TIMEZONE,
    endDay: END_DAY,
    days,
    hits,
    pageviews: humanPageviews,
    rawRows,
    visitorPool: visitors,
    pages,
    geo: Boolean(geo),
    rollupRows: Object.values(counts).reduce((a, b) => a + b, 0),
    rollupRowsByName: counts,
    buildSeconds: Math.round((performance.now() - started) / 100) / 10,
    collectHitsPerSecond: Math.round(hits / (collectMs / 1000)),
  };
  sqlite.exec("create table bench_meta (key text primary key, value text not null)");
  sqlite.prepare("insert into bench_meta values ('meta', ?)").run(JSON.stringify(meta));
  await tally.close();
  sqlite.pragma("wal_checkpoint(TRUNCATE)");
  sqlite.close();
  for (const suffix of ["-wal", "-shm"]) rmSync(building + suffix, { force: true });
  renameSync(building, path);
  log(
    `stats database: built in ${meta.buildSeconds} s (${hits.toLocaleString("en-US")} hits, ${meta.rollupRows.toLocaleString("en-US")} rollup rows)`,
  );
  return { path, meta: { ...meta, cached: false } };
}
