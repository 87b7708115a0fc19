// Figure 5: RSS before, during (every 100k hits) and after ingesting 1M hits.
// Hits are generated lazily so the samples measure Tally, not the hit list.
//   node --expose-gc bench/suites/memory.mjs [--quick] [--hits N] [--every N]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOMAIN, TIMEZONE, generateHits } from "../generate.mjs";
import { args, log, report, round } from "../lib/measure.mjs";
import { importDist } from "../lib/paths.mjs";
import { EXCLUDE_PARAMS } from "../lib/stats-db.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const opts = args();
const quick = Boolean(opts.quick);
const HITS = Number(opts.hits ?? (quick ? 200_000 : 1_000_000));
const EVERY = Number(opts.every ?? (quick ? 25_000 : 100_000));
const MB = 1024 * 1024;

const rss = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().rss / MB;
};

const { createTally } = await importDist("core");
const dir = mkdtempSync(join(tmpdir(), "tally-bench-memory-"));
const samples = [];
try {
  const tally = createTally({ database: `file:${join(dir, "tally.sqlite")}` });
  const { accountId } = await tally.accounts.create({ name: "bench" });
  await tally.websites.create(accountId, { domain: DOMAIN, timezone: TIMEZONE, exclude_params: EXCLUDE_PARAMS });
  const hits = generateHits({ hits: HITS, days: 30, pages: 3000, visitors: 50_000 });
  // Warm the code paths (and the generator's tables) before the "before" sample.
  for (let i = 0; i < 1000; i++) await tally.collect(hits.next().value);
  await tally.flush();
  samples.push({ hits: 0, rss: rss() });
  let n = 0;
  for (const hit of hits) {
    await tally.collect(hit);
    if (++n % EVERY === 0) {
      samples.push({ hits: n, rss: rss() });
      log(`  memory: ${n.toLocaleString("en-US")} hits, rss ${round(samples.at(-1).rss, 1)} MB`);
    }
  }
  await tally.close();
  samples.push({ hits: n, after: true, rss: rss() });
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const before = samples[0].rss;
const during = samples.filter((s) => s.hits > 0 && !s.after);
const peak = Math.max(...during.map((s) => s.rss));
const after = samples.at(-1).rss;
const half = during.filter((s) => s.hits >= HITS / 2);
// "Flat": over the second half of the run RSS does not keep growing with hits.
const drift = half.length > 1 ? half.at(-1).rss - half[0].rss : 0;
report([
  {
    id: "memory.growth",
    group: "memory",
    name: `RSS growth while ingesting ${HITS.toLocaleString("en-US")} hits`,
    value: round(peak - before, 1),
    unit: "MB",
    baseline: round(before, 1),
    baselineLabel: "RSS before (MB)",
    ratio: round(peak / before, 2),
    ratioLabel: "× before (peak)",
    target: "growth ≤ 30 MB",
    met: peak - before <= 30,
    details: { samples: samples.map((s) => ({ ...s, rss: round(s.rss, 1) })) },
  },
  {
    id: "memory.flat",
    group: "memory",
    name: "RSS drift over the second half, after close",
    value: round(drift, 1),
    unit: "MB",
    baseline: round(before, 1),
    baselineLabel: "RSS before (MB)",
    ratio: round(after / before, 2),
    ratioLabel: "× before (after close)",
    target: "flat (drift ≤ 5 MB)",
    met: drift <= 5,
    details: { rssAfterClose: round(after, 1), rssPeak: round(peak, 1) },
  },
]);
process.exit(0);
