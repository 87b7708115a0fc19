// `pnpm bench --smoke`: every suite of the benchmark runs end to end on tiny data and
// produces each of its figures (value, baseline, ratio). Timings are not asserted: a
// test's machine is no place to measure them (`pnpm bench` is).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { DIALECTS, POSTGRES_ADMIN_URL } from "../support/databases.js";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "tally-bench-smoke-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RANGES = ["7d", "30d", "365d"];
const FILTERED = ["one-filter", "two-filters", "page-filter", "property-breakdown"];
const statsFigures = (backend: string) => [
  ...RANGES.flatMap((range) => [`stats.${backend}.${range}.p50`, `stats.${backend}.${range}.speedup`]),
  ...FILTERED.flatMap((id) => [`filtered.${backend}.${id}.30d`, `filtered.${backend}.${id}.365d`]),
  `paths.${backend}.funnel.30d`,
  `paths.${backend}.funnel.365d`,
  `paths.${backend}.journey.30d`,
  `size.${backend}`,
];
const SQLITE_FIGURES = [
  "tracker.gzip",
  "tracker.brotli",
  "tracker.extensions.gzip",
  "ingest.sqlite",
  "memory.growth",
  "memory.flat",
  "import.goatcounter",
  "import.memory",
  "http.node",
  "http.express",
  "http.fastify",
  "pageviews.express",
  "pageviews.fastify",
  "sign-in.flood",
  "sign-in.flood-unbounded",
  "footprint.idle",
  "footprint.load",
  "footprint.cpu",
  ...statsFigures("sqlite"),
];
const POSTGRES_FIGURES = ["ingest.postgres", ...statsFigures("postgres")];
/** chDB is a development dependency: ClickHouse's figures are in every smoke run of the repository (over 30 and 365 days). */
const CLICKHOUSE_FIGURES = [
  "ingest.clickhouse",
  "ingest.clickhouse.sqlite",
  ...statsFigures("clickhouse").filter((id) => !id.includes(".7d.")),
];

interface Figure {
  id: string;
  kind?: string;
  value?: unknown;
  baseline?: unknown;
  ratio?: unknown;
  skipped?: string;
  details?: {
    results?: { name: string; range: string }[];
    agreement?: { same: string[]; different: string[] };
    hitsSent?: number;
    hitsCounted?: number;
    connections?: number;
  };
}

describe("pnpm bench --smoke", () => {
  it("runs every suite without a failure and produces every figure beside its baseline", { timeout: 300_000 }, async () => {
    const out = join(dir, "results.json");
    const withPostgres = DIALECTS.includes("postgres");
    await run(process.execPath, ["bench/run.mjs", "--smoke", "--out", out, ...(withPostgres ? [] : ["--no-postgres"])], {
      cwd: join(import.meta.dirname, "../.."),
      env: { ...process.env, BENCH_POSTGRES_URL: POSTGRES_ADMIN_URL },
      maxBuffer: 64 * 1024 * 1024,
    });
    const results = JSON.parse(readFileSync(out, "utf8")) as { mode: string; failures: unknown[]; figures: Figure[] };
    expect(results.mode).toBe("smoke");
    expect(results.failures).toEqual([]);
    const wanted = [...SQLITE_FIGURES, ...CLICKHOUSE_FIGURES, ...(withPostgres ? POSTGRES_FIGURES : [])];
    const byId = new Map(results.figures.map((figure) => [figure.id, figure]));
    for (const id of wanted) {
      const figure = byId.get(id);
      expect(figure, id).toBeDefined();
      for (const field of ["value", "baseline", "ratio"] as const) expect(Number.isFinite(figure![field]), `${id}.${field}`).toBe(true);
    }
    // The footprint's app counted what it was sent (bots aside: about 5%; answered within the run,
    // plus at most one request a connection still in flight at its end).
    const footprint = byId.get("footprint.load")!.details!;
    expect(footprint.hitsCounted).toBeGreaterThan(0);
    expect(footprint.hitsCounted).toBeLessThanOrEqual(footprint.hitsSent! + footprint.connections!);
    // Every statistic over every range, and the raw baseline agreeing on the smoke data.
    const table = byId.get("stats.sqlite.table")!;
    const { ENGAGEMENT_STATISTICS, STAT_NAMES } = await import("@tally-analytics/core");
    // The acquisition, version, region and hostname statistics are among them: their unfiltered 365-day figures are in the table.
    expect(STAT_NAMES).toEqual(expect.arrayContaining(["source", "channel", "browser_version", "os_version", "region", "hostname"]));
    const counted = STAT_NAMES.filter((name) => !(ENGAGEMENT_STATISTICS as readonly string[]).includes(name));
    for (const range of RANGES) {
      expect(
        table
          .details!.results!.filter((row) => row.range === range)
          .map((row) => row.name)
          .sort(),
        range,
      ).toEqual([...counted].sort());
    }
    expect(table.details!.agreement!.different).toEqual([]);
    // ClickHouse (the same database copied in) agrees with its raw GROUP BY too.
    expect(byId.get("stats.clickhouse.table")!.details!.agreement!.different).toEqual([]);
  });
});
