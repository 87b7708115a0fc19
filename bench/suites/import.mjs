// `tally import` of a GoatCounter CSV export (v2, gzipped) of 1M rows, beside ingest's
// hits/s measured on the same hits in the same run, and RSS through the import: a 1 GB
// file must import in bounded memory. Baseline: tally.collect() of the same hits.
//   node --expose-gc bench/suites/import.mjs [--quick] [--rows N]
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { DOMAIN, TIMEZONE, generateHits } from "../generate.mjs";
import { args, log, report, round } from "../lib/measure.mjs";
import { importDist } from "../lib/paths.mjs";
import { EXCLUDE_PARAMS } from "../lib/stats-db.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const opts = args();
const quick = Boolean(opts.quick);
const ROWS = Number(opts.rows ?? (quick ? 200_000 : 1_000_000));
const MIX = { hits: ROWS, days: 30, pages: 3000, visitors: 50_000 };
const MB = 1024 * 1024;
const rss = () => {
  globalThis.gc();
  return process.memoryUsage().rss / MB;
};
/** This thread's live JavaScript heap after a full collection (RSS also holds the writer thread's heap and SQLite's caches). */
const heap = () => process.memoryUsage().heapUsed / MB;

const HEADER = "2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date";
const quote = (text) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/** A generated hit as GoatCounter exports it: its path (or event name), the raw user agent, a session per (IP, user agent). */
function row(hit) {
  const url = new URL(hit.url);
  const event = hit.event !== null;
  const referrer = hit.referrer ? hit.referrer.replace(/^https?:\/\//, "") : "";
  const [width, height] = (hit.screen ?? "0x0").split("x");
  return [
    event ? hit.event : `${url.pathname}${url.search}`,
    "Title",
    event ? "1" : "0",
    hit.userAgent,
    "",
    "",
    `s${hit.visitor.toString(16)}`,
    hit.bot ? "1" : "0",
    referrer,
    referrer === "" ? "" : "h",
    `${width},${height},1`,
    "",
    "false",
    new Date(hit.timestamp).toISOString().replace(".000Z", "Z"),
  ]
    .map(quote)
    .join(",");
}

async function writeExport(path) {
  async function* lines() {
    yield `${HEADER}\n`;
    let chunk = "";
    for (const hit of generateHits(MIX)) {
      chunk += `${row(hit)}\n`;
      if (chunk.length > 256 * 1024) {
        yield chunk;
        chunk = "";
      }
    }
    yield chunk;
  }
  await pipeline(Readable.from(lines()), createGzip(), createWriteStream(path));
}

const { createTally } = await importDist("core");
const dir = mkdtempSync(join(tmpdir(), "tally-bench-import-"));
let result;
try {
  const file = join(dir, "goatcounter-export.csv.gz");
  log(`import: writing a GoatCounter export of ${ROWS.toLocaleString("en-US")} rows…`);
  await writeExport(file);
  const bytes = statSync(file).size;

  // Baseline, same run: the same hits through tally.collect (what `ingest` measures).
  const ingestTally = createTally({ database: `file:${join(dir, "ingest.sqlite")}` });
  const ingestAccount = await ingestTally.accounts.create({ name: "bench" });
  await ingestTally.websites.create(ingestAccount.accountId, { domain: DOMAIN, timezone: TIMEZONE, exclude_params: EXCLUDE_PARAMS });
  const ingestBefore = rss();
  let ingestPeak = ingestBefore;
  let collected = 0;
  let started = performance.now();
  for (const hit of generateHits(MIX)) {
    await ingestTally.collect(hit);
    if (++collected % (ROWS / 10) === 0) ingestPeak = Math.max(ingestPeak, rss());
  }
  await ingestTally.flush();
  const ingestMs = performance.now() - started;
  await ingestTally.close();
  log(`  tally.collect: ${Math.round(ROWS / (ingestMs / 1000)).toLocaleString("en-US")} hits/s`);

  const tally = createTally({ database: `file:${join(dir, "import.sqlite")}` });
  const { accountId } = await tally.accounts.create({ name: "bench" });
  const website = await tally.websites.create(accountId, { domain: DOMAIN, timezone: TIMEZONE, exclude_params: EXCLUDE_PARAMS });
  const before = rss();
  const samples = [];
  let nextSample = 0;
  const phases = {};
  started = performance.now();
  const summary = await tally.import(file, {
    websiteId: website.id,
    onProgress(progress) {
      phases[progress.phase] ??= performance.now();
      if (progress.phase === "import" && progress.rows >= nextSample) {
        samples.push({ rows: progress.rows, rss: round(rss(), 1), heap: round(heap(), 1) });
        nextSample += ROWS / 10;
      }
    },
  });
  const ms = performance.now() - started;
  const after = rss();
  await tally.close();
  const checkMs = (phases.import ?? performance.now()) - started;
  const peak = Math.max(before, ...samples.map((s) => s.rss));
  const half = samples.filter((s) => s.rows >= ROWS / 2);
  const drift = half.length > 1 ? half.at(-1).rss - half[0].rss : 0;
  const heapDrift = half.length > 1 ? half.at(-1).heap - half[0].heap : 0;
  log(
    `  tally import: ${Math.round(ROWS / (ms / 1000)).toLocaleString("en-US")} rows/s (check pass ${round(checkMs / 1000, 1)} s of ${round(ms / 1000, 1)} s), RSS ${round(before, 1)} → peak ${round(peak, 1)} MB`,
  );
  const heapPeak = Math.max(...samples.map((s) => s.heap));
  result = {
    ms,
    checkMs,
    ingestMs,
    ingestGrowth: ingestPeak - ingestBefore,
    bytes,
    summary,
    before,
    peak,
    after,
    drift,
    heapDrift,
    heapPeak,
    samples,
  };
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const rate = ROWS / (result.ms / 1000);
const ingestRate = ROWS / (result.ingestMs / 1000);
report([
  {
    id: "import.goatcounter",
    group: "import",
    name: `tally import, GoatCounter CSV (${ROWS.toLocaleString("en-US")} rows, ${round(result.bytes / MB, 1)} MB gzipped)`,
    value: Math.round(rate),
    unit: "rows/s",
    baseline: Math.round(ingestRate),
    baselineLabel: "tally.collect of the same hits, hits/s",
    ratio: round(rate / ingestRate, 2),
    ratioLabel: "× ingest",
    target: null,
    met: null,
    details: {
      seconds: round(result.ms / 1000, 1),
      checkPassSeconds: round(result.checkMs / 1000, 1),
      imported: result.summary.imported,
      skipped: result.summary.skipped,
    },
  },
  {
    id: "import.memory",
    group: "import",
    name: `RSS growth importing ${ROWS.toLocaleString("en-US")} rows`,
    value: round(result.peak - result.before, 1),
    unit: "MB",
    baseline: round(result.ingestGrowth, 1),
    baselineLabel: "RSS growth of tally.collect on the same hits (MB)",
    ratio: round((result.peak - result.before) / Math.max(1, result.ingestGrowth), 2),
    ratioLabel: "× ingest",
    // Bounded, not growing with rows: at most two batches of hits wait in this thread.
    target: "this thread's heap ≤ 64 MB throughout",
    met: result.heapPeak <= 64,
    details: {
      rssBefore: round(result.before, 1),
      driftSecondHalf: round(result.drift, 1),
      heapPeak: round(result.heapPeak, 1),
      heapDriftSecondHalf: round(result.heapDrift, 1),
      rssAfter: round(result.after, 1),
      samples: result.samples,
    },
  },
]);
process.exit(0);
