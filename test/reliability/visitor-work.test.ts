/**
 * One client (fixed IP and user agent) sending a new screen size with
 * every hit used to make each hit re-split the visitor's whole list of values seen that
 * day — quadratic work that stalled every website's reads, and on `:memory:` the event
 * loop itself. The per-visitor work is now constant: at most 32 values are remembered
 * per visitor and day, later new ones are not counted for that visitor.
 */
import Database from "better-sqlite3";
import { createTally } from "@tally-analytics/core";
import { describe, expect, it } from "vitest";
import { CHROME } from "./support.js";

const HITS = 100_000;
const DAY = "2026-10-05";
const NOON = Date.parse(`${DAY}T12:00:00Z`);

/** Milliseconds to collect and write `HITS` hits of one client, and what they counted. */
async function ingest(screenOf: (i: number) => string) {
  const sqlite = new Database(":memory:");
  const tally = createTally({ database: sqlite, retentionIntervalMs: 0 });
  const { accountId } = await tally.accounts.create();
  const site = await tally.websites.create(accountId, { domain: "one-client.example", exclude_bots: 0 });
  await tally.collect({ url: "https://one-client.example/warm", ip: "192.0.2.1", userAgent: CHROME, timestamp: NOON });
  await tally.flush();
  const began = performance.now();
  for (let i = 0; i < HITS; i += 500) {
    const turn: Promise<unknown>[] = [];
    for (let j = i; j < i + 500; j++) {
      turn.push(
        tally.collect({
          url: "https://one-client.example/",
          ip: "203.0.113.77",
          userAgent: CHROME,
          screen: screenOf(j),
          timestamp: NOON + j,
        }),
      );
    }
    await Promise.all(turn);
  }
  await tally.flush();
  const ms = performance.now() - began;
  const resolutions = await tally.stats.queryWebsite(site.id, { name: "resolution", from: DAY, to: DAY, per_page: 100 });
  const seen = sqlite.prepare("select seen from visitors where website_id = ? and last_seen > ?").all(site.id, NOON) as { seen: string }[];
  await tally.close();
  sqlite.close();
  return { ms, resolutions: resolutions.total, seenLines: Math.max(...seen.map((row) => row.seen.split("\n").length)) };
}

describe("per-visitor work", () => {
  it(
    `${HITS} hits of one client with a new screen size each cost about what ${HITS} ordinary hits cost (a ratio, not a time)`,
    { timeout: 120_000 },
    async () => {
      const first = await ingest(() => "1920x1080");
      const hostile = await ingest((i) => `${(i % 99_999) + 1}x1`);
      const second = await ingest(() => "1920x1080");
      // The faster ordinary run: the first one also warms the JIT up.
      const ordinary = first.ms < second.ms ? first : second;
      const ratio = hostile.ms / ordinary.ms;
      console.log(
        `[visitor work] ordinary ${Math.round(ordinary.ms)} ms, a new screen size per hit ${Math.round(hostile.ms)} ms: ${ratio.toFixed(2)}×`,
      );
      expect(ordinary.resolutions).toBe(1);
      // 32 values remembered for the visitor; the warm-up visitor's one is not in this day's other website.
      expect(hostile.resolutions).toBe(32);
      expect(hostile.seenLines).toBeLessThanOrEqual(32);
      // Quadratic work made this ratio grow with HITS (it was unbounded: minutes at 60k hits).
      expect(ratio).toBeLessThan(4);
    },
  );
});
