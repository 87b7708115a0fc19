/**
 * Stored visits in ClickHouse (embedded through chDB; docs/clickhouse.md): the first
 * statistic over closed days stores their visits and visitor-days, later ones read them, and
 * a hit that arrives late for a stored day has the day formed again, so statistics stay those
 * of every hit collected.
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
});
