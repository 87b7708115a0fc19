/**
 * PostgreSQL going away under a running `tally serve`: a private cluster of the test's
 * own (test/support/private-postgres.ts) is stopped for 20 s, and restarted fast, while
 * ~300 hits a second arrive. The process stays up, every hit answered 202 is counted
 * exactly once, nothing is answered 500, `/health` says what is wrong meanwhile, and
 * the log holds one line per kind of failure and one when writes work again, never a
 * driver object (a pg Client carries its cancel key).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from "../support/private-postgres.js";
import { createWebsite, dayFrom, eventually, health, killAllChildren, sleep, spawnServe, steadyLoad, sum, type Child } from "./support.js";

const API_KEY = "tly_reliability_pg_outage_0123456789abcdef";
const DOMAIN = "outage.example";
const RATE = 300;
const unavailable = privatePostgresUnavailable();
if (unavailable !== null && process.env.CI === "true") throw new Error(`CI must run the PostgreSQL outage tests: ${unavailable}.`);
if (unavailable !== null) console.warn(`[tally tests] PostgreSQL outage tests skipped: ${unavailable}.`);

const auth = { authorization: `Bearer ${API_KEY}` };

async function pageviews(server: Child): Promise<number> {
  const response = await fetch(`${server.base}/api/v1/stats/1?name=pageviews&from=${dayFrom(-1)}&to=${dayFrom(1)}`, { headers: auth });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { count: number }[] };
  return sum(body.data.map((row) => row.count));
}

/** Waits until everything accepted is written, then compares with what the API counts. */
async function expectEveryAcceptedCounted(server: Child, accepted: number): Promise<void> {
  await eventually("the buffered hits to be written", async () => {
    const now = await health(server);
    return now.code === 200 && now.body.buffered === 0;
  });
  expect(await pageviews(server)).toBe(accepted);
}

describe.skipIf(unavailable !== null)("PostgreSQL outages under load", () => {
  let postgres: PrivatePostgres;
  let server: Child;
  let counted = 0;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    server = await spawnServe({
      DATABASE_URL: postgres.url,
      TALLY_API_KEY: API_KEY,
      TRUST_PROXY: "true",
      RATE_LIMIT: "0",
      FLUSH_INTERVAL_MS: "500",
    });
    expect((await createWebsite(server, API_KEY, DOMAIN)).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    killAllChildren();
    await postgres?.dispose();
  });

  it("a restart right after one hit (its connection idle in the pool) does not end the process", { timeout: 60_000 }, async () => {
    const hit = await fetch(`${server.base}/collect`, {
      method: "POST",
      headers: {
        "content-type": "text/plain",
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36",
        "x-forwarded-for": "203.0.113.9",
      },
      body: JSON.stringify({ u: `https://${DOMAIN}/first` }),
    });
    expect(hit.status).toBe(202);
    counted += 1;
    await eventually("the hit to be written", async () => (await health(server)).body.buffered === 0);
    await postgres.restart();
    await sleep(1500);
    expect(server.child.exitCode).toBeNull();
    await expectEveryAcceptedCounted(server, counted);
  });

  it(
    "stopped for 20 s under load: the process stays up, /collect answers 202 throughout, /health says why, every hit is counted once",
    { timeout: 120_000 },
    async () => {
      const load = steadyLoad(server.base, DOMAIN, RATE);
      await sleep(2000);
      await postgres.stop();
      await sleep(3000);
      const during = await health(server);
      expect(during.code).toBe(503);
      expect(during.body).toMatchObject({ status: "unavailable" });
      expect(during.body.reason).toMatch(/the database is unreachable/);
      expect(during.body.buffered).toBeGreaterThan(0);
      // Statistics cannot be read either: a 503 to retry, not a 500.
      const read = await fetch(`${server.base}/api/v1/stats/1/totals?from=${dayFrom(0)}&to=${dayFrom(0)}`, { headers: auth });
      expect(read.status).toBe(503);
      expect(read.headers.get("retry-after")).toBe("5");
      await sleep(17_000);
      await postgres.start();
      await sleep(3000);
      await load.stop();

      expect(server.child.exitCode).toBeNull();
      expect(load.transportErrors).toBe(0);
      expect([...load.statuses.keys()]).toEqual([202]);
      expect(load.accepted()).toBeGreaterThan(RATE * 20);
      counted += load.accepted();
      await expectEveryAcceptedCounted(server, counted);
    },
  );

  it("a fast restart under load: nothing lost, nothing counted twice", { timeout: 90_000 }, async () => {
    const load = steadyLoad(server.base, DOMAIN, RATE);
    await sleep(2500);
    await postgres.restart();
    await sleep(3000);
    await load.stop();

    expect(server.child.exitCode).toBeNull();
    expect(load.transportErrors).toBe(0);
    expect([...load.statuses.keys()]).toEqual([202]);
    counted += load.accepted();
    await expectEveryAcceptedCounted(server, counted);
  });

  it("the log says each kind of failure in one line (no driver object, no secrets) and when writes work again", () => {
    const log = server.output.stderr + server.output.stdout;
    expect(log).not.toMatch(/secretKey|Client \{|_events|at .*node_modules/);
    const failures = log.split("\n").filter((line) => line.includes("retrying"));
    // Three outages within a minute: one line for "unreachable" (the others are within its minute), at most one other kind.
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(failures.length).toBeLessThanOrEqual(3);
    for (const line of failures) expect(line).toMatch(/^tally: \d+ hits wait to be written, retrying: the database is unreachable \(/);
    expect(log).toMatch(/tally: the database takes writes again after \d+ s; the \d+ hits kept meanwhile are being written/);
    expect(log).not.toContain("Server error");
  });

  it("SIGTERM after all that exits 0", { timeout: 60_000 }, async () => {
    const exit = await server.stop("SIGTERM");
    expect(exit.code).toBe(0);
  });
});
