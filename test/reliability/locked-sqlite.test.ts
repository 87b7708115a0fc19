/**
 * A SQLite file shared with the host app: another connection (the app writing its own
 * tables) holds the write lock while Tally wants to write. Tally waits and retries
 * quietly (one warning line, no stack), loses and double-counts nothing, and close()
 * resolves once everything is written, or after closeTimeoutMs keeps what is left in a
 * file that the next start writes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTally, UnavailableError, type Tally } from "@tally-analytics/core";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";

const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const DAY = new Date().toISOString().slice(0, 10);
/** Each attempt of the writer waits this long for the lock (the app's own busy_timeout, which Tally keeps). */
const BUSY_TIMEOUT_MS = 250;
const directory = mkdtempSync(join(tmpdir(), "tally-locked-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface SharedFile {
  path: string;
  app: Database.Database;
  tally: Tally;
  accountId: number;
  websiteId: number;
}

const opened: { close(): unknown }[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const handle of opened.splice(0)) handle.close();
});

/** The app's own database, given to Tally, with a table of the app's; one hit counted so the day's salt exists. */
async function sharedFile(name: string, closeTimeoutMs: number): Promise<SharedFile> {
  const path = join(directory, `${name}.sqlite`);
  const app = new Database(path);
  app.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  app.exec("create table app_orders (id integer primary key, total integer not null)");
  opened.push(app);
  const tally = createTally({ database: app, flushIntervalMs: 100, closeTimeoutMs, retentionIntervalMs: 0 });
  const { accountId } = await tally.accounts.create();
  const site = await tally.websites.create(accountId, { domain: "locked.example" });
  await tally.collect({ url: "https://locked.example/before", ip: "203.0.113.250", userAgent: UA });
  await tally.flush();
  return { path, app, tally, accountId, websiteId: site.id };
}

/** A second connection holding a write transaction (BEGIN IMMEDIATE and a write of its own). */
function holdWriteLock(path: string) {
  const other = new Database(path);
  opened.push(other);
  other.exec("begin immediate");
  other.prepare("insert into app_orders (total) values (?)").run(42);
  return { release: () => other.exec("commit") };
}

/** `count` visitors with two pageviews each. */
async function collectVisitors(tally: Tally, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    for (const page of ["/a", "/b"]) {
      await tally.collect({ url: `https://locked.example${page}`, ip: `198.51.100.${i + 1}`, userAgent: UA });
    }
  }
}

/** Pageviews and visitors of today, read from the file by a fresh connection. */
function countsInFile(path: string): { pageviews: number; visitors: number; orders: number } {
  const reader = new Database(path, { readonly: true });
  try {
    const sum = (name: string) =>
      (reader.prepare("select coalesce(sum(count), 0) as n from rollups where name = ? and period = ?").get(name, DAY) as { n: number }).n;
    const orders = (reader.prepare("select count(*) as n from app_orders").get() as { n: number }).n;
    return { pageviews: sum("pageviews"), visitors: sum("visitors"), orders };
  } finally {
    reader.close();
  }
}

describe("a SQLite file locked by another connection", () => {
  it("waits and retries quietly, then writes every hit exactly once", async () => {
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const shared = await sharedFile("retry", 30_000);
    const lock = holdWriteLock(shared.path);

    await collectVisitors(shared.tally, 25);
    // A flush every 100 ms, each attempt waiting 250 ms for the lock: about 8 attempts fail meanwhile.
    await sleep(2500);
    expect(countsInFile(shared.path).pageviews).toBe(1);
    expect(errors).not.toHaveBeenCalled();
    expect(warnings).toHaveBeenCalledTimes(1);
    const line = warnings.mock.calls[0]!.map(String).join(" ");
    expect(line).toMatch(
      /^tally: 50 hits wait to be written, retrying: the database is locked by another connection \(SQLITE_BUSY: database is locked\) \(this line repeats at most once every 60 s\)$/,
    );
    expect(line).not.toContain("\n");
    await expect(shared.tally.flush()).rejects.toBeInstanceOf(UnavailableError);

    lock.release();
    await shared.tally.flush();
    expect(countsInFile(shared.path)).toEqual({ pageviews: 51, visitors: 26, orders: 1 });
    const pages = await shared.tally.stats.query(shared.accountId, shared.websiteId, { name: "page", from: DAY, to: DAY });
    expect(pages.data).toEqual([
      { value: "/a", count: 25 },
      { value: "/b", count: 25 },
      { value: "/before", count: 1 },
    ]);
    await shared.tally.close();
    // And one line when writes work again.
    expect(warnings).toHaveBeenCalledTimes(2);
    expect(String(warnings.mock.calls[1]![0])).toMatch(
      /^tally: the database takes writes again after \d+ s; the 50 hits kept meanwhile are being written$/,
    );
  });

  it("close() waits for the lock and resolves once everything is written", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const shared = await sharedFile("close-waits", 30_000);
    const lock = holdWriteLock(shared.path);
    await collectVisitors(shared.tally, 10);
    setTimeout(() => lock.release(), 1500);
    const began = performance.now();
    await shared.tally.close();
    expect(performance.now() - began).toBeGreaterThanOrEqual(1400);
    expect(countsInFile(shared.path)).toEqual({ pageviews: 21, visitors: 11, orders: 1 });
  });

  it("close() gives up after closeTimeoutMs, keeps those hits in a file (one line says where), and the next start writes them", async () => {
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
    const shared = await sharedFile("close-gives-up", 1000);
    const lock = holdWriteLock(shared.path);
    await collectVisitors(shared.tally, 10);
    const began = performance.now();
    await shared.tally.close();
    // Bounded by the timeout (plus one attempt's busy wait and the worker's shutdown), not by the lock.
    expect(performance.now() - began).toBeLessThan(1000 + BUSY_TIMEOUT_MS + 2000);
    const kept = warnings.mock.calls.map((call) => call.map(String).join(" ")).find((line) => line.includes("could not be written"));
    expect(kept).toMatch(
      new RegExp(
        `^tally: 20 hits could not be written \\(.*database is locked.*\\); kept in ${directory}/tally-spill/tally-spill-[\\w-]+\\.ndjson, to be written at the next start$`,
      ),
    );
    lock.release();
    // Tally let go of the file: the app can write, and only the hit from before the lock was counted.
    shared.app.prepare("insert into app_orders (total) values (?)").run(7);
    expect(countsInFile(shared.path)).toEqual({ pageviews: 1, visitors: 1, orders: 2 });

    // As a version before the `source` and `channel` dimensions wrote it: their values are missing.
    const file = / kept in (\S+\.ndjson),/.exec(kept!)![1]!;
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const older = lines.map((line, i) => {
      if (i === 0) return line;
      const entry = JSON.parse(line) as { hit: { values: Record<string, string> } };
      delete entry.hit.values.source;
      delete entry.hit.values.channel;
      return JSON.stringify(entry);
    });
    writeFileSync(file, `${older.join("\n")}\n`);

    // The app starts again: Tally writes the kept hits before anything else, exactly once.
    const again = createTally({ database: shared.app, retentionIntervalMs: 0 });
    await again.ready();
    expect(countsInFile(shared.path)).toEqual({ pageviews: 21, visitors: 11, orders: 2 });
    await again.close();
    const third = createTally({ database: shared.app, retentionIntervalMs: 0 });
    await third.ready();
    await third.close();
    expect(countsInFile(shared.path)).toEqual({ pageviews: 21, visitors: 11, orders: 2 });
  });
});
