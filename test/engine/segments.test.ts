/**
 * The visits-and-hits store and what rides on it, once per dialect: the two bugs an
 * independent check found (a late hit across midnight, time zone aliases), engagement
 * signals, the limits on distinct values, deleting a website, and retention.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Tally } from "@tally-analytics/core";
import { openDatabase, createKyselyStore, createRetention } from "@tally-analytics/core/internal";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const IP = "198.51.100.23";
const at = (iso: string) => Date.parse(iso);

describe.each(DIALECTS)("segments store on %s", (dialect) => {
  const fixtures: TestTally[] = [];
  afterEach(async () => {
    while (fixtures.length > 0) await fixtures.pop()!.dispose();
  });

  async function fresh(): Promise<{ stored: TestTally; tally: Tally; accountId: number }> {
    const stored = await createTestTally(dialect, { retentionIntervalMs: 0 });
    fixtures.push(stored);
    const { accountId } = await stored.tally.accounts.create();
    return { stored, tally: stored.tally, accountId };
  }

  const rows = async (tally: Tally, websiteId: number, input: Record<string, unknown>) =>
    (await tally.stats.queryWebsite(websiteId, { per_page: 100, ...input })).data;

  it("a late hit that arrives after the visitor's hit of the next local day joins that visit (no new landing page, no referrer)", async () => {
    const { tally, accountId } = await fresh();
    const site = await tally.websites.create(accountId, { domain: "late.example", timezone: "UTC" });
    const hit = (path: string, iso: string, referrer?: string) =>
      tally.collect({
        url: `https://late.example${path}`,
        ip: IP,
        userAgent: CHROME,
        timestamp: at(iso),
        ...(referrer ? { referrer } : {}),
      });
    await hit("/b1", "2028-05-05T23:00:00Z");
    await hit("/b2", "2028-05-06T00:10:00Z");
    await tally.flush(); // the next day's hit is written before the late one arrives
    await hit("/b-late", "2028-05-05T23:45:00Z", "https://news.ycombinator.com/");
    const range = { from: "2028-05-05", to: "2028-05-06" };
    expect(await rows(tally, site.id, { name: "landing_page", ...range, sort_by: "value", sort: "asc" })).toEqual([
      { value: "/b1", count: 1 },
      { value: "/b2", count: 1 },
    ]);
    expect(await rows(tally, site.id, { name: "referrer", ...range })).toEqual([]);
    expect(await rows(tally, site.id, { name: "pageviews", ...range, sort_by: "value", sort: "asc" })).toEqual([
      { value: "2028-05-05", count: 2 },
      { value: "2028-05-06", count: 1 },
    ]);
    // The late pageview belongs to the second visit: it has two pageviews, the first one.
    expect(await rows(tally, site.id, { name: "views_per_visit", ...range, sort_by: "value", sort: "asc" })).toEqual([
      { value: "2028-05-05", count: 1 },
      { value: "2028-05-06", count: 2 },
    ]);
    const filtered = await tally.stats.queryWebsite(site.id, {
      name: "page",
      ...range,
      filter: "entry_page:is:/b2",
      sort_by: "value",
      sort: "asc",
    });
    expect(filtered.data).toEqual([
      { value: "/b-late", count: 1 },
      { value: "/b2", count: 1 },
    ]);
  });

  it("hits collected while a flush swaps the buffer are written exactly once (Kysely writes iterate their batch after awaiting)", async () => {
    const { stored, tally, accountId } = await fresh();
    const site = await tally.websites.create(accountId, { domain: "race.example" });
    const noon = at("2026-08-01T12:00:00Z");
    // Hits over many days: each new day's salt is read from the database, an await that
    // lets flushes run between a collect's start and the moment it buffers its hit.
    const DAYS = 40;
    let collecting = true;
    const flushing = (async () => {
      while (collecting) {
        await tally.flush();
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const collects: Promise<unknown>[] = [];
    for (let i = 0; i < 3000; i++) {
      const day = i % DAYS;
      collects.push(
        tally.collect({
          url: `https://race.example/p${i % 50}`,
          ip: `10.3.${i >> 8}.${i & 255}`,
          userAgent: CHROME,
          timestamp: noon + day * 86_400_000 + i,
        }),
      );
      if (i % 100 === 99) await Promise.all(collects.splice(0));
    }
    await Promise.all(collects);
    collecting = false;
    await flushing;
    await tally.flush();
    const [stored_] = await stored.sql<{ n: number | string }>(`select count(*) as n from hits where website_id = ${site.id}`);
    expect(Number(stored_!.n)).toBe(3000);
    const days = await rows(tally, site.id, { name: "pageviews", from: "2026-08-01", to: "2026-09-30" });
    expect(days.reduce((total, row) => total + row.count, 0)).toBe(3000);
  });

  it("time zones are returned as the user gave them (current IANA names), in their proper spelling", async () => {
    const { tally, accountId } = await fresh();
    const cases: [string, string][] = [
      ["Asia/Kathmandu", "Asia/Kathmandu"],
      ["Asia/Kolkata", "Asia/Kolkata"],
      ["Europe/Kyiv", "Europe/Kyiv"],
      ["America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"],
      ["Asia/Ho_Chi_Minh", "Asia/Ho_Chi_Minh"],
      ["asia/kolkata", "Asia/Kolkata"],
      [" utc ", "UTC"],
      ["Asia/Calcutta", "Asia/Calcutta"],
      ["europe/paris", "Europe/Paris"],
    ];
    for (const [index, [given, stored]] of cases.entries()) {
      const site = await tally.websites.create(accountId, { domain: `tz${index}.example`, timezone: given });
      expect(site.timezone, given).toBe(stored);
      expect((await tally.websites.get(accountId, site.id)).timezone).toBe(stored);
    }
    const updated = await tally.websites.update(accountId, (await tally.websites.create(accountId, { domain: "tz-up.example" })).id, {
      timezone: "Europe/Kyiv",
    });
    expect(updated.timezone).toBe("Europe/Kyiv");
  });

  it("engagement signals: engaged time and duration for a one-page visit; never a visitor, pageview or visit; ignored without a visit", async () => {
    const { stored, tally, accountId } = await fresh();
    const site = await tally.websites.create(accountId, { domain: "engaged.example" });
    const t0 = at("2026-06-10T12:00:00Z");
    await tally.collect({ url: "https://engaged.example/read", ip: IP, userAgent: CHROME, timestamp: t0 });
    await tally.collect({ url: "https://engaged.example/read", ip: IP, userAgent: CHROME, timestamp: t0 + 40_000, engagedMs: 38_000 });
    // A person with no visit: ignored.
    await tally.collect({ url: "https://engaged.example/x", ip: "198.51.100.99", userAgent: CHROME, timestamp: t0, engagedMs: 5000 });
    const day = { from: "2026-06-10", to: "2026-06-10" };
    const totals = await tally.stats.totalsWebsite(site.id, day);
    expect(totals.data).toEqual({ visitors: 1, visits: 1, pageviews: 1, views_per_visit: 1, bounce_rate: 100, visit_duration: 40 });
    const [visit] = await stored.sql<{ duration: number; engaged: number; pageviews: number }>(
      "select duration, engaged, pageviews from visits",
    );
    expect(visit).toEqual({ duration: 40, engaged: 38, pageviews: 1 });
    expect(await stored.sql("select * from hits")).toHaveLength(1);
    // Filtered statistics see the same visit.
    const filtered = await tally.stats.totalsWebsite(site.id, { ...day, filter: "page:is:/read" });
    expect(filtered.data.visit_duration).toBe(40);
    await expect(tally.collect({ url: "https://engaged.example/", ip: IP, userAgent: CHROME, engagedMs: -1 })).rejects.toMatchObject({
      errors: { e: [expect.any(String)] },
    });
    await expect(
      tally.collect({ url: "https://engaged.example/", ip: IP, userAgent: CHROME, engagedMs: 5, event: "x" }),
    ).rejects.toMatchObject({ errors: { e: [expect.any(String)] } });
  });

  it("a website creates at most 5,000 new pages a day: the rest count as (other); property values are cut to 200 characters", async () => {
    const { stored, tally, accountId } = await fresh();
    const site = await tally.websites.create(accountId, { domain: "many.example" });
    const noon = at("2026-07-01T12:00:00Z");
    for (let i = 0; i < 5010; i++) {
      await tally.collect({ url: `https://many.example/p${i}`, ip: `10.1.${i >> 8}.${i & 255}`, userAgent: CHROME, timestamp: noon + i });
    }
    await tally.collect({
      url: "https://many.example/p0",
      ip: IP,
      userAgent: CHROME,
      timestamp: noon,
      event: "Long",
      props: { text: "x".repeat(450) },
    });
    const day = { from: "2026-07-01", to: "2026-07-01" };
    const page = await tally.stats.queryWebsite(site.id, { name: "page", ...day, search: "(other)" });
    expect(page.data).toEqual([{ value: "(other)", count: 10 }]);
    expect((await tally.stats.queryWebsite(site.id, { name: "page", ...day })).total).toBe(5001);
    // A value seen before is never (other), also the next day.
    await tally.collect({ url: "https://many.example/p4999", ip: IP, userAgent: CHROME, timestamp: noon + 86_400_000 });
    expect(await rows(tally, site.id, { name: "page", from: "2026-07-02", to: "2026-07-02" })).toEqual([{ value: "/p4999", count: 1 }]);
    const [pages] = await stored.sql<{ n: number | string }>(
      `select count(*) as n from dimensions where website_id = ${site.id} and kind = 1`,
    );
    expect(Number(pages!.n)).toBe(5001);
    const property = await rows(tally, site.id, { name: "event_property", ...day, event: "Long", property: "text" });
    expect(property).toEqual([{ value: "x".repeat(200), count: 1 }]);
  }, 120_000); // 5,010 hits one at a time: seconds on SQLite, tens of seconds on a busy PostgreSQL

  it("deleting a website deletes its rows in every table (rollups, visits, hits, properties, values, visitor states)", async () => {
    const { stored, tally, accountId } = await fresh();
    const keep = await tally.websites.create(accountId, { domain: "keep.example" });
    const drop = await tally.websites.create(accountId, { domain: "drop.example" });
    for (const domain of ["keep.example", "drop.example"]) {
      await tally.collect({ url: `https://${domain}/a?utm_source=s`, ip: IP, userAgent: CHROME, event: "E", props: { k: "v" } });
      await tally.collect({ url: `https://${domain}/b`, ip: IP, userAgent: CHROME });
    }
    await tally.flush();
    await tally.websites.delete(accountId, drop.id);
    for (const table of ["rollups", "visits", "hits", "event_props", "dimensions", "visitors"]) {
      const [left] = await stored.sql<{ n: number | string }>(`select count(*) as n from ${table} where website_id = ${drop.id}`);
      expect(Number(left!.n), table).toBe(0);
      const [kept] = await stored.sql<{ n: number | string }>(`select count(*) as n from ${table} where website_id = ${keep.id}`);
      expect(Number(kept!.n), table).toBeGreaterThan(0);
    }
  });

  it("retention deletes exactly the visits and hits older than retention_days, in bounded batches; rollups keep everything", async () => {
    const { stored, tally, accountId } = await fresh();
    const site = await tally.websites.create(accountId, { domain: "old.example", timezone: "Asia/Tokyo", retention_days: 7 });
    expect(site.retention_days).toBe(7);
    const now = at("2026-09-20T03:00:00Z"); // 12:00 on 2026-09-20 in Tokyo: kept days are 09-14 … 09-20
    for (let daysAgo = 0; daysAgo < 12; daysAgo++) {
      for (let i = 0; i < 5; i++) {
        await tally.collect({
          url: `https://old.example/d${daysAgo}`,
          ip: `10.2.${daysAgo}.${i}`,
          userAgent: CHROME,
          timestamp: now - daysAgo * 86_400_000,
          event: i === 0 ? "E" : null,
          props: i === 0 ? { k: "v" } : null,
        });
      }
    }
    await tally.flush();
    const wholeRange = { from: "2026-09-01", to: "2026-09-30" };
    const before = await rows(tally, site.id, { name: "pageviews", ...wholeRange });
    // Funnels and journeys read day blocks where they are current: those of the deleted days go too.
    expect(await tally.buildDayBlocks()).toBe(11);
    const funnel = await tally.funnels.create(accountId, site.id, { name: "Old", steps: ["page:/d*", "page:/d*"] });
    const funnelVisitors = async () =>
      (await tally.stats.funnel(accountId, site.id, { funnel: funnel.id, ...wholeRange })).data.map((row) => row.visitors);
    const journeyStart = async () => (await tally.stats.journey(accountId, site.id, { from_event: "E", ...wholeRange })).data[0]?.visitors;
    expect(await funnelVisitors()).toEqual([12 * 4, 0]);
    expect(await journeyStart()).toBe(12);
    const database = await openDatabase(stored.url);
    try {
      const calls: number[] = [];
      const store = createKyselyStore(database.db, database.dialect);
      const counted = {
        deleteOlderThan: async (id: number, seconds: number, limit: number) => {
          const n = await store.deleteOlderThan(id, seconds, limit);
          calls.push(n);
          return n;
        },
      };
      const retention = createRetention(counted, async () => [await tally.websites.get(accountId, site.id)], { batchSize: 4 });
      const deleted = await retention.run(now);
      // 5 days × (5 visits + 5 hits + 1 property) = 55 rows, in statements of at most 4 rows per table.
      expect(deleted).toBe(55);
      expect(Math.max(...calls)).toBeLessThanOrEqual(3 * 4);
      expect(calls.length).toBeGreaterThanOrEqual(Math.ceil(25 / 4));
      expect(await retention.run(now)).toBe(0);
    } finally {
      await database.close();
    }
    const [oldest] = await stored.sql<{ t: number | string }>(`select min(time) as t from hits where website_id = ${site.id}`);
    expect(new Date(Number(oldest!.t) * 1000).toISOString().slice(0, 10)).toBe("2026-09-14");
    // Unfiltered statistics (rollups) still have every day; filtered ones only the kept days.
    expect(await rows(tally, site.id, { name: "pageviews", ...wholeRange })).toEqual(before);
    expect(await funnelVisitors()).toEqual([7 * 4, 0]);
    expect(await journeyStart()).toBe(7);
    const filtered = await rows(tally, site.id, {
      name: "pageviews",
      ...wholeRange,
      filter: "page:contains:/d",
      sort_by: "value",
      sort: "asc",
    });
    expect(filtered.map((row) => row.value)).toEqual([
      "2026-09-14",
      "2026-09-15",
      "2026-09-16",
      "2026-09-17",
      "2026-09-18",
      "2026-09-19",
      "2026-09-20",
    ]);
  });

  // Partitioned tables are a PostgreSQL layout: the case exists only on PostgreSQL.
  if (dialect === "postgres")
    it("retention on hits and properties partitioned by month (docs/postgresql.md) deletes only the old rows of the old partition", async () => {
      const { stored, tally, accountId } = await fresh();
      const month = (year: number, index: number) => Date.UTC(year, index, 1) / 1000; // local seconds of a UTC website
      for (const table of ["hits", "event_props"]) {
        await stored.sql(`alter table ${table} rename to ${table}_plain`);
        await stored.sql(`create table ${table} (like ${table}_plain including all) partition by range (time)`);
        await stored.sql(`create table ${table}_2026_08 partition of ${table} for values from (${month(2026, 7)}) to (${month(2026, 8)})`);
        await stored.sql(`create table ${table}_2026_09 partition of ${table} for values from (${month(2026, 8)}) to (${month(2026, 9)})`);
        await stored.sql(`drop table ${table}_plain`);
      }
      await tally.websites.create(accountId, { domain: "parts.example", timezone: "UTC", retention_days: 7 });
      for (const [day, count] of [
        ["2026-08-10", 5],
        ["2026-09-15", 5],
      ] as const) {
        for (let i = 0; i < count; i++) {
          await tally.collect({
            url: `https://parts.example/${day}`,
            ip: `10.4.${i}.1`,
            userAgent: CHROME,
            timestamp: at(`${day}T12:00:00Z`) + i,
            event: "E",
            props: { k: "v" },
          });
        }
      }
      await tally.flush();
      // Each partition's first rows share their ctids: a delete by ctid alone would take September's too.
      expect(await tally.applyRetention(at("2026-09-20T12:00:00Z"))).toBe(5 * 3);
      for (const table of ["hits", "event_props"]) {
        const left = await stored.sql<{ time: number | string }>(`select time from ${table} order by time`);
        expect(
          left.map((row) => new Date(Number(row.time) * 1000).toISOString().slice(0, 10)),
          table,
        ).toEqual(Array(5).fill("2026-09-15"));
      }
    });
});
