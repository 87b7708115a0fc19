/**
 * Funnels and journeys are bounded like every statistic: on a SQLite file (reader thread
 * stopped) and PostgreSQL (statement_timeout) a read past `queryTimeoutMs` answers
 * UnavailableError and the next one works; in memory, a read whose range holds more than
 * HOST_THREAD_ROW_BUDGET hits is refused before it starts.
 */
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createTally, type Tally } from "@tally-analytics/core";
import { HOST_THREAD_ROW_BUDGET } from "@tally-analytics/core/internal";
import { DIALECTS, runSql } from "../support/databases.js";
import { createTestTally } from "../support/tally-fixture.js";

const VISITS = 60_000;
const HITS_PER_VISIT = 10;
const YEAR = { from: "2026-01-01", to: "2026-12-31" };
const FIRST_SECOND = Date.UTC(2026, 0, 1) / 1000;

/** Visits every 400 s from 2026-01-01 (UTC), ten pageviews of `/` each, and their days' versions: SQL for a dialect. */
function seedSql(dialect: "sqlite" | "postgres", websiteId: number): string[] {
  const series =
    dialect === "sqlite"
      ? `with recursive n(i) as (select 0 union all select i + 1 from n where i < ${VISITS - 1}) select i from n`
      : `select generate_series(0, ${VISITS - 1}) as i`;
  const steps =
    dialect === "sqlite"
      ? `(with recursive k(j) as (select 0 union all select j + 1 from k where j < ${HITS_PER_VISIT - 1}) select j from k)`
      : `(select generate_series(0, ${HITS_PER_VISIT - 1}) as j)`;
  const page = `(select id from dimensions where website_id = ${websiteId} and value = '/')`;
  return [
    `insert into visits (website_id, visitor, start, pageviews, events) select ${websiteId}, 0, ${FIRST_SECOND} + i * 400, ${HITS_PER_VISIT}, 0 from (${series}) n`,
    `insert into hits (website_id, visit_id, time, page, event, seq) select ${websiteId}, v.id, v.start + k.j * 10, ${page}, 0, k.j
      from visits v cross join ${steps} k where v.website_id = ${websiteId} and v.start >= ${FIRST_SECOND}`,
    `insert into day_versions (website_id, day, version, last_hit) select ${websiteId}, start / 86400, 1, max(start) + 100 from visits
      where website_id = ${websiteId} and start >= ${FIRST_SECOND} group by start / 86400
      on conflict (website_id, day) do update set last_hit = excluded.last_hit`,
  ];
}

/** A website with one real pageview of `/` (its dictionary entry) before the seeded rows. */
async function website(tally: Tally) {
  const { accountId } = await tally.accounts.create();
  const site = await tally.websites.create(accountId, { domain: "bounded.example" });
  await tally.collect({
    url: "https://bounded.example/",
    ip: "198.51.100.1",
    userAgent: "Mozilla/5.0 Firefox/124.0",
    timestamp: Date.UTC(2025, 5, 1),
  });
  await tally.flush();
  const funnel = await tally.funnels.create(accountId, site.id, { name: "Twice home", steps: ["page:/", "page:/"] });
  return { accountId, websiteId: site.id, funnel: funnel.id };
}

describe.each(DIALECTS)("funnels and journeys past queryTimeoutMs on %s", (dialect) => {
  let dispose = async () => {};
  afterAll(() => dispose());

  it("answer UnavailableError; the next query works", { timeout: 180_000 }, async () => {
    const stored = await createTestTally(dialect, { retentionIntervalMs: 0, queryTimeoutMs: 200 });
    dispose = stored.dispose;
    const { accountId, websiteId, funnel } = await website(stored.tally);
    for (const text of seedSql(dialect, websiteId)) await runSql(dialect, stored.url, text, { write: true });
    if (dialect === "postgres") await stored.sql("analyze");

    await expect(stored.tally.stats.funnel(accountId, websiteId, { funnel, ...YEAR })).rejects.toMatchObject({
      name: "UnavailableError",
      message: expect.stringMatching(/took too long/),
    });
    await expect(stored.tally.stats.journey(accountId, websiteId, { from_page: "/", ...YEAR })).rejects.toMatchObject({
      name: "UnavailableError",
    });
    // A day of the seeded rows is counted within the bound.
    const day = await stored.tally.stats.funnel(accountId, websiteId, { funnel, from: "2025-06-01", to: "2025-06-01" });
    expect(day.data.map((row) => row.visitors)).toEqual([1, 0]);
  });
});

describe("funnels and journeys in memory", () => {
  it(
    `refuse a range of more than ${HOST_THREAD_ROW_BUDGET.toLocaleString("en")} hits before reading it; a shorter one is counted`,
    { timeout: 120_000 },
    async () => {
      const sqlite = new Database(":memory:");
      const tally = createTally({ database: sqlite, retentionIntervalMs: 0 });
      try {
        const { accountId, websiteId, funnel } = await website(tally);
        for (const text of seedSql("sqlite", websiteId)) sqlite.exec(text);
        expect(VISITS * HITS_PER_VISIT).toBeGreaterThan(HOST_THREAD_ROW_BUDGET);
        await expect(tally.stats.funnel(accountId, websiteId, { funnel, ...YEAR })).rejects.toMatchObject({
          name: "UnavailableError",
          message: expect.stringMatching(/would take too long/),
        });
        await expect(tally.stats.journey(accountId, websiteId, { from_page: "/", ...YEAR })).rejects.toMatchObject({
          name: "UnavailableError",
        });
        // Two days: 432 visits of ten pageviews of `/`, each visit its own visitor-day.
        const short = await tally.stats.funnel(accountId, websiteId, { funnel, from: "2026-01-01", to: "2026-01-02" });
        expect(short.data.map((row) => row.visitors)).toEqual([432, 432]);
        const journey = await tally.stats.journey(accountId, websiteId, { from_page: "/", from: "2026-01-01", to: "2026-01-02" });
        // Every next hit is `/` again: a repeat, so no step follows the start.
        expect(journey.data).toEqual([{ step: 0, value: "page:/", visitors: 432 }]);
      } finally {
        await tally.close();
        sqlite.close();
      }
    },
  );
});
