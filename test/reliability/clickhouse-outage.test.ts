/**
 * ClickHouse going away under a running `tally serve`: the process reaches ClickHouse over
 * HTTP (chDB in this test's process behind ClickHouse's HTTP interface,
 * test/support/clickhouse-http.ts), and the listener is stopped for 20 s, its connections
 * cut, while 200 hits a second arrive. The process stays up, `/collect` answers 202
 * throughout, `/health` names ClickHouse meanwhile, and once it is back every hit answered
 * 202 is in ClickHouse exactly once (rows counted in ClickHouse), and none in the database.
 * Then a SIGTERM while ClickHouse is down: the hits it refuses are kept in a file and
 * written, once, by the next start.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveChdbOverHttp, type ClickhouseOverHttp } from "../support/clickhouse-http.js";
import {
  createWebsite,
  dayFrom,
  eventually,
  health,
  killAllChildren,
  rollupTotals,
  sleep,
  spawnServe,
  steadyLoad,
  sum,
  tempDirectory,
  type Child,
} from "./support.js";

const API_KEY = "tly_reliability_ch_outage_0123456789abcdef";
const DOMAIN = "outage.example";
const RATE = 200;
const auth = { authorization: `Bearer ${API_KEY}` };

describe("ClickHouse outages under load", () => {
  const folder = tempDirectory("tally-ch-outage-");
  const spillDir = join(folder.path, "spill");
  const databaseFile = join(folder.path, "tally.sqlite");
  let clickhouse: ClickhouseOverHttp;
  let env: Record<string, string>;
  let server: Child;
  let accepted = 0;

  /** Rows ClickHouse holds. */
  async function clickhouseRows(): Promise<number> {
    const [row] = await clickhouse.rows<{ rows: string }>("SELECT count() AS rows FROM tally_hits", "outage");
    return Number(row!.rows);
  }
  /** Pageviews the API answers (counted by ClickHouse) and those of the database's rollups (none: the events live in ClickHouse). */
  async function pageviews(): Promise<{ api: number; database: number }> {
    const response = await fetch(`${server.base}/api/v1/stats/1?name=pageviews&from=${dayFrom(-1)}&to=${dayFrom(1)}`, { headers: auth });
    expect(response.status).toBe(200);
    const api = sum(((await response.json()) as { data: { count: number }[] }).data.map((row) => row.count));
    return { api, database: sum(rollupTotals(databaseFile, 1).get("page")?.values() ?? []) };
  }
  async function expectEveryAcceptedOnce(): Promise<void> {
    await eventually("the kept hits to be written", async () => {
      const now = await health(server);
      return now.code === 200 && now.body.buffered === 0;
    });
    expect(await clickhouseRows()).toBe(accepted);
    expect(await pageviews()).toEqual({ api: accepted, database: 0 });
  }

  beforeAll(async () => {
    clickhouse = await serveChdbOverHttp(join(folder.path, "clickhouse"));
    env = {
      DATABASE_URL: `file:${databaseFile}`,
      CLICKHOUSE_URL: await clickhouse.url("outage"),
      TALLY_API_KEY: API_KEY,
      TALLY_SPILL_DIR: spillDir,
      TRUST_PROXY: "true",
      RATE_LIMIT: "0",
      FLUSH_INTERVAL_MS: "500",
      CLOSE_TIMEOUT_MS: "2000",
    };
    server = await spawnServe(env);
    expect((await createWebsite(server, API_KEY, DOMAIN)).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    killAllChildren();
    await clickhouse?.close();
    folder.remove();
  });

  it(
    "stopped for 20 s under load: the process stays up, /health names ClickHouse, every hit is written once",
    { timeout: 120_000 },
    async () => {
      const load = steadyLoad(server.base, DOMAIN, RATE);
      await sleep(2000);
      await clickhouse.stop();
      await sleep(3000);
      const during = await health(server);
      expect(during.code).toBe(503);
      expect(during.body).toMatchObject({ status: "unavailable" });
      expect(during.body.reason).toMatch(/^ClickHouse is unreachable \(/);
      expect(during.body.buffered).toBeGreaterThan(0);
      await sleep(17_000);
      await clickhouse.start();
      await sleep(3000);
      await load.stop();

      expect(server.child.exitCode).toBeNull();
      expect(load.transportErrors).toBe(0);
      expect([...load.statuses.keys()]).toEqual([202]);
      expect(load.accepted()).toBeGreaterThan(RATE * 20);
      accepted += load.accepted();
      await expectEveryAcceptedOnce();
      const log = server.output.stderr + server.output.stdout;
      expect(log).toMatch(/tally: \d+ hits wait to be written, retrying: ClickHouse is unreachable \(/);
      expect(log).toMatch(/tally: ClickHouse takes writes again after \d+ s; the \d+ hits kept meanwhile are being written/);
    },
  );

  it("an idle Tally finds ClickHouse gone on /health, and back", { timeout: 60_000 }, async () => {
    await clickhouse.stop();
    // An idle store is probed when nothing was written for 10 s.
    await eventually(
      "/health to say ClickHouse is unreachable",
      async () => (await health(server)).body.reason?.startsWith("ClickHouse") === true,
      20_000,
    );
    await clickhouse.start();
    await eventually("/health to be ok again", async () => (await health(server)).code === 200, 20_000);
  });

  it(
    "SIGTERM while ClickHouse is down keeps the refused hits in a file; the next start writes them once",
    { timeout: 90_000 },
    async () => {
      const load = steadyLoad(server.base, DOMAIN, RATE);
      await sleep(1000);
      await clickhouse.stop();
      await sleep(1500);
      await load.stop();
      accepted += load.accepted();
      expect((await health(server)).body.buffered).toBeGreaterThan(0);

      const exit = await server.stop("SIGTERM");
      expect(exit.code).toBe(0);
      const kept = readdirSync(spillDir).filter((name) => name.endsWith(".ndjson"));
      expect(kept).toHaveLength(1);

      await clickhouse.start();
      server = await spawnServe(env);
      expect(server.output.stderr).toMatch(/tally: wrote \d+ hits kept at an earlier shutdown/);
      expect(readdirSync(spillDir).filter((name) => name.endsWith(".ndjson"))).toEqual([]);
      await expectEveryAcceptedOnce();
      expect((await server.stop("SIGTERM")).code).toBe(0);
    },
  );
});
