/**
 * On SQLite a writer finds visitor rows by the rowids it keeps, not through an index on the
 * hash. Rows another connection wrote meanwhile must be found all the same (or a visitor
 * would be counted twice), and a database from before, with that index, loses it on opening.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { createTally, type Tally } from "@tally-analytics/core";
import { afterAll, describe, expect, it } from "vitest";

const directory = mkdtempSync(join(tmpdir(), "tally-visitor-rows-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0";
const DOMAIN = "rows.example";

/** A hit of the visitor at `ip`, `minutes` after the first hits; written before it answers. */
async function view(tally: Tally, ip: string, page: string, at: number) {
  await tally.collect({ url: `https://${DOMAIN}${page}`, ip, userAgent: FIREFOX, timestamp: at });
  await tally.flush();
}

/** What is stored: visitor rows, visits, and the day's visitors and pageviews as counted. */
function stored(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const count = (sql: string) => Number((db.prepare(sql).get() as { n: number | null }).n ?? 0);
    return {
      visitorRows: count("select count(*) as n from visitors"),
      visits: count("select count(*) as n from visits"),
      visitors: count("select sum(count) as n from rollups where name = 'visitors' and length(period) = 10"),
      pageviews: count("select sum(count) as n from rollups where name = 'pageviews' and length(period) = 10"),
      hashIndex: count("select count(*) as n from sqlite_master where name = 'visitors_hash_idx'"),
    };
  } finally {
    db.close();
  }
}

async function newSite(file: string, database: string | Kysely<never> = `file:${file}`) {
  const tally = createTally({ database, retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
  const { accountId } = await tally.accounts.create();
  await tally.websites.create(accountId, { domain: DOMAIN, exclude_bots: 0 });
  return tally;
}

describe("visitor rows on SQLite", () => {
  it("written by another process are found: a visitor whose hits two processes write counts once", async () => {
    const file = join(directory, "two.sqlite");
    const first = await newSite(file);
    const second = createTally({ database: `file:${file}`, retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
    const start = Date.now() - 60_000;
    try {
      // The second process writes first (twice: its first flush also rotates the salts), so it
      // knows the visitor rows as they were then.
      await view(second, "198.51.100.20", "/other", start);
      await view(second, "198.51.100.20", "/more", start + 500);
      await view(first, "198.51.100.10", "/a", start + 1_000);
      // The same visitor's next pageview, through the second process: the row the first one created.
      await view(second, "198.51.100.10", "/b", start + 2_000);
      await view(first, "198.51.100.10", "/c", start + 3_000);
    } finally {
      await second.close();
      await first.close();
    }
    expect(stored(file)).toEqual({ visitorRows: 2, visits: 2, visitors: 2, pageviews: 5, hashIndex: 0 });
  });

  it("of a database from before keep counting: opening it drops the index on the hash", async () => {
    const file = join(directory, "before.sqlite");
    const start = Date.now() - 60_000;
    const tally = await newSite(file);
    await view(tally, "198.51.100.30", "/a", start);
    await tally.close();
    // As the version before left it: the index, and no record of the migration that drops it.
    const db = new Database(file);
    db.exec("create unique index visitors_hash_idx on visitors (hash)");
    db.exec("delete from tally_migrations where name = '0042_visitors_without_hash_index'");
    db.close();
    expect(stored(file).hashIndex).toBe(1);

    const reopened = createTally({ database: `file:${file}`, retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
    try {
      await view(reopened, "198.51.100.30", "/b", start + 1_000);
      await view(reopened, "198.51.100.31", "/a", start + 2_000);
    } finally {
      await reopened.close();
    }
    expect(stored(file)).toEqual({ visitorRows: 2, visits: 2, visitors: 2, pageviews: 3, hashIndex: 0 });
  });

  it("written through a Kysely the app passed are found again: a visitor's later hits join its visit", async () => {
    const file = join(directory, "kysely.sqlite");
    const handle = new Database(file);
    const tally = await newSite(file, new Kysely<never>({ dialect: new SqliteDialect({ database: handle }) }));
    const start = Date.now() - 60_000;
    try {
      await view(tally, "198.51.100.40", "/a", start);
      await view(tally, "198.51.100.40", "/b", start + 1_000);
      await view(tally, "198.51.100.41", "/a", start + 2_000);
      await view(tally, "198.51.100.40", "/c", start + 3_000);
    } finally {
      await tally.close();
      handle.close();
    }
    expect(stored(file)).toEqual({ visitorRows: 2, visits: 2, visitors: 2, pageviews: 4, hashIndex: 0 });
  });
});
