/**
 * The PostgreSQL ways into createTally: a postgres:// URL, a pg Pool and a
 * Kysely with PostgresDialect; what the caller passed stays open after close().
 * Migrations are idempotent, and case-insensitive search folds non-ASCII letters.
 * A flush's updates of rollup and visitor rows stay on their pages (heap-only tuples).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createTally, type DatabaseOption, type Tally } from "@tally-analytics/core";
import { Kysely, PostgresDialect, sql } from "kysely";
import { DIALECTS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const KEY = "tally_dialect_test_key_0123456789abcdef";
const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const day = () => new Date().toISOString().slice(0, 10);

/** Creates a website, counts two hits of one visitor, and reads them back. */
async function roundTrip(tally: Tally, domain: string): Promise<void> {
  const account = await tally.accounts.ensureKey(KEY);
  const website = await tally.websites.create(account.id, { domain });
  await tally.collect({ url: `https://${domain}/`, ip: "198.51.100.7", userAgent: UA });
  await tally.collect({ url: `https://${domain}/pricing`, ip: "198.51.100.7", userAgent: UA });
  const today = day();
  const visitors = await tally.stats.query(account.id, website.id, { name: "visitors", from: today, to: today });
  const pages = await tally.stats.query(account.id, website.id, { name: "page", from: today, to: today, sort_by: "value", sort: "asc" });
  expect(visitors.data).toEqual([{ value: today, count: 1 }]);
  expect(pages.data).toEqual([
    { value: "/", count: 1 },
    { value: "/pricing", count: 1 },
  ]);
}

describe.skipIf(!DIALECTS.includes("postgres"))("PostgreSQL dialect", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
  });
  afterAll(async () => {
    await database?.dispose();
  });

  it("accepts a postgres:// URL (and postgresql://)", async () => {
    const tally = createTally({ database: database.url });
    try {
      await tally.ready();
      await roundTrip(tally, "url.example");
    } finally {
      await tally.close();
    }
    const alias = createTally({ database: database.url.replace(/^postgres:/, "postgresql:") });
    try {
      expect(await alias.accounts.count()).toBe(1);
    } finally {
      await alias.close();
    }
  });

  it("accepts a pg Pool and leaves it open after close()", async () => {
    const pool = new pg.Pool({ connectionString: database.url });
    try {
      const tally = createTally({ database: pool });
      await roundTrip(tally, "pool.example");
      await tally.close();
      const { rows } = await pool.query<{ n: string }>("select count(*) as n from websites where domain = 'pool.example'");
      expect(rows[0]!.n).toBe("1");
    } finally {
      await pool.end();
    }
  });

  it("accepts a Kysely with PostgresDialect and leaves it open after close()", async () => {
    const db = new Kysely<Record<string, never>>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url }) }),
    });
    try {
      const tally = createTally({ database: db });
      await roundTrip(tally, "kysely.example");
      await tally.close();
      const row = await db
        .selectFrom("websites")
        .select(sql<string>`count(*)`.as("n"))
        .where("domain", "=", "kysely.example")
        .executeTakeFirstOrThrow();
      expect(Number(row.n)).toBe(1);
    } finally {
      await db.destroy();
    }
  });

  it("runs migrations once: opening the same database again changes nothing", async () => {
    const fresh = await createTestDatabase("postgres");
    const pool = new pg.Pool({ connectionString: fresh.url });
    try {
      const open = async (option: DatabaseOption) => {
        const tally = createTally({ database: option });
        await tally.ready();
        return tally;
      };
      const first = await open(fresh.url);
      const account = await first.accounts.ensureKey(KEY);
      await first.close();
      const migrations = async () =>
        (await pool.query<{ name: string }>("select name from tally_migrations order by name")).rows.map((r) => r.name);
      const applied = await migrations();
      expect(applied.length).toBeGreaterThan(0);
      for (const option of [fresh.url, pool]) {
        const again = await open(option);
        expect((await again.accounts.ensureKey(KEY)).id).toBe(account.id);
        expect(await again.accounts.count()).toBe(1);
        await again.close();
      }
      expect(await migrations()).toEqual(applied);
    } finally {
      await pool.end();
      await fresh.dispose();
    }
  });

  it("flushes update rollup and visitor rows in place: no index entry per update (heap-only tuples)", async () => {
    const fresh = await createTestDatabase("postgres");
    const pool = new pg.Pool({ connectionString: fresh.url });
    try {
      const tally = createTally({ database: fresh.url });
      const account = await tally.accounts.ensureKey(KEY);
      await tally.websites.create(account.id, { domain: "inplace.example" });
      // The same visitors on the same pages, a flush at a time: every flush after the first updates today's rows.
      for (let flush = 0; flush < 5; flush++) {
        for (let visitor = 0; visitor < 20; visitor++)
          await tally.collect({ url: `https://inplace.example/page-${visitor % 4}`, ip: `198.51.100.${visitor + 1}`, userAgent: UA });
        await tally.flush();
      }
      // Its connections end: each backend reports its counts as it exits.
      await tally.close();
      const updates = async () =>
        (
          await pool.query<{ relname: string; updated: string; heap_only: string }>(
            `select relname, n_tup_upd as updated, n_tup_hot_upd as heap_only from pg_stat_user_tables
             where relname in ('rollups', 'visitors') order by relname`,
          )
        ).rows.map((row) => ({ table: row.relname, updated: Number(row.updated), heapOnly: Number(row.heap_only) }));
      let counted = await updates();
      for (let wait = 0; wait < 50 && counted.some((row) => row.updated === 0); wait++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        counted = await updates();
      }
      // Without room on their pages and with the count in an index, next to none would be (0 of ~50k in a bench run).
      for (const { table, updated, heapOnly } of counted) {
        expect(updated, table).toBeGreaterThan(20);
        expect(heapOnly / updated, table).toBeGreaterThan(0.5);
      }
    } finally {
      await pool.end();
      await fresh.dispose();
    }
  });

  it("searches case-insensitively with non-ASCII values", async () => {
    const tally = createTally({ database: database.url });
    try {
      const account = await tally.accounts.ensureKey(KEY);
      const website = await tally.websites.create(account.id, { domain: "umlaut.example" });
      const hit = { ip: "198.51.100.8", userAgent: UA };
      await tally.collect({ ...hit, url: "https://umlaut.example/Über" });
      await tally.collect({ ...hit, url: "https://umlaut.example/über-uns" });
      await tally.collect({ ...hit, url: "https://umlaut.example/contact" });
      for (const event of ["Über uns geöffnet", "ÉTÉ Ω Σύνδεση", "plain"])
        await tally.collect({ ...hit, url: "https://umlaut.example/", event });
      const today = day();
      const search = async (name: "event" | "page", text: string) =>
        (
          await tally.stats.query(account.id, website.id, { name, from: today, to: today, search: text, sort_by: "value", sort: "asc" })
        ).data.map((r) => r.value);

      // Event names are stored as sent: lower() must fold Ü, É, Σ like JavaScript does.
      expect(await search("event", "über")).toEqual(["Über uns geöffnet"]);
      expect(await search("event", "ÜBER UNS")).toEqual(["Über uns geöffnet"]);
      expect(await search("event", "GEÖFFNET")).toEqual(["Über uns geöffnet"]);
      expect(await search("event", "été ω σύν")).toEqual(["ÉTÉ Ω Σύνδεση"]);
      expect(await search("event", "%")).toEqual([]); // no LIKE wildcards
      expect(await search("event", "_")).toEqual([]);

      // Pages read decoded ("/Über", not "/%C3%9Cber"), so they are searched like any text.
      expect(await search("page", "über")).toEqual(["/Über", "/über-uns"]);
      expect(await search("page", "/ÜBER-")).toEqual(["/über-uns"]);
      expect(await search("page", "CONTACT")).toEqual(["/contact"]);
    } finally {
      await tally.close();
    }
  });
});
