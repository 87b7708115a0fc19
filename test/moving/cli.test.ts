import { COPIED_TABLES } from "@tally-analytics/core/internal";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTally } from "@tally-analytics/core";
import { strFromU8, unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureDirectory } from "./support.js";

/** The built binary (`pnpm build` first), as a user runs it: stdout for results, stderr for progress. */
const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const HEADER = "2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date";

function tally(args: string[], cwd: string): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, DATABASE_URL: `file:${join(cwd, "tally.sqlite")}` };
    delete env.TALLY_API_KEY;
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout: Buffer.concat(stdout), stderr }));
  });
}

describe("tally import, export and copy", () => {
  const files = fixtureDirectory();
  const cwd = files.directory;
  let gc = "";

  beforeAll(async () => {
    const app = createTally({ database: `file:${join(cwd, "tally.sqlite")}` });
    const { accountId } = await app.accounts.create({ name: "cli" });
    await app.websites.create(accountId, { domain: "cli.example" });
    await app.close();
    const rows = Array.from(
      { length: 30 },
      (_, i) =>
        `/page-${i % 4},T,false,,Chrome 120,Windows 10,s${i % 7},0,,,"1920,1080,1",NL,true,2024-05-0${1 + (i % 3)}T1${i % 10}:00:00Z`,
    );
    gc = files.gzip("goatcounter-export-cli.csv.gz", [HEADER, ...rows.sort((a, b) => (a.slice(-20) < b.slice(-20) ? -1 : 1))].join("\n"));
  });
  afterAll(() => files.dispose());

  it("import: a dry run, the import, then the same file refused; progress on stderr, the summary on stdout", async () => {
    const dry = await tally(["import", gc, "--website", "1", "--dry-run"], cwd);
    expect(dry.code).toBe(0);
    expect(dry.stdout.toString()).toMatch(
      /^Would import .*goatcounter-export-cli\.csv\.gz \(GoatCounter CSV export\) into website 1: 30 rows read, 30 imported, 0 skipped\.\n/,
    );
    expect(dry.stderr).toMatch(/^checking: \d+%, \d+ rows, [\d,]+ rows\/s$/m);
    const real = await tally(["import", gc, "--website", "1"], cwd);
    expect(real.code).toBe(0);
    expect(real.stdout.toString()).toContain("days 2024-05-01 to 2024-05-03 (import #1)");
    expect(real.stderr).toMatch(/^importing: done, 30 rows/m);
    const again = await tally(["import", gc, "--website", "1", "--json"], cwd);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/was imported into website 1 already \(import #1/);
  }, 120_000);

  it("import: a malformed file exits 1 naming file, line and column; a missing --website is a usage error", async () => {
    const bad = files.write("bad.csv", `${HEADER}\n/,T,false,,,,s,zero,,,,,true,2024-05-01T10:00:00Z\n`);
    const result = await tally(["import", bad, "--website", "1"], cwd);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad.csv, line 2, column 8 (Bot): expected 0 or a bot kind number, got "zero"');
    const usage = await tally(["import", bad], cwd);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe("tally import: --website ID is required (see tally import --help)\n");
    const missing = await tally(["import", bad, "--website", "99"], cwd);
    expect(missing).toMatchObject({ code: 2, stderr: "tally import: there is no website 99 (tally websites list shows their IDs)\n" });
  });

  it("export: a zip file, or the zip on stdout", async () => {
    const written = await tally(["export", "--website", "1", "--output", "out.zip"], cwd);
    expect(written.code).toBe(0);
    expect(written.stdout.toString()).toMatch(/^Wrote out\.zip \(\d+ rows, Tally's CSV files\)\.\n$/);
    const files = unzipSync(new Uint8Array(readFileSync(join(cwd, "out.zip"))));
    expect(strFromU8(files["pageviews.csv"]!)).toBe('"date","pageviews"\n"2024-05-01",10\n"2024-05-02",10\n"2024-05-03",10\n');
    const piped = await tally(["export", "--website", "1", "--format", "plausible", "--output", "-"], cwd);
    expect(piped.code).toBe(0);
    expect(Object.keys(unzipSync(new Uint8Array(piped.stdout)))).toContain("imported_visitors_20240501_20240503.csv");
  });

  it("copy: into a new SQLite file, then refused without --force", async () => {
    const from = `file:${join(cwd, "tally.sqlite")}`;
    const to = `file:${join(cwd, "copy.sqlite")}`;
    const copied = await tally(["copy", "--from", from, "--to", to], cwd);
    expect(copied.code).toBe(0);
    expect(copied.stdout.toString()).toMatch(
      new RegExp(`^Copied \\d+ rows of ${COPIED_TABLES.length} tables; every table has as many rows in the target:\n {2}accounts +1\n`),
    );
    expect(copied.stderr).toMatch(/^copying: done, \d+ rows/m);
    const refused = await tally(["copy", "--from", from, "--to", to], cwd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already holds data .*pass --force/);
    expect((await tally(["copy", "--from", from, "--to", to, "--force"], cwd)).code).toBe(0);
  });

  it("copy: the hits into ClickHouse (chDB) and back into a database with the websites, with progress; usage errors named", async () => {
    const from = `file:${join(cwd, "tally.sqlite")}`;
    const clickhouse = `chdb:${join(cwd, "events")}`;
    const into = await tally(["copy", "--from", from, "--to-clickhouse", clickhouse], cwd);
    expect(into.stdout.toString()).toMatch(/^Copied 30 hits and engagement signals of 1 website into ClickHouse\.$/m);
    const to = `file:${join(cwd, "back.sqlite")}`;
    const app = createTally({ database: to });
    const { accountId } = await app.accounts.create({ name: "back" });
    await app.websites.create(accountId, { domain: "cli.example" });
    await app.close();
    const back = await tally(["copy", "--from-clickhouse", clickhouse, "--to", to], cwd);
    expect(back.code).toBe(0);
    expect(back.stdout.toString()).toBe("Copied 30 hits and engagement signals of 1 website from ClickHouse into the database.\n");
    expect(back.stderr).toMatch(/^copying hits: done, 30 rows/m);
    const refused = await tally(["copy", "--from-clickhouse", clickhouse, "--to", from], cwd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the database already holds hits of website 1: nothing copied");
    const forced = await tally(["copy", "--from-clickhouse", clickhouse, "--to", from, "--force"], cwd);
    expect(forced.stdout.toString()).toBe("Copied 30 hits and engagement signals of 1 website from ClickHouse into the database.\n");
    const both = await tally(["copy", "--from-clickhouse", clickhouse, "--from", from, "--to", to], cwd);
    expect(both.stderr).toContain("--from and --from-clickhouse: give one");
    expect((await tally(["copy", "--from-clickhouse", clickhouse], cwd)).stderr).toContain("--to URL is required");
  }, 120_000);
});
