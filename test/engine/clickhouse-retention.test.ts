/**
 * Retention and website deletion in ClickHouse (embedded through chDB), `tally_hits` being
 * partitioned by month: a month whose hits are all past their websites' `retention_days` is
 * dropped whole, a website's older hits in a month kept are deleted row by row, and a deleted
 * website's hits go; the visits stored from them too.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTally } from "@tally-analytics/core";
import { connectClickhouse } from "@tally-analytics/core/internal";

const NOW = Date.UTC(2026, 10, 15, 12);
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";

describe("retention in ClickHouse", () => {
  const folder = mkdtempSync(join(tmpdir(), "tally-clickhouse-retention-"));
  const clickhouse = `chdb:${join(folder, "clickhouse")}`;
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("drops the months past every website's retention, deletes the rest of a website's older hits, and a deleted website's", async () => {
    const ids = { short: 0, long: 0 };
    const tally = createTally({ database: `file:${join(folder, "tally.sqlite")}`, clickhouse, retentionIntervalMs: 0 });
    try {
      const { accountId } = await tally.accounts.create();
      // Keeps the last 30 days (from 2026-10-17), the last 400 (from 2025-10-12), and everything.
      const short = await tally.websites.create(accountId, { domain: "short.example", retention_days: 30 });
      const long = await tally.websites.create(accountId, { domain: "long.example", retention_days: 400 });
      const gone = await tally.websites.create(accountId, { domain: "gone.example" });
      const hits: [string, string][] = [
        ["long.example", "2025-06-10"],
        ["short.example", "2026-01-10"],
        ["short.example", "2026-06-10"],
        ["long.example", "2026-06-20"],
        ["short.example", "2026-11-01"],
        ["short.example", "2026-11-10"],
        ["gone.example", "2026-11-10"],
      ];
      for (const [index, [domain, day]] of hits.entries())
        await tally.collect({
          url: `https://${domain}/`,
          ip: `203.0.113.${index}`,
          userAgent: FIREFOX,
          timestamp: Date.parse(`${day}T10:00:00Z`),
        });
      await tally.flush();
      // Each day's visits read: long past, those days' visits and visitor-days are stored beside the hits.
      const idOf = new Map([short, long, gone].map((website) => [website.domain, website.id]));
      for (const [domain, day] of hits) await tally.stats.query(accountId, idOf.get(domain)!, { name: "visits", from: day, to: day });
      Object.assign(ids, { short: short.id, long: long.id });
      await tally.applyRetention(NOW);
      await tally.websites.delete(accountId, gone.id);
    } finally {
      await tally.close();
    }
    const client = await connectClickhouse(clickhouse);
    try {
      const rows = async <T>(query: string) => (await client.query({ query, format: "JSONEachRow" })).json<T>();
      const months = await rows<{ partition: string }>(
        "SELECT DISTINCT partition FROM system.parts WHERE database = currentDatabase() AND table = 'tally_hits' AND active ORDER BY partition",
      );
      // 2025-06 (long's, past its 400 days) and 2026-01 (short's, past its 30) are dropped whole.
      expect(months.map((row) => row.partition)).toEqual(["202606", "202611"]);
      const kept = await rows<{ website_id: number; day: string }>("SELECT website_id, day FROM tally_hits ORDER BY day, website_id");
      expect(kept).toEqual([
        { website_id: ids.long, day: "2026-06-20" },
        { website_id: ids.short, day: "2026-11-01" },
        { website_id: ids.short, day: "2026-11-10" },
      ]);
      // The stored visits, visitor-days and days went with them.
      for (const [table, day] of [
        ["tally_visits", "vday"],
        ["tally_visitor_days", "day"],
        ["tally_visit_days", "day"],
      ])
        expect(await rows(`SELECT website_id, toString(${day}) AS day FROM ${table} ORDER BY day, website_id`), table).toEqual(kept);
    } finally {
      await client.close();
    }
  }, 60_000);
});
