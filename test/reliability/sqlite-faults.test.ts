/**
 * SQLite faults under a running `tally serve`, on a small file system of the test's own
 * (test/support/small-disk.ts):
 * - a full disk: hits keep being answered 202 (kept in memory), statistics answer what is
 *   stored with a `Warning`, `/health` says "disk full"; space freed is used at once; a
 *   SIGTERM while the disk is still full keeps the hits in a file (exit 0), and the next
 *   start writes them: every 202 counted exactly once, and never twice on later starts;
 * - a read-only database at start: a one-line refusal, exit 1, never "listening";
 * - a database file deleted or replaced under the server: said once, and from then on
 *   writes are refused with 503 rather than written to a file nobody will open again.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from "../support/small-disk.js";
import { CHROME, dayFrom, eventually, killAllChildren, spawnServe, steadyLoad, sum, tempDirectory, type Child } from "./support.js";

const API_KEY = "tly_reliability_sqlite_faults_0123456789";
const DOMAIN = "faults.example";
const RATE = 300;
const unavailable = smallDiskUnavailable();
if (unavailable !== null && process.env.CI === "true") throw new Error(`CI must run the disk-full tests: ${unavailable}.`);
if (unavailable !== null) console.warn(`[tally tests] SQLite disk tests skipped: ${unavailable}.`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const auth = { authorization: `Bearer ${API_KEY}` };

interface Health {
  code: number;
  body: { status: string; buffered: number; last_write: string | null; reason?: string };
}

async function health(server: Child): Promise<Health> {
  const response = await fetch(`${server.base}/health`);
  return { code: response.status, body: (await response.json()) as Health["body"] };
}

async function pageviewsAnswer(server: Child): Promise<{ count: number; warning: string | null }> {
  const response = await fetch(`${server.base}/api/v1/stats/1?name=pageviews&from=${dayFrom(-1)}&to=${dayFrom(1)}`, { headers: auth });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { count: number }[] };
  return { count: sum(body.data.map((row) => row.count)), warning: response.headers.get("warning") };
}

async function createWebsite(server: Child): Promise<void> {
  const response = await fetch(`${server.base}/api/v1/websites`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ domain: DOMAIN, exclude_bots: 0 }),
  });
  expect(response.status).toBe(201);
}

const written = async (server: Child) => {
  const now = await health(server);
  return now.code === 200 && now.body.buffered === 0;
};

const dirs: ReturnType<typeof tempDirectory>[] = [];
const disks: SmallDisk[] = [];
afterAll(() => {
  killAllChildren();
  for (const disk of disks) disk.unmount();
  for (const dir of dirs) dir.remove();
});

describe.skipIf(unavailable !== null)("SQLite on a small disk", () => {
  it(
    "disk full: 202 throughout, reads with a Warning, freed space used at once; SIGTERM keeps the rest in a file that the next start writes exactly once",
    { timeout: 120_000 },
    async () => {
      const disk = mountSmallDisk(24);
      disks.push(disk);
      const temp = tempDirectory("tally-faults-tmp-");
      dirs.push(temp);
      // The spill folder beside the file is on the full disk: the OS temp folder (TMPDIR) takes the file instead.
      const env = {
        DATABASE_URL: `file:${join(disk.path, "tally.sqlite")}`,
        TALLY_API_KEY: API_KEY,
        TRUST_PROXY: "true",
        RATE_LIMIT: "0",
        FLUSH_INTERVAL_MS: "300",
        CLOSE_TIMEOUT_MS: "1500",
        TMPDIR: temp.path,
      };
      let server = await spawnServe(env);
      await createWebsite(server);
      expect((await health(server)).body).toMatchObject({ status: "ok", buffered: 0 });
      let accepted = 0;

      // Full: the writes fail, the hits wait in memory, and everything else keeps working.
      disk.fill(32 * 1024);
      let load = steadyLoad(server.base, DOMAIN, RATE);
      // A failed write gives the WAL's space back, so a small batch may fit now and then: each
      // check below waits for a moment the store reports what it cannot write, not a single sample.
      let full = await health(server);
      await eventually("/health to report the full disk", async () => (full = await health(server)).code === 503);
      await sleep(1000);
      expect(full.body.status).toBe("unavailable");
      expect(full.body.reason).toMatch(/^the disk is full \(SQLITE_FULL/);
      let stale = await pageviewsAnswer(server);
      await eventually(
        "the pageviews to warn of hits not counted yet",
        async () => (stale = await pageviewsAnswer(server)).warning !== null,
      );
      expect(stale.warning).toMatch(/^199 tally "\d+ recent hits are not counted yet: the disk is full/);
      await load.stop();
      expect([...load.statuses.keys()]).toEqual([202]);
      accepted += load.accepted();

      // Freed: the next flush writes them all (the WAL gave its space back after the failed write).
      disk.free();
      await eventually("the kept hits to be written once space is free", () => written(server));
      const after = await pageviewsAnswer(server);
      expect(after).toEqual({ count: accepted, warning: null });

      // Full again, then a stop: what cannot be written is kept in a file.
      disk.fill(32 * 1024);
      load = steadyLoad(server.base, DOMAIN, RATE);
      await eventually("/health to report the full disk again", async () => (await health(server)).code === 503);
      await sleep(1000);
      await load.stop();
      expect([...load.statuses.keys()]).toEqual([202]);
      accepted += load.accepted();
      const exit = await server.stop("SIGTERM");
      expect(exit.code).toBe(0);
      const keptLine =
        /tally: (\d+) hits could not be written \([^)]*disk is full[^\n]*; kept in (\S+\.ndjson), to be written at the next start/.exec(
          server.output.stderr,
        );
      expect(keptLine, server.output.stderr).not.toBeNull();
      const keptFile = keptLine![2]!;
      expect(keptFile.startsWith(join(temp.path, "tally-spill"))).toBe(true);
      expect(existsSync(keptFile)).toBe(true);

      // The next start (with room again) writes the file, and deletes it.
      disk.free();
      server = await spawnServe(env);
      expect(server.output.stderr).toMatch(new RegExp(`tally: wrote ${keptLine![1]} hits kept at an earlier shutdown`));
      expect(existsSync(keptFile)).toBe(false);
      expect((await pageviewsAnswer(server)).count).toBe(accepted);
      await server.stop("SIGTERM");

      // And never again.
      server = await spawnServe(env);
      expect(server.output.stderr).not.toMatch(/kept at an earlier shutdown/);
      expect((await pageviewsAnswer(server)).count).toBe(accepted);
      await server.stop("SIGTERM");
    },
  );

  it(
    "the WAL fills the disk: freeing a little space (far less than the WAL held) is enough, its space is given back and every hit is written",
    { timeout: 120_000 },
    async () => {
      const disk = mountSmallDisk(24);
      disks.push(disk);
      const file = join(disk.path, "tally.sqlite");
      const server = await spawnServe({
        DATABASE_URL: `file:${file}`,
        TALLY_API_KEY: API_KEY,
        TRUST_PROXY: "true",
        RATE_LIMIT: "0",
        FLUSH_INTERVAL_MS: "200",
      });
      await createWebsite(server);
      // Less room than the WAL grows to between two checkpoints (about 4 MB).
      disk.fill(1536 * 1024);
      const load = steadyLoad(server.base, DOMAIN, RATE);
      await eventually("the disk to fill up", () => /the disk is full/.test(server.output.stderr), 60_000);
      await sleep(2000);
      await load.stop();
      expect([...load.statuses.keys()]).toEqual([202]);
      disk.shrink(256 * 1024);
      await eventually("every hit to be written once 256 KB are freed", () => written(server));
      expect((await pageviewsAnswer(server)).count).toBe(load.accepted());
      expect(statSync(`${file}-wal`).size).toBeLessThan(1536 * 1024);
      expect((await server.stop("SIGTERM")).code).toBe(0);
    },
  );

  it("a read-only database at start: one line, exit 1, never listening", { timeout: 60_000 }, async () => {
    const disk = mountSmallDisk(8);
    disks.push(disk);
    const env = { DATABASE_URL: `file:${join(disk.path, "tally.sqlite")}`, TALLY_API_KEY: API_KEY };
    const first = await spawnServe(env);
    expect((await first.stop("SIGTERM")).code).toBe(0);
    disk.readOnly();
    const refused = await spawnServe(env).then(
      () => null,
      (error: Error) => error.message,
    );
    disk.writable();
    expect(refused).not.toBeNull();
    expect(refused).toMatch(/exited \(1\) before listening/);
    const lines = refused!.split("\n").filter((line) => line.startsWith("tally:"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^tally: Cannot open the database file:\S+: it cannot be written: \S+ is on a read-only file system \(EROFS\)$/,
    );
    expect(refused).not.toContain("Tally is listening");
  });
});

describe("a database file deleted or replaced under the server", () => {
  for (const how of ["deleted", "replaced"] as const) {
    it(`${how}: said once in the log, then writes answer 503 (never to the ghost), /health says why`, { timeout: 60_000 }, async () => {
      const dir = tempDirectory("tally-ghost-");
      dirs.push(dir);
      const file = join(dir.path, "tally.sqlite");
      const server = await spawnServe({
        DATABASE_URL: `file:${file}`,
        TALLY_API_KEY: API_KEY,
        TRUST_PROXY: "true",
        RATE_LIMIT: "0",
        FLUSH_INTERVAL_MS: "200",
      });
      await createWebsite(server);
      const hit = () =>
        fetch(`${server.base}/collect`, {
          method: "POST",
          headers: { "content-type": "text/plain", "user-agent": CHROME, "x-forwarded-for": "203.0.113.7" },
          body: JSON.stringify({ u: `https://${DOMAIN}/a` }),
        });
      expect((await hit()).status).toBe(202);
      await eventually("the hit to be written", () => written(server));

      if (how === "deleted") {
        for (const name of readdirSync(dir.path)) rmSync(join(dir.path, name), { recursive: true, force: true });
      } else {
        mkdirSync(join(dir.path, "other"));
        writeFileSync(join(dir.path, "other", "tally.sqlite"), "");
        renameSync(join(dir.path, "other", "tally.sqlite"), file);
      }
      await eventually("/health to notice", async () => (await health(server)).code === 503, 10_000);
      expect((await health(server)).body.reason).toMatch(
        new RegExp(
          `^the database file was deleted or replaced \\(${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is (gone|another file now)\\)$`,
        ),
      );
      for (let i = 0; i < 3; i++) {
        const refused = await hit();
        expect(refused.status).toBe(503);
        expect(refused.headers.get("retry-after")).toBe("5");
      }
      const write = await fetch(`${server.base}/api/v1/websites`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ domain: "later.example" }),
      });
      expect(write.status).toBe(503);
      const said = server.output.stderr.split("\n").filter((line) => line.includes("deleted or replaced"));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/writes stop and requests answer 503 until Tally is restarted/);
      expect(server.child.exitCode).toBeNull();
      expect((await server.stop("SIGTERM")).code).toBe(0);
    });
  }
});
