/**
 * Public reads cannot take the server down.
 * - 20 parallel anonymous share-page reads of a statistic with 200,000 distinct pages:
 *   GET /script.js is answered while they run (it was held 3.5 s), on a SQLite file
 *   (read on a thread of its own), an in-memory SQLite database (one bounded statement
 *   at a time, with a turn of the event loop before each) and PostgreSQL.
 * - A query past `queryTimeoutMs` answers 503 with Retry-After, and the next one works:
 *   the reader thread is stopped (SQLite file), the statement is cancelled by
 *   `statement_timeout` (PostgreSQL); in memory, where a statement cannot be stopped, one
 *   that would read more than HOST_THREAD_ROW_BUDGET rows is refused before it starts,
 *   and one that waited its turn longer than `queryTimeoutMs` is refused.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import pg from "pg";
import { createTally, type Tally, type TallyOptions } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";
import { afterAll, describe, expect, it } from "vitest";
import { HOST_THREAD_ROW_BUDGET, tallyInternals } from "@tally-analytics/core/internal";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../support/databases.js";
import { keepAliveAgent, send, tempDirectory } from "./support.js";

const PAGES = 200_000;
const YEAR = { from: "2026-01-01", to: "2026-12-31" };
const HEAVY = `name=page&from=${YEAR.from}&to=${YEAR.to}`;
const CHEAP = "name=pageviews&from=2026-03-05&to=2026-03-05";

/** One storage: its Tally, a way to add rows behind its back, and a second Tally on the same data. */
interface Storage {
  tally: Tally;
  /** Runs SQL on the same database through another path (a raw connection). */
  exec(text: string): Promise<void>;
  /** `count` rollup rows of `page` for a day of 2026 (January 15th) of a website: one per distinct page. */
  seedPages(websiteId: number, count: number): Promise<void>;
  /** Another Tally on the same data with these options (not for in-memory). */
  reopen(options: Omit<TallyOptions, "database">): Tally;
  dispose(): Promise<void>;
}

const sqliteSeed = (websiteId: number, count: number) => `
  with recursive n(i) as (select 0 union all select i + 1 from n where i < ${count - 1})
  insert into rollups (website_id, name, period, value, count) select ${websiteId}, 'page', '2026-01-15', '/p/' || i, 1 + i % 7 from n`;

const storages: { name: string; open(): Promise<Storage> }[] = [
  {
    name: "a SQLite file",
    async open() {
      const dir = tempDirectory("tally-bounds-");
      const url = `file:${dir.path}/tally.sqlite`;
      const tally = createTally({ database: url, retentionIntervalMs: 0 });
      await tally.ready();
      const others: Tally[] = [];
      const exec = async (text: string) => {
        const raw = new Database(`${dir.path}/tally.sqlite`);
        try {
          raw.exec(text);
        } finally {
          raw.close();
        }
      };
      return {
        tally,
        exec,
        seedPages: (websiteId, count) => exec(sqliteSeed(websiteId, count)),
        reopen(options) {
          const other = createTally({ ...options, database: url, retentionIntervalMs: 0 });
          others.push(other);
          return other;
        },
        async dispose() {
          for (const other of others) await other.close();
          await tally.close();
          dir.remove();
        },
      };
    },
  },
  {
    name: "an in-memory SQLite database",
    async open() {
      const sqlite = new Database(":memory:");
      const tally = createTally({ database: sqlite, retentionIntervalMs: 0, queryTimeoutMs: 60_000 });
      await tally.ready();
      return {
        tally,
        exec: async (text) => void sqlite.exec(text),
        seedPages: async (websiteId, count) => void sqlite.exec(sqliteSeed(websiteId, count)),
        reopen: () => {
          throw new Error("an in-memory database has one Tally");
        },
        async dispose() {
          await tally.close();
          sqlite.close();
        },
      };
    },
  },
  ...(DIALECTS.includes("postgres")
    ? [
        {
          name: "PostgreSQL",
          async open(): Promise<Storage> {
            const database: TestDatabase = await createTestDatabase("postgres");
            const tally = createTally({ database: database.url, retentionIntervalMs: 0 });
            await tally.ready();
            const others: Tally[] = [];
            const exec = async (text: string) => {
              const client = new pg.Client({ connectionString: database.url });
              await client.connect();
              try {
                await client.query(text);
              } finally {
                await client.end();
              }
            };
            return {
              tally,
              exec,
              seedPages: (websiteId, count) =>
                exec(`insert into rollups (website_id, name, period, value, count)
                  select ${websiteId}, 'page', '2026-01-15', '/p/' || i, 1 + i % 7 from generate_series(0, ${count - 1}) as i`),
              reopen(options) {
                const other = createTally({ ...options, database: database.url, retentionIntervalMs: 0 });
                others.push(other);
                return other;
              },
              async dispose() {
                for (const other of others) await other.close();
                await tally.close();
                await database.dispose();
              },
            };
          },
        },
      ]
    : []),
];

async function listen(tally: Tally): Promise<{ base: string; close(): Promise<void> }> {
  const server: Server = createServer(toNodeHandler(tally));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe.each(storages)("bounded reads on $name", ({ name, open }) => {
  const opened: Storage[] = [];
  afterAll(async () => {
    for (const storage of opened) await storage.dispose();
  });

  async function publicSite(domain: string, pages: number) {
    const storage = opened[0] ?? (await open());
    if (opened.length === 0) opened.push(storage);
    const { accountId } = await storage.tally.accounts.create();
    const site = await storage.tally.websites.create(accountId, { domain, privacy: 0 });
    await storage.seedPages(site.id, pages);
    return { storage, site, accountId };
  }

  it(
    `GET /script.js is answered while 20 parallel anonymous share reads of ${PAGES.toLocaleString("en")} distinct pages run`,
    { timeout: 180_000 },
    async () => {
      const { storage } = await publicSite("many.example", PAGES);
      const served = await listen(storage.tally);
      const agent = keepAliveAgent(32);
      try {
        const script = async () => {
          const began = performance.now();
          const reply = await send(agent, `${served.base}/script.js`);
          expect(reply.status).toBe(200);
          return performance.now() - began;
        };
        // The read works, and warms the reader up.
        const first = await send(agent, `${served.base}/share/many.example/api/stats?${HEAVY}&per_page=10`);
        expect(first.status).toBe(200);
        expect(JSON.parse(first.text).meta.total).toBe(PAGES);
        const unloaded: number[] = [];
        for (let i = 0; i < 20; i++) unloaded.push(await script());

        const began = performance.now();
        let readsDone = Number.POSITIVE_INFINITY;
        const reads = Promise.all(
          Array.from({ length: 20 }, (_, i) => send(agent, `${served.base}/share/many.example/api/stats?${HEAVY}&page=${i + 1}`)),
        ).then((replies) => {
          readsDone = performance.now();
          return replies;
        });
        const during: { latency: number; answeredAt: number }[] = [];
        while (readsDone === Number.POSITIVE_INFINITY) {
          const latency = await script();
          if (readsDone === Number.POSITIVE_INFINITY) during.push({ latency, answeredAt: performance.now() });
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const replies = await reads;
        expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));
        const readsMs = readsDone - began;
        console.log(
          `[bounds] ${name}: 20 reads took ${Math.round(readsMs)} ms; /script.js unloaded p50 ${median(unloaded).toFixed(1)} ms, ` +
            `during the reads ${during.length} answers, p50 ${during.length ? median(during.map((d) => d.latency)).toFixed(1) : "-"} ms`,
        );
        // Answered again and again before the reads were done, each in a small part of their time.
        expect(during.length).toBeGreaterThanOrEqual(5);
        expect(median(during.map((d) => d.latency))).toBeLessThan(readsMs / 10);
      } finally {
        agent.destroy();
        await served.close();
      }
    },
  );

  if (name === "an in-memory SQLite database") {
    it(
      `a statement that would read more than ${HOST_THREAD_ROW_BUDGET.toLocaleString("en")} rows answers 503 before it runs; the next query works`,
      { timeout: 120_000 },
      async () => {
        const { storage, site } = await publicSite("huge.example", HOST_THREAD_ROW_BUDGET + 1000);
        const served = await listen(storage.tally);
        try {
          const refused = await fetch(`${served.base}/share/huge.example/api/stats?${HEAVY}`);
          expect(refused.status).toBe(503);
          expect(refused.headers.get("retry-after")).toBe("1");
          expect(await refused.json()).toEqual({ message: expect.stringMatching(/would take too long/), status: 503 });
          const next = await fetch(`${served.base}/share/huge.example/api/stats?${CHEAP}`);
          expect(next.status).toBe(200);
          // Under the budget the same statistic is counted.
          await storage.exec(`delete from rollups where website_id = ${site.id} and value >= '/p/9'`);
          const counted = await fetch(`${served.base}/share/huge.example/api/stats?${HEAVY}&per_page=10`);
          expect(counted.status).toBe(200);
        } finally {
          await served.close();
        }
      },
    );

    it(
      "calls run one at a time: one that waited its turn longer than queryTimeoutMs answers 503; the next query works",
      { timeout: 120_000 },
      async () => {
        const sqlite = new Database(":memory:");
        const tally = createTally({ database: sqlite, retentionIntervalMs: 0, queryTimeoutMs: 5 });
        try {
          const { accountId } = await tally.accounts.create();
          const site = await tally.websites.create(accountId, { domain: "queued.example", privacy: 0 });
          sqlite.exec(sqliteSeed(site.id, PAGES));
          const results = await Promise.allSettled([0, 1, 2].map(() => tally.stats.queryWebsite(site.id, { name: "page", ...YEAR })));
          expect(results[0]).toMatchObject({ status: "fulfilled", value: { total: PAGES } });
          for (const waited of results.slice(1)) expect(waited).toMatchObject({ status: "rejected", reason: { name: "UnavailableError" } });
          expect((await tally.stats.queryWebsite(site.id, { name: "pageviews", ...YEAR })).data).toEqual([]);
        } finally {
          await tally.close();
          sqlite.close();
        }
      },
    );
  } else {
    it("a query past queryTimeoutMs answers 503 with Retry-After; the next query works", { timeout: 120_000 }, async () => {
      const { storage } = await publicSite("slow.example", PAGES);
      // How long the heavy read takes here, now: the timeout is a fraction of it.
      const timed: number[] = [];
      for (let i = 0; i < 2; i++) {
        const began = performance.now();
        await storage.tally.stats.queryWebsite((await tallyInternals(storage.tally).websites.findByDomain("slow.example"))!.id, {
          name: "page",
          ...YEAR,
        });
        timed.push(performance.now() - began);
      }
      const queryTimeoutMs = Math.max(1, Math.floor(Math.min(...timed) / 5));
      const bounded = storage.reopen({ queryTimeoutMs });
      const served = await listen(bounded);
      try {
        // Warm: the reader (thread or pool connection) is up before the clock matters.
        expect((await fetch(`${served.base}/share/slow.example/api/stats?${CHEAP}`)).status).toBe(200);
        const began = performance.now();
        const stopped = await fetch(`${served.base}/share/slow.example/api/stats?${HEAVY}`);
        const stoppedAfter = performance.now() - began;
        console.log(
          `[bounds] ${name}: heavy read ${Math.round(Math.min(...timed))} ms, queryTimeoutMs ${queryTimeoutMs}: 503 after ${Math.round(stoppedAfter)} ms`,
        );
        expect(stopped.status).toBe(503);
        expect(stopped.headers.get("retry-after")).toBe("1");
        expect(await stopped.json()).toEqual({ message: expect.stringMatching(/took too long and was stopped/), status: 503 });
        const next = await fetch(`${served.base}/share/slow.example/api/stats?${CHEAP}`);
        expect(next.status).toBe(200);
        expect(await next.json()).toMatchObject({ data: [], status: 200 });
      } finally {
        await served.close();
      }
    });
  }
});
