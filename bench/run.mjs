// Tally's benchmark suite: `pnpm bench` (full), `pnpm bench --quick` (a few minutes) or
// `--smoke` (seconds, tiny data: every figure is produced, none means anything; the
// test suite runs it). Every figure comes with a baseline measured in the same run and
// their ratio; the table goes to stdout and everything to bench/results.json (or --out).
//   node bench/run.mjs [--quick|--smoke] [--out FILE] [--only ingest,http,pageviews,sign-in,footprint,stats,tracker,memory,import,postgres,clickhouse] [--no-postgres]
// Needs the built packages (`pnpm build`, which `pnpm install` runs). The clickhouse suites need
// chDB (an optional dependency); without it their figures are skipped.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { args, round, runSuite } from "./lib/measure.mjs";
import { BENCH_DIR, DIST, chdbInstalled } from "./lib/paths.mjs";
import { ADMIN_URL, postgresReachable } from "./lib/postgres.mjs";

const opts = args();
const smoke = Boolean(opts.smoke);
const quick = Boolean(opts.quick) || smoke;
const outFile = typeof opts.out === "string" ? opts.out : join(BENCH_DIR, "results.json");
const only = typeof opts.only === "string" ? new Set(opts.only.split(",")) : null;
const wants = (name) => !only || only.has(name);
const quickArg = quick ? ["--quick"] : [];
/** A suite's arguments: `--quick` when asked, and in smoke runs a tiny size besides. */
const sized = (smokeSize) => (smoke ? [...quickArg, ...smokeSize] : quickArg);
const suite = (name) => join(BENCH_DIR, "suites", `${name}.mjs`);

const missing = Object.values(DIST).filter((path) => !existsSync(path));
if (missing.length > 0) {
  console.error(`bench: the packages are not built (missing ${missing[0]}). Run \`pnpm build\` first.`);
  process.exit(1);
}

const started = Date.now();
const machine = {
  cpus: os.cpus().length,
  model: os.cpus()[0]?.model ?? "unknown",
  memory: `${Math.round(os.totalmem() / 1024 ** 3)} GiB`,
  node: process.version,
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  loadAverageAtStart: os.loadavg().map((n) => round(n, 2)),
};
const modeName = smoke ? "smoke" : quick ? "quick" : "full";
console.error(
  `Tally bench (${modeName}) on ${machine.cpus}× ${machine.model}, ${machine.memory}, Node ${machine.node}, load ${machine.loadAverageAtStart.join(" ")}`,
);

const figures = [];
const failures = [];
async function step(name, fn) {
  const t = Date.now();
  console.error(`\n▶ ${name}`);
  try {
    figures.push(...(await fn()));
  } catch (error) {
    failures.push({ name, error: String(error?.stack ?? error) });
    console.error(`✗ ${name} failed: ${error?.message ?? error}`);
  }
  console.error(`  (${round((Date.now() - t) / 1000, 1)} s)`);
}

if (wants("tracker")) await step("tracker size", async () => trackerFigures());
if (wants("ingest")) {
  await step("ingest, SQLite", () => runSuite(suite("ingest"), sized(["--hits", "5000"])));
  // Informational (GeoIP is optional); full runs only, to keep --quick under two minutes.
  if (!quick) await step("ingest, SQLite + GeoIP", () => runSuite(suite("ingest"), ["--geo"]));
}
if (wants("memory"))
  await step("memory", () => runSuite(suite("memory"), sized(["--hits", "40000", "--every", "5000"]), { execArgv: ["--expose-gc"] }));
if (wants("import"))
  await step("import, GoatCounter CSV", () => runSuite(suite("import"), sized(["--rows", "5000"]), { execArgv: ["--expose-gc"] }));
if (wants("http")) await step("ingest over HTTP", () => runSuite(suite("http"), sized(["--duration", "1"])));
if (wants("pageviews")) await step("server-side pageviews", () => runSuite(suite("pageviews"), sized(["--duration", "1"])));
if (wants("sign-in")) await step("a sign-in flood beside the app", () => runSuite(suite("sign-in"), sized(["--duration", "1"])));
if (wants("footprint")) await step("footprint in an Express app", () => runSuite(suite("footprint"), smoke ? ["--smoke"] : quickArg));
const statsArg = smoke ? ["--smoke"] : quickArg;
if (wants("stats")) await step("stats latency, SQLite", () => runSuite(suite("stats"), statsArg));
if (wants("postgres") && !opts["no-postgres"]) {
  if (await postgresReachable()) {
    if (wants("ingest") || only?.has("postgres"))
      await step("ingest, PostgreSQL", () => runSuite(suite("ingest"), [...sized(["--hits", "3000"]), "--backend", "postgres"]));
    if (wants("stats") || only?.has("postgres"))
      await step("stats latency, PostgreSQL", () => runSuite(suite("stats"), [...statsArg, "--backend", "postgres"]));
  } else {
    console.error(`\nPostgreSQL not reachable at ${ADMIN_URL.replace(/\/\/[^@]*@/, "//…@")}: its figures are skipped.`);
    figures.push({ id: "postgres", group: "PostgreSQL", name: "PostgreSQL figures", skipped: `not reachable at ${ADMIN_URL}` });
  }
}
if (wants("clickhouse")) {
  if (chdbInstalled()) {
    await step("ingest, ClickHouse (chDB)", () => runSuite(suite("clickhouse-ingest"), sized(["--hits", "3000"])));
    await step("stats latency, ClickHouse (chDB)", () => runSuite(suite("stats"), [...statsArg, "--backend", "clickhouse"]));
  } else {
    console.error("\nchDB is not installed (npm install chdb @clickhouse/client): the ClickHouse figures are skipped.");
    figures.push({ id: "clickhouse", group: "ClickHouse", name: "ClickHouse figures", skipped: "chDB not installed" });
  }
}

const results = {
  date: new Date().toISOString(),
  machine,
  mode: modeName,
  quick,
  seconds: Math.round((Date.now() - started) / 1000),
  figures,
  failures,
};
writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
printTables(results);
process.exit(failures.length > 0 ? 1 : 0);

function trackerFigures() {
  // The tracker's budgets (docs/tracker.md): the default script, and the build with every extension.
  const budgets = { default: 850, extensions: 2000 };
  const full = readFileSync(DIST.trackerScript);
  const core = readFileSync(DIST.trackerCoreScript);
  const extended = readFileSync(DIST.trackerExtensionsScript);
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const br = (b) =>
    brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length;
  const figure = (id, name, value, baseline, budget) => ({
    id,
    group: "tracker",
    name,
    value,
    unit: "bytes",
    baseline,
    baselineLabel: "core-only build (no optional features)",
    ratio: round(value / baseline, 2),
    ratioLabel: "× core-only",
    target: `≤ ${budget.toLocaleString("en-US")} bytes`,
    met: value <= budget,
    details: { minifiedBytes: full.length, coreMinifiedBytes: core.length, extensionsMinifiedBytes: extended.length },
  });
  return [
    figure("tracker.gzip", "tracker script.js, gzip -9", gz(full), gz(core), budgets.default),
    figure("tracker.brotli", "tracker script.js, brotli q11", br(full), br(core), budgets.default),
    figure("tracker.extensions.gzip", "tracker script.ext.js (every extension), gzip -9", gz(extended), gz(core), budgets.extensions),
  ];
}

function printTables({ figures, failures }) {
  const fmt = (n) =>
    typeof n === "number" ? n.toLocaleString("en-US", { maximumFractionDigits: n < 10 ? 2 : n < 100 ? 1 : 0 }) : String(n ?? "—");
  const rows = [["figure", "value", "baseline", "ratio", "target", "met?"]];
  for (const f of figures) {
    if (f.kind === "stats-table") continue;
    if (f.skipped) {
      rows.push([f.name, "skipped", f.skipped, "", "", ""]);
      continue;
    }
    rows.push([
      f.name,
      `${fmt(f.value)} ${f.unit}`,
      `${fmt(f.baseline)} ${f.unit === "MB" ? "MB" : f.unit} (${f.baselineLabel})`,
      `${fmt(f.ratio)}${f.ratioLabel}`,
      f.target ?? "—",
      f.met === null || f.met === undefined ? "—" : f.met ? "yes" : "MISSED",
    ]);
  }
  console.log(
    `\nTally benchmarks${smoke ? " (SMOKE mode: tiny data, figures mean nothing)" : quick ? " (QUICK mode: small data, short runs)" : ""} — ${results.date}`,
  );
  console.log(
    `${machine.cpus}× ${machine.model}, ${machine.memory}, Node ${machine.node}, ${machine.platform}, load at start ${machine.loadAverageAtStart.join(" ")}\n`,
  );
  console.log(table(rows));
  for (const f of figures.filter((x) => x.kind === "stats-table")) {
    const { results: stats, database, agreement } = f.details;
    console.log(
      `\n${f.name}: ${database.pageviews.toLocaleString("en-US")} pageviews, ${database.hits.toLocaleString("en-US")} hits over ${database.days} days, ${database.rollupRows.toLocaleString("en-US")} rollup rows; ms, p50/p95 of ${f.details.repetitions} runs; raw = GROUP BY over raw_events (p50)`,
    );
    const ranges = ["7d", "30d", "365d"].filter((range) => stats.some((x) => x.range === range));
    const header = ["statistic", ...ranges.flatMap((r) => [`${r} p50/p95`, `${r} raw`, `${r} ×`])];
    const lines = [header];
    for (const name of [...new Set(stats.map((s) => s.name))]) {
      const cells = [name];
      for (const range of ranges) {
        const s = stats.find((x) => x.name === name && x.range === range);
        cells.push(`${fmt(s.p50)}/${fmt(s.p95)}`, fmt(s.baselineP50), `${fmt(s.speedup)}×`);
      }
      lines.push(cells);
    }
    console.log(table(lines));
    console.log(
      `Tally and the raw baseline return identical top-10 rows over ${agreement.range} for ${agreement.same.length}/${agreement.same.length + agreement.different.length} statistics${agreement.different.length ? ` (differ: ${agreement.different.join(", ")})` : ""}.`,
    );
    const filtered = f.details.filtered ?? [];
    if (filtered.length > 0) {
      const lines = [["filtered query", "30d p50/p95", "30d raw", "30d ×", "365d p50/p95", "365d raw", "365d ×"]];
      for (const id of [...new Set(filtered.map((x) => x.id))]) {
        const cells = [filtered.find((x) => x.id === id).label];
        for (const range of ["30d", "365d"]) {
          const x = filtered.find((y) => y.id === id && y.range === range);
          cells.push(`${fmt(x.p50)}/${fmt(x.p95)}`, fmt(x.baselineP50), `${fmt(x.speedup)}×`);
        }
        lines.push(cells);
      }
      console.log(`\nFiltered statistics, ${f.details.label}: ms, p50/p95; raw = GROUP BY over raw_events with the same conditions (p50)`);
      console.log(table(lines));
    }
  }
  for (const failure of failures) console.log(`\nFAILED: ${failure.name}\n${failure.error}`);
  console.log(`\nResults written to ${outFile} (${results.seconds} s).`);
}

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  const line = (r) => `| ${r.map((cell, c) => String(cell).padEnd(widths[c])).join(" | ")} |`;
  return [line(rows[0]), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}
