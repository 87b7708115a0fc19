/**
 * The SQLite writer's WAL between checkpoints: a checkpoint copies each distinct page of the
 * WAL into the database once, so the writer lets it grow past SQLite's default of 1,000
 * pages (successive flushes rewrite mostly the same pages), and no further than 4,000 pages
 * and the flush that crossed them (docs/reliability.md: the WAL is bounded).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTally } from "@tally-analytics/core";
import { afterAll, describe, expect, it } from "vitest";

const directory = mkdtempSync(join(tmpdir(), "tally-wal-checkpoints-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const HITS = 24_000;
const HITS_PER_FLUSH = 400;

/** Pages the WAL file holds (its frames: a 24-byte header and a page each, after a 32-byte file header). */
function walPages(path: string): number {
  const wal = `${path}-wal`;
  if (!existsSync(wal)) return 0;
  const size = statSync(wal).size;
  if (size < 32) return 0;
  const pageSize = readFileSync(wal).readUInt32BE(8);
  return Math.floor((size - 32) / (24 + pageSize));
}

describe("the SQLite writer's checkpoints", () => {
  it("let the WAL pass 1,000 pages before a checkpoint, and never 4,000 pages and a flush", async () => {
    const path = join(directory, "tally.sqlite");
    const tally = createTally({ database: `file:${path}`, flushIntervalMs: 60_000 });
    const { accountId } = await tally.accounts.create();
    await tally.websites.create(accountId, { domain: "wal.example" });
    const sizes: number[] = [];
    let before = 0;
    let largestFlush = 0;
    for (let hit = 0; hit < HITS; hit++) {
      await tally.collect({
        url: `https://wal.example/articles/${hit}?ref=${hit % 97}`,
        referrer: `https://referrer-${hit % 501}.example/`,
        ip: `198.51.${Math.floor(hit / 250) % 250}.${hit % 250}`,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
      });
      if ((hit + 1) % HITS_PER_FLUSH === 0) {
        await tally.flush();
        const pages = walPages(path);
        sizes.push(pages);
        if (pages > before) largestFlush = Math.max(largestFlush, pages - before);
        before = pages;
      }
    }
    await tally.close();
    const largest = Math.max(...sizes);
    // The flushes wrote far more than 4,000 pages in all, and each well under 1,000.
    expect(sizes.some((pages, index) => index > 0 && pages < sizes[index - 1]!)).toBe(true);
    expect(largestFlush).toBeLessThan(1000);
    expect(largest).toBeGreaterThan(1000 + largestFlush);
    expect(largest).toBeLessThanOrEqual(4000 + largestFlush);
  }, 120_000);
});
