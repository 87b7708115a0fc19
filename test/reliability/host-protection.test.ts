/**
 * Host protection: Tally runs inside someone else's process, so
 * - ingesting never blocks the host's event loop for long: a SQLite file is written
 *   by a worker thread, and an in-memory database (which only this connection can
 *   see) in bounded synchronous writes with a turn of the event loop between them;
 * - a database that cannot be written (locked by another connection) makes /collect
 *   answer 503 with Retry-After once `maxBufferedHits` wait, instead of growing memory,
 *   and every hit accepted meanwhile is written exactly once when the lock goes;
 * - the management API's rate limit answers 429 with Retry-After and X-RateLimit-*,
 *   per key (one account spending its budget does not touch another's).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import Database from "better-sqlite3";
import { createTally, type Tally } from "@tally-analytics/core";
import { afterAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports } from "../support/transports.js";
import { BROWSERS, CHROME, dayFrom, killAllChildren, snapshotTables, spawnServe, sum, tempDirectory } from "./support.js";

const fetchHandler = transports.find((t) => t.name === "fetch handler")!;
const MAX_EVENT_LOOP_DELAY_MS = 200;
const HITS = 200_000;

async function pageviewTotal(tally: Tally, accountId: number, websiteId: number): Promise<number> {
  const page = await tally.stats.query(accountId, websiteId, { name: "pageviews", from: dayFrom(-1), to: dayFrom(1) });
  return sum(page.data.map((row) => row.count));
}

describe("host protection", () => {
  const dirs: ReturnType<typeof tempDirectory>[] = [];
  afterAll(() => {
    killAllChildren();
    for (const dir of dirs) dir.remove();
  });

  it.each(["a SQLite file", "an in-memory SQLite database"])(
    `Host protection: ingesting ${HITS} hits in-process into %s never blocks the event loop ≥ ${MAX_EVENT_LOOP_DELAY_MS} ms (flush work bounded per tick)`,
    { timeout: 120_000 },
    async (kind) => {
      const dir = tempDirectory("tally-eld-");
      dirs.push(dir);
      const sqlite = new Database(kind === "a SQLite file" ? `${dir.path}/tally.sqlite` : ":memory:");
      // Measure every synchronous transaction too (the part that cannot yield).
      const transactionMs: number[] = [];
      const transaction = sqlite.transaction.bind(sqlite);
      const timed =
        (run: (...args: never[]) => unknown) =>
        (...args: never[]) => {
          const began = performance.now();
          try {
            return run(...args);
          } finally {
            transactionMs.push(performance.now() - began);
          }
        };
      sqlite.transaction = ((fn: (...args: never[]) => unknown) => {
        const run = transaction(fn);
        return Object.assign(timed(run), { immediate: timed(run.immediate) });
      }) as typeof sqlite.transaction;
      const tally = createTally({ database: sqlite });
      const { accountId } = await tally.accounts.create();
      const site = await tally.websites.create(accountId, { domain: "busy.example", exclude_bots: 0 });
      await tally.collect({ url: "https://busy.example/", ip: "10.0.0.1", userAgent: CHROME });
      await tally.flush();

      // Ingest as a busy host would receive hits: a few hundred per turn of the event loop.
      // On a shared machine other processes can stall this one, so up to two more runs
      // are allowed; the delay a blocking flush causes shows up in every run.
      const runs: { maxDelayMs: number; p99Ms: number; hitsPerSecond: number; maxTransactionMs: number; writes: number }[] = [];
      let collected = 1;
      for (let attempt = 0; attempt < 3; attempt++) {
        transactionMs.length = 0;
        const delay = monitorEventLoopDelay({ resolution: 5 });
        delay.enable();
        const began = performance.now();
        for (let i = 0; i < HITS; i += 250) {
          const turn: Promise<unknown>[] = [];
          for (let j = i; j < Math.min(HITS, i + 250); j++) {
            turn.push(
              tally.collect({
                url: `https://busy.example/p${j % 40}?utm_campaign=c${j % 7}`,
                referrer: j % 3 === 0 ? `https://r${j % 11}.example/` : "",
                ip: `10.${attempt + 1}.${(j >> 8) & 255}.${j & 255}`,
                userAgent: BROWSERS[j % 3]!,
                event: j % 10 === 0 ? "signup" : null,
                screen: "1920x1080",
                language: "en-US",
              }),
            );
          }
          await Promise.all(turn);
          collected += turn.length - turn.length / 10; // events are not pageviews
          await new Promise((resolve) => setImmediate(resolve));
        }
        await tally.flush();
        delay.disable();
        runs.push({
          maxDelayMs: Math.round(delay.max / 1e6),
          p99Ms: Math.round(delay.percentile(99) / 1e6),
          hitsPerSecond: Math.round(HITS / ((performance.now() - began) / 1000)),
          maxTransactionMs: Math.round(Math.max(...transactionMs)),
          writes: transactionMs.length,
        });
        console.log(`[host] run ${attempt + 1}: ${JSON.stringify(runs.at(-1))}`);
        if (runs.at(-1)!.maxDelayMs < MAX_EVENT_LOOP_DELAY_MS) break;
      }
      // Every hit written exactly once, however the flushes were split.
      expect(await pageviewTotal(tally, accountId, site.id)).toBe(collected);
      expect(Math.min(...runs.map((r) => r.maxDelayMs))).toBeLessThan(MAX_EVENT_LOOP_DELAY_MS);
      // No write on the host's thread was one long transaction: a file is written by the
      // worker (none here at all), memory in writes of at most 500 hits.
      if (kind === "a SQLite file") expect(runs[0]!.writes).toBe(0);
      else expect(runs[0]!.writes).toBeGreaterThanOrEqual(HITS / 500);
      await tally.close();
      sqlite.close();
    },
  );

  it(
    "Host protection: a locked database → /collect answers 503 + Retry-After past maxBufferedHits; after release every accepted hit is written exactly once",
    { timeout: 60_000 },
    async () => {
      const dir = tempDirectory("tally-lock-");
      dirs.push(dir);
      const file = `${dir.path}/tally.sqlite`;
      const sqlite = new Database(file);
      // A slow database: each write waits at most 20 ms for the lock, then fails (and is
      // retried). Set before createTally, which keeps a busy_timeout the app chose.
      sqlite.pragma("busy_timeout = 20");
      const flushErrors: unknown[] = [];
      const MAX_BUFFERED = 300;
      const tally = createTally({
        database: sqlite,
        maxBufferedHits: MAX_BUFFERED,
        flushIntervalMs: 100,
        onError: (error) => flushErrors.push(error),
      });
      const { accountId } = await tally.accounts.create();
      const site = await tally.websites.create(accountId, { domain: "locked.example", exclude_bots: 0 });
      const served = await fetchHandler.serve(tally);
      const hit = (i: number) =>
        served.fetch("/collect", {
          method: "POST",
          headers: { "content-type": "text/plain", "user-agent": CHROME },
          body: JSON.stringify({ u: `https://locked.example/p${i % 3}` }),
        });
      expect((await hit(0)).status).toBe(202); // today's salt exists before the lock
      await tally.flush();

      const locker = new Database(file);
      locker.exec("BEGIN IMMEDIATE");
      let accepted = 0;
      let refused = 0;
      let slowest = 0;
      for (let i = 1; i <= 1500; i++) {
        const began = performance.now();
        const response = await hit(i);
        slowest = Math.max(slowest, performance.now() - began);
        const body = (await response.json()) as { status: number; message: string };
        expect(body.status).toBe(response.status);
        if (response.status === 202) accepted++;
        else {
          expect(response.status).toBe(503);
          expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
          expect(body.message).toMatch(/try again/i);
          refused++;
        }
        if (i % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 20)); // let background flushes try (and fail)
      }
      console.log(
        `[host] locked: ${accepted} accepted, ${refused} refused with 503, ${flushErrors.length} failed flushes, slowest answer ${Math.round(slowest)} ms`,
      );
      // Memory is bounded: no more hits wait than maxBufferedHits; the rest were refused at once.
      expect(accepted).toBeLessThanOrEqual(MAX_BUFFERED);
      expect(refused).toBe(1500 - accepted);
      expect(flushErrors.length).toBeGreaterThan(0);
      expect(slowest).toBeLessThan(1000);

      locker.exec("COMMIT");
      locker.close();
      // Written once the lock is gone: the refused ones never, the accepted ones exactly once.
      expect(await pageviewTotal(tally, accountId, site.id)).toBe(1 + accepted);
      expect((await hit(9999)).status).toBe(202);
      expect(await pageviewTotal(tally, accountId, site.id)).toBe(2 + accepted);
      await tally.close();
      sqlite.close();
    },
  );

  it("Host protection: the management API rate limit → 429 with Retry-After and X-RateLimit-*, per key", async () => {
    const fixture = createTempTally();
    const { tally, file } = fixture;
    try {
      const a = await tally.accounts.create({ name: "a" });
      const b = await tally.accounts.create({ name: "b" });
      const served = await fetchHandler.serve(tally, { rateLimit: { limit: 5, windowMs: 60_000 } });
      const asA = apiClient(served, a.key);
      const asB = apiClient(served, b.key);
      for (let i = 1; i <= 5; i++) {
        const response = await asA.get("/api/v1/websites");
        expect(response.status).toBe(200);
        expect(response.headers.get("x-ratelimit-limit")).toBe("5");
        expect(response.headers.get("x-ratelimit-remaining")).toBe(String(5 - i));
      }
      await tally.flush();
      const before = snapshotTables(file);
      for (const call of [
        () => asA.get("/api/v1/websites"),
        () => asA.get("/api/v1/account"),
        () => asA.post("/api/v1/websites", { body: new URLSearchParams({ domain: "limited.example" }) }),
      ]) {
        const response = await call();
        expect(response.status).toBe(429);
        expect(response.body).toEqual({ message: "Too Many Attempts.", status: 429 });
        const retryAfter = Number(response.headers.get("retry-after"));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(response.headers.get("x-ratelimit-limit")).toBe("5");
        expect(response.headers.get("x-ratelimit-remaining")).toBe("0");
      }
      // Refused means not done.
      expect(snapshotTables(file)).toEqual(before);
      // Another key has its own budget.
      const other = await asB.get("/api/v1/websites");
      expect(other.status).toBe(200);
      expect(other.headers.get("x-ratelimit-remaining")).toBe("4");
    } finally {
      await fixture.dispose();
    }

    // `tally serve` wires RATE_LIMIT (on by default) to the same limiter.
    const dir = tempDirectory("tally-rl-");
    dirs.push(dir);
    const key = "tly_reliability_ratelimit_key_0123456789";
    const server = await spawnServe({ DATABASE_URL: `file:${dir.path}/tally.sqlite`, TALLY_API_KEY: key, RATE_LIMIT: "3" });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${server.base}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } });
      statuses.push(response.status);
      if (response.status === 429) expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    }
    await server.stop();
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
