/**
 * A SQLite file's threads are a guest's cost: the writer starts with the first write, not
 * with createTally, the reader with the first query, and both exit when idle; the next
 * request starts another on the same file, which carries on where the last one stopped.
 * Threads are counted from /proc (Linux).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteReadPool, createSqliteWorkerStore, createTally, statsQuerySchema } from "@tally-analytics/core/internal";
import { afterAll, describe, expect, it } from "vitest";

const directory = mkdtempSync(join(tmpdir(), "tally-writer-thread-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const threads = () => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the thread count is `count` (threads leave a moment after they end). */
async function threadsBecome(count: number): Promise<number> {
  for (let attempt = 0; attempt < 100 && threads() !== count; attempt++) await sleep(50);
  return threads();
}

describe("the SQLite writer thread", () => {
  it("is not started by createTally, accounts or websites: only by the first hit's flush", async () => {
    const before = threads();
    const tally = createTally({ database: `file:${join(directory, "lazy.sqlite")}`, flushIntervalMs: 60_000 });
    const { accountId } = await tally.accounts.create();
    await tally.websites.create(accountId, { domain: "lazy.example" });
    expect(await threadsBecome(before)).toBe(before);
    await tally.collect({ url: "https://lazy.example/", ip: "198.51.100.1", userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0" });
    await tally.flush();
    expect(threads()).toBeGreaterThan(before);
    await tally.close();
    expect(await threadsBecome(before)).toBe(before);
  });

  it("exits after its idle time; the next request starts another that reads what the first wrote", async () => {
    const path = join(directory, "idle.sqlite");
    // A migrated file, as createTally leaves it.
    await createTally({ database: `file:${path}` }).close();
    const before = threads();
    const store = createSqliteWorkerStore(path, 5000, 200);
    try {
      const first = await store.salt("2026-06-01", "salt-one");
      expect(first).toBe("salt-one");
      expect(threads()).toBeGreaterThan(before);
      expect(await threadsBecome(before)).toBe(before);
      // A new thread: the day's salt is the one stored by the thread that exited.
      expect(await store.salt("2026-06-01", "salt-two")).toBe("salt-one");
      expect(await store.salt("2026-06-02", "salt-three")).toBe("salt-three");
    } finally {
      await store.close();
    }
    expect(await threadsBecome(before)).toBe(before);
  });

  it("runs with a heap ceiling of its own, about 1 GB, whatever the process's", async () => {
    const path = join(directory, "heap.sqlite");
    await createTally({ database: `file:${path}` }).close();
    const store = createSqliteWorkerStore(path, 5000);
    try {
      const heap = await store.writerHeap();
      const MB = 1024 * 1024;
      // Old generation 1,024 MB plus a young generation of a few MB (the process's default here: 2–4 GB).
      expect(heap.limit).toBeGreaterThanOrEqual(1024 * MB);
      expect(heap.limit).toBeLessThanOrEqual(1040 * MB);
      expect(heap.used).toBeGreaterThan(0);
      expect(heap.used).toBeLessThan(heap.total);
    } finally {
      await store.close();
    }
  });

  it("the reader thread starts with the first query, exits when idle, and the next query starts another", async () => {
    const path = join(directory, "reads.sqlite");
    const tally = createTally({ database: `file:${path}`, flushIntervalMs: 60_000 });
    const { accountId } = await tally.accounts.create();
    const site = await tally.websites.create(accountId, { domain: "reads.example" });
    for (const page of ["/a", "/b", "/b"])
      await tally.collect({
        url: `https://reads.example${page}`,
        ip: "198.51.100.7",
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0",
        timestamp: Date.parse("2026-06-01T10:00:00Z"),
      });
    await tally.close();
    const before = threads();
    const reads = createSqliteReadPool(path, { idleExitMs: 200 });
    const query = statsQuerySchema.parse({ name: "page", from: "2026-06-01", to: "2026-06-01" });
    try {
      const first = await reads.page(site.id, query);
      expect(first.data).toEqual([
        { value: "/b", count: 2 },
        { value: "/a", count: 1 },
      ]);
      expect(threads()).toBeGreaterThan(before);
      expect(await threadsBecome(before)).toBe(before);
      expect((await reads.page(site.id, query)).data).toEqual(first.data);
    } finally {
      await reads.close();
    }
    expect(await threadsBecome(before)).toBe(before);
  });
});
