/**
 * Several Tally instances on one PostgreSQL database (docs/postgresql.md), and on one
 * PostgreSQL with their hits in one ClickHouse (docs/clickhouse.md: chDB in this process,
 * reached by every instance over ClickHouse's HTTP interface, test/support/clickhouse-http.ts):
 * they start at once on an empty database, share salts, and split one visitor's hits between
 * them without counting anyone twice; the 17 statistics equal those of a single instance
 * that received the same hits.
 *
 * Timing: the HTTP endpoint stamps hits with the server clock, and a visit ends after
 * 30 minutes without hits. Every hit here arrives within a minute, so the timeout never
 * fires and visits depend only on the order of each visitor's hits. Statistics are read
 * for the UTC day of the run (websites default to UTC); the hour series are compared
 * by their sums when a UTC hour boundary falls inside the run.
 *
 * Order across instances: each instance buffers hits and writes them about once a
 * second, so when one visitor's consecutive hits go to different instances, the later
 * hit can be written first. Counts of hits and visitors do not depend on that order,
 * but where a visit starts does (landing page, referrer, campaign: docs/statistics.md
 * defines them on hits "in time order"). So the traffic runs twice over both instances:
 * - "shop.example": each hit goes to a random instance, no coordination. This is the
 *   race the row locking exists for (both instances hold the same new visitor in their
 *   buffers and flush at once). The order-independent statistics must equal the
 *   baseline exactly; those of where visits start and end may differ and are only reported.
 * - "relay.example": hits alternate between instances, in rounds: every visitor's first
 *   hit, then every visitor's second hit (each to the other instance than the first), and
 *   so on. Between rounds both instances are made to flush (a stats read flushes first),
 *   so a visitor's next hit goes to the other instance only after the previous one is
 *   written. Hits of one visitor are then written in time order, so every statistic must
 *   equal the baseline exactly, while within a round both instances take hits and flush at
 *   once. (A flush forced before every single hand-off, as many as there are hits, made
 *   the run as long as those flushes: on ClickHouse each is an insert and a read.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTally, type StatName } from "@tally-analytics/core";
import { VISIT_COLUMNS } from "@tally-analytics/core/internal";
import { serveChdbOverHttp, type ClickhouseOverHttp } from "../support/clickhouse-http.js";
import { DIALECTS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import {
  assertCliBuilt,
  forceFlush,
  generateVisitors,
  hourUtc,
  postHit,
  readStatistics,
  seededRandom,
  serveEnv,
  spawnServe,
  tallyOptions,
  todayUtc,
  type GeneratedVisitor,
  type Installation,
  type ServeProcess,
  type Statistics,
} from "./cluster.js";

const API_KEY = "tally_test_0123456789abcdefghijABCDEFGHIJ"; // 40 characters
const SEED = 20261121;
const VISITORS = 300;
const IN_FLIGHT = 20;
const FREE = "shop.example";
const RELAY = "relay.example";
/**
 * Statistics that depend on which hit of a visitor was written first: where visits start and
 * end (each visit column counted once per visit or as the exit page, and the visit series).
 */
const ORDER_DEPENDENT: ReadonlySet<string> = new Set([
  ...VISIT_COLUMNS.filter(({ counted }) => counted === "visit" || counted === "exit").map(({ statistic }) => statistic),
  "visits",
  "bounce_rate",
  "visit_duration",
  "views_per_visit",
]);
const HOUR_SERIES: ReadonlySet<StatName> = new Set(["pageviews_hours", "visitors_hours"]);
/**
 * Statistics that depend on when hits arrive, which /collect takes from the server's clock:
 * the relayed visitors' hits arrive seconds apart (a forced flush between any two), the
 * single instance's milliseconds apart, so their visits last differently long. Compared
 * by what does not depend on arrival times: the visits they are averaged over.
 */
const ARRIVAL_DEPENDENT: ReadonlySet<StatName> = new Set(["visit_duration"]);

/** Runs `send` for every item, IN_FLIGHT at a time. */
async function workers(items: readonly number[], send: (item: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await send(items[next++]!);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** Where the instances' hits go, beside their PostgreSQL database. */
interface HitStorage {
  name: string;
  /** Settings of every `tally serve` of the run. */
  serveEnv: Record<string, string>;
  /** Of the overlapping traffic, for a loaded 2-core machine (measured at load average 15: 74-120 s on PostgreSQL, 260 s on ClickHouse). */
  timeoutMs: number;
  /** ClickHouse's URL for a new installation, or none: the hits stay in PostgreSQL. */
  clickhouseFor(installation: number): Promise<string | undefined>;
  close(): Promise<void>;
}

const inPostgres = (): HitStorage => ({
  name: "PostgreSQL",
  serveEnv: {},
  timeoutMs: 240_000,
  clickhouseFor: async () => undefined,
  close: async () => {},
});

/** One chDB for the file, behind ClickHouse's HTTP interface: a ClickHouse database per installation. */
function inClickhouse(): HitStorage {
  let front: Promise<{ folder: string; http: ClickhouseOverHttp }> | undefined;
  const open = () =>
    (front ??= (async () => {
      const folder = mkdtempSync(join(tmpdir(), "tally-multi-instance-ch-"));
      return { folder, http: await serveChdbOverHttp(join(folder, "clickhouse")) };
    })());
  return {
    name: "ClickHouse",
    // One insert a flush, taken one at a time by the one chDB of three instances: on a loaded
    // machine each waits its turns for CPU (0.75 s an insert measured at load average 15, where
    // the same insert alone in a process took 5-100 ms), so the instances write every 3 s instead
    // of every second: fewer, larger inserts, as ClickHouse prefers.
    serveEnv: { FLUSH_INTERVAL_MS: "3000" },
    timeoutMs: 480_000,
    clickhouseFor: async (installation) => (await open()).http.url(`installation_${installation}`),
    async close() {
      if (!front) return;
      const { folder, http } = await front;
      await http.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

describe.skipIf(!DIALECTS.includes("postgres")).each([inPostgres(), inClickhouse()])(
  "several instances on one PostgreSQL, hits in $name",
  (storage) => {
    const databases: TestDatabase[] = [];
    const processes: ServeProcess[] = [];
    let pair: [ServeProcess, ServeProcess] | undefined;
    let multi: Installation;

    async function freshInstallation(): Promise<Installation> {
      const database = await createTestDatabase("postgres");
      databases.push(database);
      const clickhouse = await storage.clickhouseFor(databases.length);
      return { database: database.url, ...(clickhouse === undefined ? {} : { clickhouse }) };
    }

    async function serve(installation: Installation): Promise<ServeProcess> {
      const started = await spawnServe({ ...serveEnv(installation), ...storage.serveEnv, TALLY_API_KEY: API_KEY });
      processes.push(started);
      return started;
    }

    beforeAll(async () => {
      assertCliBuilt();
      multi = await freshInstallation();
    });

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop()));
      await Promise.all(databases.map((d) => d.dispose()));
      await storage.close();
    });

    it("two `tally serve` processes started at the same moment on an empty database both come up", async () => {
      const started = await Promise.allSettled([serve(multi), serve(multi)]);
      const failures = started.filter((s): s is PromiseRejectedResult => s.status === "rejected").map((s) => String(s.reason));
      expect(failures).toEqual([]);
      pair = started.map((s) => (s as PromiseFulfilledResult<ServeProcess>).value) as [ServeProcess, ServeProcess];
      // The same key works on both: one account, created once.
      for (const instance of pair) {
        const response = await fetch(`${instance.base}/api/v1/websites`, { headers: { authorization: `Bearer ${API_KEY}` } });
        expect(response.status).toBe(200);
      }
      const tally = createTally(tallyOptions(multi));
      try {
        expect(await tally.accounts.count()).toBe(1);
      } finally {
        await tally.close();
      }
    });

    it("in-process: two createTally + ready() at once on a fresh database, 5 times (migrations, key, salt, first visitor)", async () => {
      for (let round = 0; round < 5; round++) {
        const installation = await freshInstallation();
        const a = createTally({ ...tallyOptions(installation), flushIntervalMs: 60_000 });
        const b = createTally({ ...tallyOptions(installation), flushIntervalMs: 60_000 });
        try {
          await Promise.all([a.ready(), b.ready()]);
          // What `serve` does next on both: make sure the configured key has an account.
          const [accountA, accountB] = await Promise.all([a.accounts.ensureKey(API_KEY), b.accounts.ensureKey(API_KEY)]);
          expect(accountA.id).toBe(accountB.id);
          expect(await a.accounts.count()).toBe(1);
          const website = await a.websites.create(accountA.id, { domain: "race.example" });
          // The first hit of the day on both at once: both create today's salt, and both
          // claim the same new visitor in concurrent flushes. One visitor, two pageviews.
          const hit = {
            url: "https://race.example/",
            ip: "203.0.113.9",
            userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
          };
          await Promise.all([a.collect(hit), b.collect({ ...hit, url: "https://race.example/b" })]);
          await Promise.all([a.flush(), b.flush()]);
          const day = todayUtc();
          const visitors = await a.stats.query(accountA.id, website.id, { name: "visitors", from: day, to: day });
          const pageviews = await b.stats.query(accountA.id, website.id, { name: "pageviews", from: day, to: day });
          expect(visitors.data).toEqual([{ value: day, count: 1 }]);
          expect(pageviews.data).toEqual([{ value: day, count: 2 }]);
          const landing = await a.stats.query(accountA.id, website.id, { name: "landing_page", from: day, to: day });
          expect(landing.data.reduce((sum, row) => sum + row.count, 0)).toBe(1);
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      }
    }, 120_000); // ~6 s on an idle machine; 30 s was not enough at load average 15

    it(
      "overlapping traffic through both instances counts exactly what one instance counts",
      async (context) => {
        // A run must not straddle UTC midnight: the statistics are read for one day.
        const msToMidnight = 86_400_000 - (Date.now() % 86_400_000);
        if (msToMidnight < 90_000) await new Promise((resolve) => setTimeout(resolve, msToMidnight + 1000));
        const day = todayUtc();
        const hourAtStart = hourUtc();

        pair ??= [await serve(multi), await serve(multi)];
        const [a, b] = pair;
        const base = await freshInstallation();
        const single = await serve(base);

        const siteIds = new Map<string, number>();
        for (const [instance, label] of [
          [a, "multi"],
          [single, "single"],
        ] as const) {
          for (const domain of [FREE, RELAY]) {
            const response = await fetch(`${instance.base}/api/v1/websites`, {
              method: "POST",
              headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/x-www-form-urlencoded" },
              body: new URLSearchParams({ domain }),
            });
            expect(response.status, await response.clone().text()).toBe(201);
            siteIds.set(`${label}:${domain}`, ((await response.json()) as { data: { id: number } }).data.id);
          }
        }

        const visitors = generateVisitors(SEED, VISITORS);
        const hitCount = visitors.reduce((sum, v) => sum + v.hits.length, 0);
        const pageviewCount = visitors.reduce((sum, v) => sum + v.hits.filter((h) => h.event === null).length, 0);
        const eventCount = hitCount - pageviewCount;

        const started = performance.now();
        const route = seededRandom(SEED + 1);
        const freeRoutes = visitors.map((v) => v.hits.map(() => (route() < 0.5 ? 0 : 1)));
        const relayStarts = visitors.map(() => (route() < 0.5 ? 0 : 1));
        const instances = [a, b] as const;
        let handoffs = 0;
        let switches = 0;

        // Each stream runs IN_FLIGHT workers; a worker sends one visitor's hits one after
        // the other (awaiting each), so a visitor's hits are milliseconds apart while
        // IN_FLIGHT visitors are under way at once (the relay: one round's hits at a time).
        const sendFree = async (visitor: GeneratedVisitor, index: number) => {
          for (const [h, hit] of visitor.hits.entries()) {
            const to = freeRoutes[index]![h]!;
            if (h > 0 && to !== freeRoutes[index]![h - 1]) switches++;
            await postHit(instances[to]!.base, `https://${FREE}`, visitor, hit);
          }
        };
        const relayRounds = async () => {
          const rounds = Math.max(...visitors.map((visitor) => visitor.hits.length));
          for (let h = 0; h < rounds; h++) {
            if (h > 0) {
              // Every hit of the round before is written before any visitor's next hit goes to the other instance.
              await Promise.all(instances.map((instance) => forceFlush(instance.base, API_KEY, siteIds.get(`multi:${RELAY}`)!, day)));
              handoffs += visitors.filter((visitor) => h < visitor.hits.length).length;
            }
            const due = visitors.flatMap((visitor, index) => (h < visitor.hits.length ? [index] : []));
            await workers(due, async (index) => {
              const visitor = visitors[index]!;
              await postHit(instances[(relayStarts[index]! + h) % 2]!.base, `https://${RELAY}`, visitor, visitor.hits[h]!);
            });
          }
        };
        const sendSingle = async (visitor: GeneratedVisitor, domain: string) => {
          for (const hit of visitor.hits) await postHit(single.base, `https://${domain}`, visitor, hit);
        };
        const everyone = visitors.map((_, index) => index);

        await Promise.all([
          workers(everyone, (index) => sendFree(visitors[index]!, index)),
          relayRounds(),
          workers(everyone, (index) => sendSingle(visitors[index]!, FREE)),
          workers(everyone, (index) => sendSingle(visitors[index]!, RELAY)),
        ]);
        const sentMs = performance.now() - started;

        // SIGTERM: each stops accepting, flushes what it buffered, closes and exits 0.
        const codes = await Promise.all([a.stop(), b.stop(), single.stop()]);
        const stoppedMs = performance.now() - started;
        const logs = [a, b, single].map((p, i) => `--- instance ${"ABC"[i]} stderr:\n${p.stderr()}`).join("\n");
        expect(codes, logs).toEqual([0, 0, 0]);
        for (const instance of [a, b, single]) expect(instance.stdout()).toMatch(/SIGTERM: finishing requests/);
        const retriedWrites = [a, b, single].map((p) => (p.stderr().match(/write failed/g) ?? []).length);

        const to = todayUtc();
        expect(to, "the run crossed UTC midnight").toBe(day);
        const hourChanged = hourUtc() !== hourAtStart;
        const [freeMulti, relayMulti, freeSingle, relaySingle] = await Promise.all([
          readStatistics(multi, FREE, day, to),
          readStatistics(multi, RELAY, day, to),
          readStatistics(base, FREE, day, to),
          readStatistics(base, RELAY, day, to),
        ]);

        // Absolute sanity: the baseline counts what was sent.
        for (const stats of [freeSingle, relaySingle]) {
          expect(stats.visitors.rows).toEqual([{ value: day, count: VISITORS }]);
          expect(stats.pageviews.rows).toEqual([{ value: day, count: pageviewCount }]);
          expect(stats.page.sum).toBe(pageviewCount);
          expect(stats.pageviews_hours.sum).toBe(pageviewCount);
          expect(stats.visitors_hours.sum).toBe(VISITORS);
          expect(stats.event.sum).toBe(eventCount);
          expect(stats.browser.sum).toBe(VISITORS);
          expect(stats.landing_page.sum).toBeGreaterThanOrEqual(VISITORS);
          // Pages read decoded.
          expect(stats.page.rows.find((row) => row.value === "/Über")?.count).toBeGreaterThan(0);
        }

        const comparable = (stats: Statistics, name: StatName) =>
          hourChanged && HOUR_SERIES.has(name) ? { sum: stats[name].sum } : stats[name];
        for (const name of Object.keys(relaySingle) as StatName[]) {
          if (ARRIVAL_DEPENDENT.has(name)) {
            // The same days have a figure; its size follows the arrival times.
            expect(
              relayMulti[name].rows.map((row) => row.value),
              `relay.example ${name} days`,
            ).toEqual(relaySingle[name].rows.map((row) => row.value));
            continue;
          }
          expect(comparable(relayMulti, name), `relay.example ${name}`).toEqual(comparable(relaySingle, name));
          if (!ORDER_DEPENDENT.has(name)) expect(comparable(freeMulti, name), `shop.example ${name}`).toEqual(comparable(freeSingle, name));
        }

        const orderDependent = [...ORDER_DEPENDENT]
          .map((name) => {
            const differing =
              new Set([...freeMulti[name].rows, ...freeSingle[name].rows].map((r) => r.value)).size -
              freeMulti[name].rows.filter((r) => freeSingle[name].rows.some((s) => s.value === r.value && s.count === r.count)).length;
            return `${name} ${freeMulti[name].sum} vs ${freeSingle[name].sum} (${differing} rows differ)`;
          })
          .join(", ");
        context.annotate(
          `${VISITORS} visitors, ${hitCount} hits per website (${pageviewCount} pageviews, ${eventCount} events); ` +
            `${switches} instance switches unordered, ${handoffs} hand-offs; sent in ${Math.round(sentMs)} ms, stopped at ${Math.round(stoppedMs)} ms; ` +
            `retried writes A/B/C: ${retriedWrites.join("/")}; shop.example (unordered) visits: ${orderDependent}` +
            (hourChanged ? "; an hour boundary fell inside the run: hour series compared by sums" : ""),
        );
        console.log(
          `[multi-instance, hits in ${storage.name}] ${orderDependent}; retried writes ${retriedWrites.join("/")}; sent ${Math.round(sentMs)} ms`,
        );
        if (retriedWrites.some((n) => n > 0)) console.log(logs);
      },
      storage.timeoutMs,
    );
  },
);
