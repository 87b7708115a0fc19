/**
 * Every `database` option of createTally on SQLite: a URL, `:memory:`, the host's own
 * better-sqlite3 Database, and a Kysely instance (the generic kysely store, with
 * SQLite's ASCII-only case folding). The PostgreSQL forms live in test/postgres/.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTally, type DatabaseOption } from "@tally-analytics/core";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterAll, describe, expect, it } from "vitest";

const UA = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
const DAY = "2026-06-01";
const directory = mkdtempSync(join(tmpdir(), "tally-options-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const options: [string, () => DatabaseOption][] = [
  ["a file: URL", () => `file:${join(directory, "url.sqlite")}`],
  ["a plain path", () => join(directory, "plain.sqlite")],
  [":memory:", () => ":memory:"],
  ["a better-sqlite3 Database (file)", () => new Database(join(directory, "handle.sqlite"))],
  ["a better-sqlite3 Database (memory)", () => new Database(":memory:")],
  ["a Kysely instance", () => new Kysely({ dialect: new SqliteDialect({ database: new Database(join(directory, "kysely.sqlite")) }) })],
];

describe.each(options)("createTally({ database: %s })", (_name, database) => {
  it("migrates, counts hits and answers statistics with search", async () => {
    const tally = createTally({ database: database(), flushIntervalMs: 60_000 });
    const { accountId } = await tally.accounts.create();
    const site = await tally.websites.create(accountId, { domain: "options.example" });
    for (const [i, path] of ["/Pricing", "/pricing/plans", "/about"].entries()) {
      await tally.collect({
        url: `https://options.example${path}`,
        ip: `198.51.100.${i + 1}`,
        userAgent: UA,
        timestamp: Date.parse(`${DAY}T10:0${i}:00Z`),
      });
    }
    const pages = await tally.stats.query(accountId, site.id, {
      name: "page",
      from: DAY,
      to: DAY,
      search: "PRICING",
      sort_by: "value",
      sort: "asc",
    });
    expect(pages.data).toEqual([
      { value: "/Pricing", count: 1 },
      { value: "/pricing/plans", count: 1 },
    ]);
    const visitors = await tally.stats.query(accountId, site.id, { name: "visitors", from: DAY, to: DAY });
    expect(visitors.data).toEqual([{ value: DAY, count: 3 }]);
    await tally.close();
  });

  it("filters with regular expressions (matches, matches_not) from rows and day blocks, in v1 and the Stats API v2", async () => {
    // Yesterday: within retention, and a day whose block can be built.
    const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const tally = createTally({ database: database(), flushIntervalMs: 60_000 });
    const { accountId } = await tally.accounts.create();
    const site = await tally.websites.create(accountId, { domain: "patterns.example" });
    for (const [i, path] of ["/user/12", "/user/7/edit", "/users", "/about"].entries()) {
      await tally.collect({
        url: `https://patterns.example${path}`,
        ip: `198.51.100.${i + 1}`,
        userAgent: UA,
        timestamp: Date.parse(`${day}T10:0${i}:00Z`),
      });
    }
    // A hit today: a website's latest day has no block, yesterday then has one.
    await tally.collect({ url: "https://patterns.example/today", ip: "198.51.100.9", userAgent: UA, timestamp: Date.now() - 60_000 });
    const pages = async (filter: string) =>
      (await tally.stats.query(accountId, site.id, { name: "page", from: day, to: day, filter, sort_by: "value", sort: "asc" })).data.map(
        (row) => row.value,
      );
    const check = async () => {
      expect(await pages("page:matches:^/user/\\d+$")).toEqual(["/user/12"]);
      expect(await pages("page:matches_not:^/user/")).toEqual(["/about", "/users"]);
      expect(await pages("page:matches:^/about$||entry_page:matches:edit$")).toEqual(["/about", "/user/7/edit"]);
      const answer = await tally.stats.plausible(accountId, {
        site_id: "patterns.example",
        metrics: ["visitors", "pageviews"],
        date_range: [day, day],
        filters: [["matches", "event:page", ["^/user/"]]],
      });
      expect(answer.results).toEqual([{ dimensions: [], metrics: [2, 2] }]);
      // The visits-and-hits reader of funnels, journeys and engagement takes the same filters.
      const journey = await tally.stats.journey(accountId, site.id, {
        from_page: "/user/*",
        from: day,
        to: day,
        filter: "page:matches:^/user/\\d+$",
      });
      expect(journey.data).toEqual([{ step: 0, value: "page:/user/*", visitors: 1 }]);
    };
    await check();
    expect(await tally.buildDayBlocks()).toBeGreaterThan(0);
    await check();
    await tally.close();
  });
});

describe("a database URL Tally does not support", () => {
  it.each([
    [
      "mysql://x@y/z",
      /^Cannot open the database mysql:\/\/x@y\/z: unsupported database URL scheme "mysql:" \(SQLite: file:PATH or :memory:, PostgreSQL: postgres:\/\/user@host\/db\)$/,
    ],
    ["sqlite3://./tally.db", /^Cannot open the database sqlite3:\/\/.\/tally.db: unsupported database URL scheme "sqlite3:"/],
    ["file:", /^Cannot open the database file:: no file path in the database URL "file:"/],
  ])("%s is refused, and no file or folder is created for it", async (url, message) => {
    const cwd = process.cwd();
    process.chdir(mkdtempSync(join(directory, "cwd-")));
    try {
      const tally = createTally({ database: url });
      await expect(tally.ready()).rejects.toThrow(message);
      await tally.close();
      expect(readdirSync(process.cwd())).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });
});
