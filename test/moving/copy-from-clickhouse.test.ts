/**
 * `tally copy --from-clickhouse`: the reference data set (four websites, visits across
 * midnight and DST changes, events with properties and revenue, engagement signals)
 * collected by a Tally with ClickHouse embedded through chDB, then copied out of ClickHouse
 * into a fresh database holding the same websites (as the installation's own database does
 * when events live in ClickHouse only). Stopped after two writes and run again, nothing is
 * counted twice; then every statistic, the totals, funnels and journeys the database answers
 * without ClickHouse equal what ClickHouse answered, row for row.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTally, ENGAGEMENT_STATISTICS, type Tally } from "@tally-analytics/core";
import { copyHitsFromClickhouse } from "@tally-analytics/core/internal";
import { openReference, type Reference } from "../engine/reference-fixture.js";
import { FUNNELS, JOURNEYS } from "../engine/reference-path-asks.js";
import { STATISTICS, wholeQuery, type Named } from "../engine/reference-cases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";

/** A week, and everything (four years, DST changes, 29 February). */
const RANGES = [
  ["2026-03-05", "2026-03-11"],
  ["2025-02-15", "2028-03-05"],
] as const;

/** Every statistic: the counted ones (each event property asked of the data set) and the engagement figures. */
const ASKED: Named[] = [...STATISTICS, ...ENGAGEMENT_STATISTICS.map((name) => ({ label: name, name }))];

/** The hits, visits and signals a database holds, and the sum of its rollups: what a copy must leave in it once. */
const EVENT_COUNTS =
  "select (select count(*) from hits) as hits, (select count(*) from visits) as visits, " +
  "(select count(*) from page_engagement) as signals, (select count(*) from event_props) as props, " +
  "(select count(*) from event_revenue) as revenue, (select coalesce(sum(count), 0) from rollups) as counted";

/** The installation's database as it is when its events live in ClickHouse: its websites, no events. */
async function withWebsitesOf(reference: Reference, dialect: "sqlite" | "postgres" = "sqlite"): Promise<TestTally> {
  const stored = await createTestTally(dialect, { retentionIntervalMs: 0 });
  const { accountId } = await stored.tally.accounts.create();
  const websites = await reference.stored.sql<{ id: number; domain: string; timezone: string }>(
    "select id, domain, timezone from websites order by id",
  );
  for (const website of websites) {
    const created = await stored.tally.websites.create(accountId, { domain: website.domain, timezone: website.timezone });
    expect(created.id).toBe(website.id);
  }
  return stored;
}

describe("tally copy out of ClickHouse", () => {
  const folder = mkdtempSync(join(tmpdir(), "tally-copy-from-clickhouse-"));
  const clickhouse = `chdb:${join(folder, "clickhouse")}`;
  let reference: Reference;
  let target: TestTally;
  let withClickhouse: Tally | undefined;
  let copied: Tally | undefined;

  beforeAll(async () => {
    reference = await openReference("sqlite", { clickhouse, sessions: 1500 });
    // ClickHouse is opened once in this process at a time: the copy opens its own.
    await reference.tally.close();
    target = await withWebsitesOf(reference);
    await target.tally.close();
  }, 300_000);

  afterAll(async () => {
    await copied?.close();
    await withClickhouse?.close();
    await target?.dispose();
    await reference?.dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  it("stopped after two writes and run again, copies every hit and signal once, with progress", async () => {
    let writes = 0;
    const stopping = copyHitsFromClickhouse({
      clickhouse,
      to: target.url,
      hitsPerWrite: 200,
      onProgress: () => {
        if (++writes === 2) throw new Error("stopped");
      },
    });
    await expect(stopping).rejects.toThrow("stopped");
    const [halfway] = await target.sql<{ hits: number }>(EVENT_COUNTS);
    expect(Number(halfway!.hits)).toBeGreaterThan(0);

    const progress: { rows: number; totalRows: number }[] = [];
    const result = await copyHitsFromClickhouse({ clickhouse, to: target.url, hitsPerWrite: 200, onProgress: (p) => progress.push(p) });
    expect(progress.at(-1)).toMatchObject({ rows: result.rows, totalRows: result.rows });
    expect(progress.length).toBeGreaterThan(2);
    const [counts] = await target.sql<Record<string, number>>(EVENT_COUNTS);
    // Every row ClickHouse holds was written, but a signal the database finds no visit for is not kept (as when collected).
    expect(Number(counts!.hits) + Number(counts!.signals)).toBeLessThanOrEqual(result.rows);
    // The same rows and rollups as a copy that was never stopped.
    const whole = await withWebsitesOf(reference);
    try {
      await whole.tally.close();
      await copyHitsFromClickhouse({ clickhouse, to: whole.url });
      expect((await whole.sql<Record<string, number>>(EVENT_COUNTS))[0]).toEqual(counts);
    } finally {
      await whole.dispose();
    }
    expect(Number(counts!.hits)).toBeGreaterThan(Number(halfway!.hits));

    // Run again: every part is skipped, nothing is counted twice.
    await copyHitsFromClickhouse({ clickhouse, to: target.url, hitsPerWrite: 200 });
    expect((await target.sql<Record<string, number>>(EVENT_COUNTS))[0]).toEqual(counts);
  }, 300_000);

  it("refuses a database that holds hits of a website it did not copy, and writes nothing; with force, deletes them first", async () => {
    const holding = await withWebsitesOf(reference);
    try {
      const websiteId = reference.websiteIds.values().next().value!;
      const [{ domain }] = await holding.sql<{ domain: string }>(`select domain from websites where id = ${websiteId}`);
      const hit = { url: `https://${domain}/`, ip: "203.0.113.9", userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0" };
      expect((await holding.tally.collect(hit as never)).status).toBe("accepted");
      await holding.tally.flush();
      await holding.tally.close();
      const [before] = await holding.sql<Record<string, number>>(EVENT_COUNTS);
      await expect(copyHitsFromClickhouse({ clickhouse, to: holding.url })).rejects.toThrow(
        `the database already holds hits of website ${websiteId}: nothing copied`,
      );
      expect((await holding.sql<Record<string, number>>(EVENT_COUNTS))[0]).toEqual(before);
      // With force: the website's events go first, and the database then holds what a copy into an empty one holds.
      await copyHitsFromClickhouse({ clickhouse, to: holding.url, force: true });
      expect((await holding.sql<Record<string, number>>(EVENT_COUNTS))[0]).toEqual(
        (await target.sql<Record<string, number>>(EVENT_COUNTS))[0],
      );
    } finally {
      await holding.dispose();
    }
  }, 120_000);

  it("the database then answers every statistic, the totals, funnels and journeys as ClickHouse did", async () => {
    withClickhouse = createTally({ database: reference.stored.url, clickhouse, retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
    copied = createTally({ database: target.url, retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
    const { accountId } = reference;
    const [{ id: copyAccountId }] = (await target.sql<{ id: number }>("select id from accounts")) as [{ id: number }];
    const differences: string[] = [];
    let asked = 0;
    const compare = (what: string, answer: unknown, expected: unknown) => {
      asked++;
      if (!isDeepStrictEqual(answer, expected))
        differences.push(`${what}: ${JSON.stringify(answer).slice(0, 300)} vs ${JSON.stringify(expected).slice(0, 300)}`);
    };
    for (const [site, websiteId] of reference.websiteIds) {
      for (const [from, to] of RANGES) {
        for (const named of ASKED) {
          const query = wholeQuery(named, from, to);
          compare(
            `${site} ${named.label} ${from}…${to}`,
            (await copied.stats.query(copyAccountId, websiteId, query)).data,
            (await withClickhouse.stats.query(accountId, websiteId, query)).data,
          );
        }
        const totals = { from, to, compare: "previous_period" } as never;
        compare(
          `${site} totals ${from}…${to}`,
          await copied.stats.totals(copyAccountId, websiteId, totals),
          await withClickhouse.stats.totals(accountId, websiteId, totals),
        );
        for (const ask of JOURNEYS) {
          const start = ask.start.startsWith("page:") ? { from_page: ask.start.slice(5) } : { from_event: ask.start.slice(6) };
          const journey = { ...start, direction: ask.direction, depth: ask.depth, from, to } as never;
          compare(
            `${site} journey ${ask.start} ${from}…${to}`,
            await copied.stats.journey(copyAccountId, websiteId, journey),
            await withClickhouse.stats.journey(accountId, websiteId, journey),
          );
        }
      }
      for (const steps of FUNNELS) {
        const [ours, theirs] = [
          await copied.funnels.create(copyAccountId, websiteId, { name: steps.join(" "), steps }),
          await withClickhouse.funnels.create(accountId, websiteId, { name: steps.join(" "), steps }),
        ];
        for (const [from, to] of RANGES) {
          const { funnel: _ours, ...answer } = await copied.stats.funnel(copyAccountId, websiteId, { funnel: ours.id, from, to });
          const { funnel: _theirs, ...expected } = await withClickhouse.stats.funnel(accountId, websiteId, { funnel: theirs.id, from, to });
          compare(`${site} funnel ${steps.join(" → ")} ${from}…${to}`, answer, expected);
        }
      }
    }
    expect(asked).toBeGreaterThan(reference.websiteIds.size * RANGES.length * ASKED.length);
    expect(differences.slice(0, 5)).toEqual([]);
  }, 300_000);

  it("into PostgreSQL: the same rows as into SQLite, and the same totals and statistics over everything", async () => {
    const postgres = await withWebsitesOf(reference, "postgres");
    try {
      await postgres.tally.close();
      await withClickhouse?.close();
      withClickhouse = undefined;
      await copyHitsFromClickhouse({ clickhouse, to: postgres.url });
      expect((await postgres.sql<Record<string, number>>(EVENT_COUNTS)).map((row) => Object.values(row).map(Number))).toEqual(
        (await target.sql<Record<string, number>>(EVENT_COUNTS)).map((row) => Object.values(row).map(Number)),
      );
      const onPostgres = createTally({ database: postgres.url, retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
      try {
        const [{ id: accountId }] = (await postgres.sql<{ id: number }>("select id from accounts")) as [{ id: number }];
        const [{ id: copyAccountId }] = (await target.sql<{ id: number }>("select id from accounts")) as [{ id: number }];
        const [from, to] = RANGES.at(-1)!;
        for (const websiteId of reference.websiteIds.values()) {
          expect(await onPostgres.stats.totals(accountId, websiteId, { from, to })).toEqual(
            await copied!.stats.totals(copyAccountId, websiteId, { from, to }),
          );
          for (const named of ASKED)
            expect((await onPostgres.stats.query(accountId, websiteId, wholeQuery(named, from, to))).data, named.label).toEqual(
              (await copied!.stats.query(copyAccountId, websiteId, wholeQuery(named, from, to))).data,
            );
        }
      } finally {
        await onPostgres.close();
      }
    } finally {
      await postgres.dispose();
    }
  }, 300_000);
});
