// The SQLite writer alone. `record` runs the ingest suite's traffic through tally.collect() and
// keeps every request the collecting thread sends to the writer thread; `replay` sends them,
// in order, to a writer on this thread over a fresh database and reports its CPU time: no
// collecting thread, no batch sizes that vary with the machine's load. Replay one recording
// with two builds (`--core`, a copy of another build's packages/core/dist) to compare them.
// `--wal-pages` also turns checkpoints off and tells which tables and indexes the WAL's
// pages belong to (what the commits write), which the load of the machine does not change.
//   node bench/writer-replay.mjs record <file> [--hits N]
//   node bench/writer-replay.mjs replay <file> [--core packages/core/dist] [--wal-pages] [--checkpoint pages]
// (`--checkpoint`: the writer's wal_autocheckpoint, 4,000 pages unless given; 1,000 before.)
import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { deserialize, serialize } from "node:v8";
import { Worker } from "node:worker_threads";
import { DOMAIN, TIMEZONE, generateHits } from "./generate.mjs";
import { args, log } from "./lib/measure.mjs";
import { ROOT } from "./lib/paths.mjs";
import { EXCLUDE_PARAMS } from "./lib/stats-db.mjs";

const [mode, file] = process.argv.slice(2);
const opts = args();
if (!["record", "replay"].includes(mode) || !file) {
  log("usage: node bench/writer-replay.mjs record|replay <file> [--hits N] [--core dir] [--wal-pages]");
  process.exit(2);
}
const dist = resolve(opts.core ?? join(ROOT, "packages/core/dist"));
// The writer's own modules as tsc compiled them (the bundle exports only the public API).
const fromDist = async (module) => import(pathToFileURL(join(dist, module)).href);
const { createTally } = await fromDist("bundle/index.js");
const { createSqliteWriter } = await fromDist("backends/sqlite/writer.js");
const { unpackHits } = await fromDist("model/hit-wire.js");

/** A fresh database with the ingest suite's website, closed again: what the writer starts from. */
async function benchDatabase(dir) {
  const path = join(dir, "tally.sqlite");
  const tally = createTally({ database: `file:${path}` });
  const { accountId } = await tally.accounts.create({ name: "bench" });
  await tally.websites.create(accountId, { domain: DOMAIN, timezone: TIMEZONE, exclude_params: EXCLUDE_PARAMS });
  return { tally, path };
}

async function record() {
  const requests = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message?.type !== undefined && message.type !== "close") requests.push(message); // cloned, not moved: it stays as sent
    return post.call(this, message, ...rest);
  };
  const hits = [...generateHits({ hits: Number(opts.hits ?? 200_000), days: 30, pages: 3000, visitors: 50_000 })];
  const dir = mkdtempSync(join(tmpdir(), "tally-writer-record-"));
  try {
    const { tally } = await benchDatabase(dir);
    for (const hit of hits) await tally.collect(hit);
    await tally.close();
  } finally {
    Worker.prototype.postMessage = post;
    rmSync(dir, { recursive: true, force: true });
  }
  writeFileSync(file, serialize(requests));
  log(`${requests.length} writer requests of ${hits.length.toLocaleString("en-US")} hits recorded in ${file}`);
}

/** Which table or index each page written to the WAL belongs to, most first. */
function walPages(database, path) {
  const wal = readFileSync(`${path}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const owner = new Map(
    database
      .prepare("select name, pageno from dbstat")
      .raw()
      .all()
      .map(([name, page]) => [page, name]),
  );
  const byOwner = new Map();
  let pages = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize, pages++) {
    const name = owner.get(wal.readUInt32BE(at)) ?? "(freed)";
    byOwner.set(name, (byOwner.get(name) ?? 0) + 1);
  }
  return { pages, byOwner: Object.fromEntries([...byOwner].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, n])) };
}

async function replay() {
  const requests = deserialize(readFileSync(file));
  const dir = mkdtempSync(join(tmpdir(), "tally-writer-replay-"));
  try {
    const { tally, path } = await benchDatabase(dir);
    await tally.close();
    // The writer thread's own settings (backends/sqlite/writer-worker.ts).
    const database = new Database(path);
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = NORMAL");
    database.pragma(`journal_size_limit = ${opts["wal-pages"] ? -1 : 1024 * 1024}`);
    database.pragma(`wal_autocheckpoint = ${opts["wal-pages"] ? 0 : (opts.checkpoint ?? 4000)}`);
    const writer = createSqliteWriter(database);
    let hits = 0;
    const cpu = process.cpuUsage();
    for (const request of requests) {
      if (request.type === "write") {
        const batch = unpackHits(request.hits);
        hits += batch.length;
        writer.write(batch, request.batchId);
      } else if (request.type === "salt") writer.salt(request.day, request.candidate);
      else if (request.type === "forget-before") writer.forgetBefore(request.day);
      else if (request.type === "delete-older-than") writer.deleteOlderThan(request.websiteId, request.localSeconds, request.limit);
    }
    const used = process.cpuUsage(cpu);
    const seconds = (used.user + used.system) / 1e6;
    const stored = database.prepare("select (select count(*) from visits) as visits, (select count(*) from hits) as hits").get();
    const result = { hits, cpuSeconds: Math.round(seconds * 100) / 100, hitsPerCpuSecond: Math.round(hits / seconds), stored };
    console.log(JSON.stringify(opts["wal-pages"] ? { ...result, wal: walPages(database, path) } : result, null, 2));
    database.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await (mode === "record" ? record() : replay());
process.exit(0);
