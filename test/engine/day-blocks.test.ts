/**
 * Day blocks (docs/statistics.md, "How filtered statistics are read"): built for past
 * days only, never read once a write has changed their day (until rebuilt), counting
 * late hits and visits across midnight like the rows do, and gone with retention.
 * The reference test (reference-segments.test.ts) proves every statistic and filter on them.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Tally } from "@tally-analytics/core";
import { DIALECTS, runSql } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0";
const at = (iso: string) => Date.parse(iso);

describe.each(DIALECTS)("day blocks on %s", (dialect) => {
  const fixtures: TestTally[] = [];
  afterEach(async () => {
    while (fixtures.length > 0) await fixtures.pop()!.dispose();
  });

  async function site(): Promise<{
    stored: TestTally;
    tally: Tally;
    websiteId: number;
    hit: (path: string, iso: string, ip: string, userAgent?: string) => Promise<unknown>;
  }> {
    const stored = await createTestTally(dialect, { retentionIntervalMs: 0 });
    fixtures.push(stored);
    const { tally } = stored;
    const { accountId } = await tally.accounts.create();
    const { id: websiteId } = await tally.websites.create(accountId, { domain: "blocks.example", timezone: "UTC", retention_days: 30 });
    const hit = (path: string, iso: string, ip: string, userAgent = CHROME) =>
      tally.collect({ url: `https://blocks.example${path}`, ip, userAgent, timestamp: at(iso) });
    return { stored, tally, websiteId, hit };
  }

  const blocksOf = async (stored: TestTally) =>
    (
      await runSql<{ day: number | string; version: number | string }>(
        dialect,
        stored.url,
        "select distinct day, version from day_blocks order by day",
      )
    ).map((row) => ({
      day: new Date(Number(row.day) * 86_400_000).toISOString().slice(0, 10),
      version: Number(row.version),
    }));

  it("are built for every day but the latest, skipped once their day is written again, and rebuilt", async () => {
    const { stored, tally, websiteId, hit } = await site();
    await hit("/a", "2030-01-10T09:00:00Z", "203.0.113.1");
    await hit("/b", "2030-01-10T09:05:00Z", "203.0.113.1");
    await hit("/a", "2030-01-10T23:50:00Z", "203.0.113.2", FIREFOX);
    await hit("/c", "2030-01-11T00:05:00Z", "203.0.113.2", FIREFOX); // the same visit, past midnight
    await hit("/a", "2030-01-12T10:00:00Z", "203.0.113.3");
    await tally.flush();
    expect(await tally.buildDayBlocks()).toBe(1);
    expect(await blocksOf(stored)).toEqual([{ day: "2030-01-10", version: 1 }]);
    expect(await tally.buildDayBlocks()).toBe(0);

    const pages = async (filter: string, from = "2030-01-10", to = "2030-01-12") =>
      (await tally.stats.queryWebsite(websiteId, { name: "page", from, to, filter, sort_by: "value", sort: "asc" })).data;
    expect(await pages("browser:is:Firefox")).toEqual([
      { value: "/a", count: 1 },
      { value: "/c", count: 1 },
    ]);
    // The 10th's block holds the visit's hit of the 11th: a range of the 11th alone counts it, not the 10th's.
    expect(await pages("browser:is:Firefox", "2030-01-11", "2030-01-11")).toEqual([{ value: "/c", count: 1 }]);
    // A page condition also picks the hits counted (docs/statistics.md).
    expect(await pages("page:is:/b")).toEqual([{ value: "/b", count: 1 }]);
    expect(
      (await tally.stats.queryWebsite(websiteId, { name: "browser", from: "2030-01-10", to: "2030-01-12", filter: "page:is:/b" })).data,
    ).toEqual([{ value: "Chrome", count: 1 }]);

    // A new visit on the 10th, written after the block was built: the block is out of date and not read.
    await hit("/b", "2030-01-10T15:00:00Z", "203.0.113.4", FIREFOX);
    await tally.flush();
    expect(await pages("browser:is:Firefox")).toEqual([
      { value: "/a", count: 1 },
      { value: "/b", count: 1 },
      { value: "/c", count: 1 },
    ]);
    // The 10th again (no visit started on the 11th: that hit is in the 10th's block).
    expect(await tally.buildDayBlocks()).toBe(1);
    expect(await blocksOf(stored)).toEqual([{ day: "2030-01-10", version: 2 }]);
    expect(await pages("browser:is:Firefox")).toEqual([
      { value: "/a", count: 1 },
      { value: "/b", count: 1 },
      { value: "/c", count: 1 },
    ]);
    const totals = await tally.stats.totalsWebsite(websiteId, { from: "2030-01-10", to: "2030-01-12", filter: "browser:is:Firefox" });
    expect(totals.data.visits).toBe(2);
    expect(totals.data.pageviews).toBe(3);
  });

  it("go with retention: the blocks and versions of days older than retention_days are deleted", async () => {
    const { stored, tally, hit } = await site();
    for (const day of ["2030-01-01", "2030-01-20", "2030-02-15"]) await hit("/a", `${day}T12:00:00Z`, "203.0.113.9");
    await tally.flush();
    expect(await tally.buildDayBlocks()).toBe(2);
    await tally.applyRetention(at("2030-02-15T18:00:00Z")); // 30 days: from 2030-01-17 on
    expect((await blocksOf(stored)).map((block) => block.day)).toEqual(["2030-01-20"]);
    const versions = await runSql<{ n: number | string }>(dialect, stored.url, "select count(*) as n from day_versions");
    expect(Number(versions[0]!.n)).toBe(2);
  });
});
