/**
 * Stored visits in ClickHouse (embedded through chDB; docs/clickhouse.md): the first
 * statistic over closed days stores their visits and visitor-days, later ones read them, and
 * a hit that arrives late for a stored day has the day formed again, so statistics stay those
 * of every hit collected. Filtered statistics, funnels and journeys read them too.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTally } from "@tally-analytics/core";
import { connectClickhouse } from "@tally-analytics/core/internal";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
const DAY = "2026-10-01";

describe("stored visits in ClickHouse", () => {
  const folder = mkdtempSync(join(tmpdir(), "tally-clickhouse-stored-"));
  const clickhouse = `chdb:${join(folder, "clickhouse")}`;
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("a late hit for a stored day has the day formed again", async () => {
    const tally = createTally({ database: `file:${join(folder, "tally.sqlite")}`, clickhouse, retentionIntervalMs: 0 });
    let late: Awaited<ReturnType<typeof read>>;
    let before: Awaited<ReturnType<typeof read>>;
    async function read() {
      const query = (name: string) => tally.stats.query(accountId, websiteId, { name, from: DAY, to: DAY });
      const [visits, bounceRate, pages, browsers] = await Promise.all(
        ["visits", "bounce_rate", "landing_page", "browser"].map(async (name) =>
          (await query(name)).data.map((row) => [row.value, row.count]),
        ),
      );
      return { visits, bounceRate, pages, browsers };
    }
    const view = (minute: number, page: string) =>
      tally.collect({
        url: `https://late.example${page}`,
        ip: "203.0.113.9",
        userAgent: FIREFOX,
        timestamp: Date.parse(`${DAY}T10:${String(minute).padStart(2, "0")}:00Z`),
      });
    const { accountId } = await tally.accounts.create();
    const websiteId = (await tally.websites.create(accountId, { domain: "late.example", timezone: "UTC" })).id;
    try {
      // Two visits: 40 minutes apart.
      await view(0, "/a");
      await view(40, "/b");
      await tally.flush();
      before = await read();
      // A hit between them, written later: one visit of three pageviews.
      await view(20, "/c");
      await tally.flush();
      late = await read();
    } finally {
      await tally.close();
    }
    expect(before).toEqual({
      visits: [[DAY, 2]],
      bounceRate: [[DAY, 100]],
      pages: [
        ["/a", 1],
        ["/b", 1],
      ],
      browsers: [["Firefox", 1]],
    });
    expect(late).toEqual({ visits: [[DAY, 1]], bounceRate: [[DAY, 0]], pages: [["/a", 1]], browsers: [["Firefox", 1]] });
    // Both reads came from stored visits: the day's two visits, then (formed again) its one.
    const client = await connectClickhouse(clickhouse);
    try {
      const versions = await (
        await client.query({ query: "SELECT count() AS visits FROM tally_visits GROUP BY version ORDER BY version", format: "JSONEachRow" })
      ).json<{ visits: string }>();
      expect(versions.map((row) => Number(row.visits))).toEqual([2, 1]);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("filtered statistics, funnels and journeys store the closed days they read, and a late hit has its day formed again", async () => {
    // A ClickHouse of its own: the website's id is that of the other test's website.
    const clickhouse = `chdb:${join(folder, "paths-clickhouse")}`;
    const tally = createTally({ database: `file:${join(folder, "paths.sqlite")}`, clickhouse, retentionIntervalMs: 0 });
    const { accountId } = await tally.accounts.create();
    const websiteId = (await tally.websites.create(accountId, { domain: "paths.example", timezone: "UTC" })).id;
    const funnel = (await tally.funnels.create(accountId, websiteId, { name: "Home, then pricing", steps: ["page:/", "page:/pricing"] }))
      .id;
    const view = (ip: string, minute: number, page: string) =>
      tally.collect({
        url: `https://paths.example${page}`,
        ip,
        userAgent: FIREFOX,
        timestamp: Date.parse(`${DAY}T10:${String(minute).padStart(2, "0")}:00Z`),
      });
    const range = { from: DAY, to: DAY };
    async function read() {
      const filtered = async (name: string, filter: string) =>
        (await tally.stats.query(accountId, websiteId, { name, ...range, filter })).data.map((row) => [row.value, row.count]);
      return {
        pricingVisits: await filtered("visits", "page:is:/pricing"),
        entryPagesOfPricingVisits: await filtered("landing_page", "page:is:/pricing"),
        pagesOfVisitsFromHome: await filtered("page", "entry_page:is:/"),
        funnel: (await tally.stats.funnel(accountId, websiteId, { funnel, ...range })).data.map((row) => row.visitors),
        journey: (await tally.stats.journey(accountId, websiteId, { from_page: "/", ...range })).data.map((row) => [
          row.step,
          row.value,
          row.visitors,
        ]),
      };
    }
    /** The visits stored for the website, by version of their day's forming. */
    async function storedVersions(): Promise<number[]> {
      const client = await connectClickhouse(clickhouse);
      try {
        const rows = await (
          await client.query({
            query: "SELECT count() AS visits FROM tally_visits WHERE website_id = {website:UInt32} GROUP BY version ORDER BY version",
            query_params: { website: websiteId },
            format: "JSONEachRow",
          })
        ).json<{ visits: string }>();
        return rows.map((row) => Number(row.visits));
      } finally {
        await client.close();
      }
    }
    let before: Awaited<ReturnType<typeof read>>;
    let late: Awaited<ReturnType<typeof read>>;
    let storedBefore: number[];
    try {
      // One person: home, then pricing 40 minutes later (two visits); another: home, then pricing (one visit).
      await view("203.0.113.10", 0, "/");
      await view("203.0.113.10", 40, "/pricing");
      await view("203.0.113.11", 0, "/");
      await view("203.0.113.11", 5, "/pricing");
      await tally.flush();
      before = await read();
      storedBefore = await storedVersions();
      // The first person's hit between the two, written later: one visit, home then pricing.
      await view("203.0.113.10", 20, "/docs");
      await tally.flush();
      late = await read();
    } finally {
      await tally.close();
    }
    expect(before).toEqual({
      pricingVisits: [[DAY, 2]],
      entryPagesOfPricingVisits: [
        ["/", 1],
        ["/pricing", 1],
      ],
      pagesOfVisitsFromHome: [
        ["/", 2],
        ["/pricing", 1],
      ],
      funnel: [2, 1],
      journey: [
        [0, "page:/", 2],
        [1, "page:/pricing", 1],
      ],
    });
    expect(late).toEqual({
      pricingVisits: [[DAY, 2]],
      entryPagesOfPricingVisits: [["/", 2]],
      pagesOfVisitsFromHome: [
        ["/", 2],
        ["/pricing", 2],
        ["/docs", 1],
      ],
      funnel: [2, 2],
      journey: [
        [0, "page:/", 2],
        [1, "page:/docs", 1],
        [1, "page:/pricing", 1],
        [2, "page:/pricing", 1],
      ],
    });
    // The filtered reads stored the day's three visits, then (formed again after the late hit) its two.
    expect(storedBefore).toEqual([3]);
    expect(await storedVersions()).toEqual([3, 2]);
  }, 120_000);

  it("pageviews of whole days by a visit's value are counted beside its stored visits, a visit past midnight on each of its days", async () => {
    const clickhouse = `chdb:${join(folder, "views-clickhouse")}`;
    const tally = createTally({ database: `file:${join(folder, "views.sqlite")}`, clickhouse, retentionIntervalMs: 0 });
    const { accountId } = await tally.accounts.create();
    const websiteId = (await tally.websites.create(accountId, { domain: "views.example", timezone: "UTC" })).id;
    const next = "2026-10-02";
    const view = (at: string, page: string) =>
      tally.collect({ url: `https://views.example${page}`, ip: "203.0.113.12", userAgent: FIREFOX, timestamp: Date.parse(at) });
    /** Pageviews by host of Firefox visits on the day, the next day and both. */
    const read = () =>
      Promise.all(
        [
          [DAY, DAY],
          [next, next],
          [DAY, next],
        ].map(async ([from, to]) =>
          (await tally.stats.query(accountId, websiteId, { name: "hostname", from, to, filter: "browser:is:Firefox" })).data.map((row) => [
            row.value,
            row.count,
          ]),
        ),
      );
    let beforeEmptied: Awaited<ReturnType<typeof read>>;
    let withoutHits: Awaited<ReturnType<typeof read>>;
    try {
      // One visit past midnight: a pageview before it, two after.
      await view(`${DAY}T23:50:00Z`, "/a");
      await view(`${next}T00:05:00Z`, "/b");
      await view(`${next}T00:10:00Z`, "/c");
      await tally.flush();
      beforeEmptied = await read();
      // The stored visits' hits emptied: the counts kept beside each visit still answer.
      const client = await connectClickhouse(clickhouse);
      try {
        await client.command({
          query: "ALTER TABLE tally_visits UPDATE hits = [] WHERE website_id = {website:UInt32} SETTINGS mutations_sync = 1",
          query_params: { website: websiteId },
        });
      } finally {
        await client.close();
      }
      withoutHits = await read();
    } finally {
      await tally.close();
    }
    const expected = [[["views.example", 1]], [["views.example", 2]], [["views.example", 3]]];
    expect(beforeEmptied).toEqual(expected);
    expect(withoutHits).toEqual(expected);
  }, 120_000);

  it("a range of closed days is stored a month per write: one part of each month, not two", async () => {
    const clickhouse = `chdb:${join(folder, "months-clickhouse")}`;
    const tally = createTally({ database: `file:${join(folder, "months.sqlite")}`, clickhouse, retentionIntervalMs: 0 });
    const { accountId } = await tally.accounts.create();
    const websiteId = (await tally.websites.create(accountId, { domain: "months.example", timezone: "UTC" })).id;
    try {
      await tally.collect({
        url: "https://months.example/",
        ip: "203.0.113.13",
        userAgent: FIREFOX,
        timestamp: Date.parse("2026-08-15T10:00:00Z"),
      });
      await tally.flush();
      // 62 days of August, September and October: the stored days' rows written once per month.
      const visits = await tally.stats.query(accountId, websiteId, { name: "visits", from: "2026-08-15", to: "2026-10-15" });
      expect(visits.total).toBe(1);
    } finally {
      await tally.close();
    }
    const client = await connectClickhouse(clickhouse);
    try {
      // Every part written, merged since (inactive) or not.
      const written = await (
        await client.query({
          query:
            "SELECT partition, count() AS parts FROM system.parts WHERE database = currentDatabase() AND table = 'tally_visit_days' GROUP BY partition ORDER BY partition",
          format: "JSONEachRow",
        })
      ).json<{ partition: string; parts: string }>();
      expect(written.map((row) => [row.partition, Number(row.parts)])).toEqual([
        ["202608", 1],
        ["202609", 1],
        ["202610", 1],
      ]);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("buildDayBlocks() keeps the last year's closed days ahead of reads, once; the first read then forms none", async () => {
    const clickhouse = `chdb:${join(folder, "ahead-clickhouse")}`;
    const tally = createTally({
      database: `file:${join(folder, "ahead.sqlite")}`,
      clickhouse,
      retentionIntervalMs: 0,
      dayBlocksIntervalMs: 0,
    });
    const { accountId } = await tally.accounts.create();
    const websiteId = (await tally.websites.create(accountId, { domain: "ahead.example", timezone: "UTC" })).id;
    const at = Date.now() - 10 * 86_400_000;
    const day = new Date(at).toISOString().slice(0, 10);
    let first: number;
    let again: number;
    let visits: number;
    try {
      await tally.collect({ url: "https://ahead.example/", ip: "203.0.113.14", userAgent: FIREFOX, timestamp: at });
      await tally.flush();
      first = await tally.buildDayBlocks();
      again = await tally.buildDayBlocks();
      visits = (await tally.stats.query(accountId, websiteId, { name: "visits", from: day, to: day })).total ?? -1;
    } finally {
      await tally.close();
    }
    // A year and a day, up to three days ago.
    expect(first).toBe(366);
    expect(again).toBe(0);
    expect(visits).toBe(1);
    const client = await connectClickhouse(clickhouse);
    try {
      const rows = await (
        await client.query({
          query: "SELECT uniqExact(version) AS formings, count() AS days FROM tally_visit_days",
          format: "JSONEachRow",
        })
      ).json<{ formings: string; days: string }>();
      // Kept a month at a time (a year and a day touch 13 months), and the read formed no day again.
      expect(Number(rows[0]!.days)).toBe(366);
      expect(Number(rows[0]!.formings)).toBe(13);
    } finally {
      await client.close();
    }
  }, 180_000);
});
