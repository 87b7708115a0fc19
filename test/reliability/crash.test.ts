/**
 * Crash: a `tally serve` child ingesting hits over HTTP is killed mid-ingest.
 * - SIGKILL: the SQLite file passes `integrity_check` and reopens (the server starts
 *   again on it); what is lost is at most the hits of the last unflushed interval:
 *   hits whose 202 arrived within FLUSH_INTERVAL_MS (+ a margin for the flush itself)
 *   before the kill. Every hit answered earlier is counted.
 * - SIGTERM: the server stops accepting, writes everything buffered and exits 0; the
 *   statistics equal the accepted hits exactly (no loss, nothing counted twice).
 */
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { CHROME, dayFrom, keepAliveAgent, killAllChildren, send, spawnServe, sum, tempDirectory, type Child } from "./support.js";

const API_KEY = "tly_reliability_crash_key_0123456789abcdef";
const DOMAIN = "crash.example";
const FLUSH_INTERVAL_MS = 1000;
/** Time a flush itself may take after its interval ends (it runs in chunks). */
const FLUSH_MARGIN_MS = 500;
const IN_FLIGHT = 24;

async function startServer(file: string): Promise<Child> {
  return spawnServe({
    DATABASE_URL: `file:${file}`,
    TALLY_API_KEY: API_KEY,
    TRUST_PROXY: "true",
    RATE_LIMIT: "0",
    FLUSH_INTERVAL_MS: String(FLUSH_INTERVAL_MS),
  });
}

async function createWebsite(server: Child): Promise<void> {
  const response = await fetch(`${server.base}/api/v1/websites`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ domain: DOMAIN, exclude_bots: 0 }),
  });
  expect(response.status).toBe(201);
}

async function pageviews(server: Child): Promise<number> {
  const response = await fetch(`${server.base}/api/v1/stats/1?name=pageviews&from=${dayFrom(-1)}&to=${dayFrom(1)}`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { count: number }[] };
  return sum(body.data.map((row) => row.count));
}

/** Sends hits with IN_FLIGHT requests at a time until a request fails (the server is gone). */
function ingest(server: Child) {
  const agent = keepAliveAgent(IN_FLIGHT);
  const state = { sent: 0, answered: 0, failed: 0, acceptedAt: [] as number[], other: 0 };
  let stopped = false;
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      state.sent++;
      try {
        const reply = await send(agent, `${server.base}/collect`, {
          method: "POST",
          headers: { "content-type": "text/plain", "user-agent": CHROME, "x-forwarded-for": `198.51.100.${(w * 7 + i) % 200}` },
          body: JSON.stringify({ u: `https://${DOMAIN}/page-${i % 5}` }),
        });
        state.answered++;
        if (reply.status === 202) state.acceptedAt.push(performance.now());
        else state.other++;
      } catch {
        state.failed++;
        stopped = true;
      }
    }
  };
  const done = Promise.all(Array.from({ length: IN_FLIGHT }, (_, w) => worker(w))).then(() => agent.destroy());
  return { state, done };
}

/** Lets the ingest run at least `ms` and until 3,000 hits were accepted (a slow, shared machine). */
async function steadyIngest(run: ReturnType<typeof ingest>, ms: number): Promise<void> {
  const began = performance.now();
  while (performance.now() - began < ms || run.state.acceptedAt.length < 3000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("crash", () => {
  const dirs: ReturnType<typeof tempDirectory>[] = [];
  afterAll(() => {
    killAllChildren();
    for (const dir of dirs) dir.remove();
  });

  /** `tally serve` on a new SQLite file, with the website the ingest posts to. */
  async function freshServer(prefix: string) {
    const dir = tempDirectory(prefix);
    dirs.push(dir);
    const file = `${dir.path}/tally.sqlite`;
    const server = await startServer(file);
    await createWebsite(server);
    return { file, server };
  }

  it(
    "Crash: SIGKILL mid-ingest → the SQLite file reopens cleanly and at most the last flush interval of hits is lost",
    { timeout: 60_000 },
    async () => {
      const { file, server } = await freshServer("tally-crash-");

      const run = ingest(server);
      // Several flush intervals of steady ingest, then a hard kill in the middle of it.
      await steadyIngest(run, 3.5 * FLUSH_INTERVAL_MS);
      const killedAt = performance.now();
      const inFlight = run.state.sent - run.state.answered;
      server.child.kill("SIGKILL");
      const exit = await server.exited;
      await run.done;
      expect(exit.signal).toBe("SIGKILL");

      const accepted = run.state.acceptedAt.length;
      const lastInterval = run.state.acceptedAt.filter((t) => t > killedAt - FLUSH_INTERVAL_MS - FLUSH_MARGIN_MS).length;
      expect(accepted).toBeGreaterThan(2000);
      expect(run.state.other).toBe(0);

      // The file is sound and opens again.
      const db = new Database(file);
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      db.close();
      const again = await startServer(file);
      const counted = await pageviews(again);
      await again.stop("SIGTERM");

      console.log(
        `[crash] SIGKILL: accepted ${accepted}, counted ${counted}, lost ${accepted - counted}, ` +
          `allowed ${lastInterval} (202s in the last ${FLUSH_INTERVAL_MS} + ${FLUSH_MARGIN_MS} ms), in flight ${inFlight}`,
      );
      expect(counted).toBeGreaterThanOrEqual(accepted - lastInterval);
      // Requests in flight at the kill may have been counted without their 202 arriving.
      expect(counted).toBeLessThanOrEqual(accepted + inFlight);
    },
  );

  it("Crash: SIGTERM mid-ingest → every accepted hit is counted, exactly (zero loss)", { timeout: 60_000 }, async () => {
    const { file, server } = await freshServer("tally-term-");

    const run = ingest(server);
    await steadyIngest(run, 2.5 * FLUSH_INTERVAL_MS);
    server.child.kill("SIGTERM");
    const exit = await server.exited;
    await run.done;
    expect(exit.code).toBe(0);

    const accepted = run.state.acceptedAt.length;
    expect(accepted).toBeGreaterThan(2000);
    expect(run.state.other).toBe(0);
    const db = new Database(file);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
    const again = await startServer(file);
    const counted = await pageviews(again);
    await again.stop("SIGTERM");
    console.log(`[crash] SIGTERM: accepted ${accepted}, counted ${counted}, refused connections ${run.state.failed}`);
    expect(counted).toBe(accepted);
  });
});
