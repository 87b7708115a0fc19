/**
 * Hits of one visitor in one millisecond, in ClickHouse (embedded through chDB): visits are
 * formed when read, in time order, and hits of the same millisecond in the order they were
 * written; each keeps its own visit and host.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTally } from "@tally-analytics/core";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
const AT = Date.UTC(2026, 10, 10, 10);

describe("hits of one millisecond in ClickHouse", () => {
  const folder = mkdtempSync(join(tmpdir(), "tally-clickhouse-millisecond-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("are each in their own visit, on their own host", async () => {
    const tally = createTally({ database: `file:${join(folder, "tally.sqlite")}`, clickhouse: `chdb:${join(folder, "clickhouse")}` });
    try {
      const { accountId } = await tally.accounts.create();
      const site = await tally.websites.create(accountId, { domain: "subs.example", include_subdomains: 1 });
      const hit = (url: string, referrer?: string) =>
        tally.collect({ url, referrer, ip: "203.0.113.7", userAgent: FIREFOX, timestamp: AT });
      // Three visits in one millisecond: blog's two pages, then another host, then a campaign.
      await hit("https://blog.subs.example/a");
      await hit("https://blog.subs.example/b", "https://blog.subs.example/a");
      await hit("https://subs.example/c", "https://blog.subs.example/b");
      await hit("https://subs.example/d?utm_campaign=autumn");
      await tally.flush();
      const range = { from: "2026-11-10", to: "2026-11-10" };
      const counts = async (name: string) =>
        Object.fromEntries((await tally.stats.query(accountId, site.id, { name, ...range })).data.map((row) => [row.value, row.count]));
      expect(await counts("hostname")).toEqual({ "blog.subs.example": 2, "subs.example": 2 });
      expect(await counts("landing_page")).toEqual({ "/a": 1, "/c": 1, "/d": 1 });
      expect((await tally.stats.totals(accountId, site.id, range)).data).toMatchObject({ visitors: 1, visits: 3, pageviews: 4 });
    } finally {
      await tally.close();
    }
  }, 60_000);
});
