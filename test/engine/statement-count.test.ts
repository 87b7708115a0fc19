/**
 * The read path plans once per request: a filtered `totals` with three conditions and a
 * comparison is a handful of statements, however many statistics it sums (docs/architecture.md,
 * "A query's path"). Counted at the driver: every statement SQLite prepares (kysely prepares
 * each query it runs), every query a PostgreSQL connection sends.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createTally, type DatabaseOption, type Tally } from "@tally-analytics/core";
import { createTestDatabase, DIALECTS, type DialectName, type TestDatabase } from "../support/databases.js";

const MOST_STATEMENTS = 12;
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

interface Counted {
  option: DatabaseOption;
  /** Statements run since the last call. */
  take(): number;
  dispose(): Promise<void>;
}

async function countedDatabase(dialect: DialectName, disposers: (() => Promise<void>)[]): Promise<Counted> {
  let statements = 0;
  const take = () => {
    const n = statements;
    statements = 0;
    return n;
  };
  if (dialect === "sqlite") {
    // In memory: the reads run on this thread, through this handle.
    const handle = new Database(":memory:");
    const option = new Proxy(handle, {
      get(target, key) {
        if (key === "prepare") return (text: string) => (statements++, target.prepare(text));
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { option, take, dispose: async () => void handle.close() };
  }
  const database: TestDatabase = await createTestDatabase("postgres");
  disposers.push(() => database.dispose());
  const pool = new pg.Pool({ connectionString: database.url });
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => (statements++, query(...args));
  });
  return { option: pool, take, dispose: () => pool.end() };
}

describe.each(DIALECTS)("statements per request on %s", (dialect) => {
  const disposers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const dispose of disposers.reverse()) await dispose();
  });

  async function siteWithTwoWeeks(): Promise<{ tally: Tally; counted: Counted; accountId: number; websiteId: number }> {
    const counted = await countedDatabase(dialect, disposers);
    const tally = createTally({ database: counted.option, dayBlocksIntervalMs: 0, retentionIntervalMs: 0, reportIntervalMs: 0 });
    disposers.push(async () => {
      await tally.close();
      await counted.dispose();
    });
    const { accountId } = await tally.accounts.create();
    const site = await tally.websites.create(accountId, { domain: "count.example" });
    const start = Date.parse("2026-05-01T08:00:00Z");
    for (let i = 0; i < 400; i++) {
      const day = i % 14;
      await tally.collect({
        url: `https://count.example/${["", "pricing", "docs"][i % 3]}`,
        referrer: i % 4 === 0 ? "https://www.google.com/" : "",
        ip: `198.51.100.${i % 50}`,
        userAgent: i % 2 === 0 ? CHROME : SAFARI,
        timestamp: start + day * 86_400_000 + i * 60_000,
      });
    }
    await tally.flush();
    return { tally, counted, accountId, websiteId: site.id };
  }

  const query = {
    from: "2026-05-08",
    to: "2026-05-14",
    filter: ["page:is:/pricing", "browser:is:Chrome", "referrer:is_not:t.co"],
    compare: "previous_period",
  } as const;

  it(`a filtered totals with three conditions and a comparison runs at most ${MOST_STATEMENTS} statements, from rows`, async () => {
    const { tally, counted, accountId, websiteId } = await siteWithTwoWeeks();
    counted.take();
    const totals = await tally.stats.totals(accountId, websiteId, query);
    const statements = counted.take();
    console.log(`[statements] ${dialect}, filtered totals with comparison, from rows: ${statements}`);
    expect(totals.data.visitors).toBeGreaterThan(0);
    expect(totals.previous!.visitors).toBeGreaterThan(0);
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual(MOST_STATEMENTS);
  });

  it(`… and at most ${MOST_STATEMENTS} from day blocks, with the same answer`, async () => {
    const { tally, counted, accountId, websiteId } = await siteWithTwoWeeks();
    const fromRows = await tally.stats.totals(accountId, websiteId, query);
    expect(await tally.buildDayBlocks()).toBeGreaterThan(0);
    counted.take();
    const fromBlocks = await tally.stats.totals(accountId, websiteId, query);
    const statements = counted.take();
    console.log(`[statements] ${dialect}, filtered totals with comparison, from day blocks: ${statements}`);
    expect(fromBlocks).toEqual(fromRows);
    expect(statements).toBeLessThanOrEqual(MOST_STATEMENTS);
  });
});
