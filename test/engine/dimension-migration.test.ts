// A database from before the source, channel, version, region and hostname dimensions
// (migrations 0016, 0017, 0022 and 0026): opening it
// adds their `visits` columns and drops the day blocks that lack them; filtered statistics
// of the old days answer as before, and new hits carry the new values.
import { createTally, type Tally } from "@tally-analytics/core";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const NEW_COLUMNS = ["source", "channel", "browser_version", "os_version", "region", "hostname"];
const DAYS = ["2026-03-01", "2026-03-02", "2026-03-03"];

describe("opening a database from before the source, channel and version dimensions", () => {
  const fixture = createTempTally({ dayBlocksIntervalMs: 0 });
  afterAll(() => fixture.dispose());

  it("adds the columns, rebuilds the day blocks, and keeps old days' filtered statistics", async () => {
    const { accountId } = await fixture.tally.accounts.create({ name: "Old" });
    const { id } = await fixture.tally.websites.create(accountId, { domain: "old.example", timezone: "UTC" });
    for (const [i, day] of DAYS.entries()) {
      for (const referrer of ["https://www.google.com/", "https://news.ycombinator.com/", ""]) {
        await fixture.tally.collect({
          url: `https://old.example/p${i}`,
          referrer,
          ip: `203.0.113.${i * 3 + referrer.length}`,
          userAgent: CHROME,
          timestamp: Date.parse(`${day}T10:00:00Z`),
        });
      }
    }
    await fixture.tally.flush();
    const ask = (tally: Tally, name: string, filter?: string) =>
      tally.stats.query(accountId, id, { name, from: DAYS[0]!, to: DAYS[2]!, ...(filter ? { filter } : {}) });
    const before = await ask(fixture.tally, "page", "referrer:is:google.com");
    expect(before.data).toHaveLength(3);
    expect(await fixture.tally.buildDayBlocks()).toBeGreaterThan(0);
    await fixture.tally.close();

    // As the version before wrote it: no columns, counts, migrations or day blocks of the new dimensions.
    const db = new Database(fixture.file);
    for (const column of NEW_COLUMNS) db.exec(`alter table visits drop column ${column}`);
    db.exec(`delete from rollups where name in (${NEW_COLUMNS.map((name) => `'${name}'`).join(", ")})`);
    // The migrations between them are undone too (a database of that version had none of them);
    // the later ones stay recorded, as in a database that took them in another order.
    db.exec("drop table funnels");
    db.exec("drop table rollup_watermarks");
    db.exec("drop table page_engagement");
    db.exec("alter table visitors drop column visit_hostname");
    db.exec("alter table websites drop column include_subdomains");
    db.exec("delete from tally_migrations where name >= '0016' and name < '0027'");
    db.exec(`delete from day_blocks where name in (${NEW_COLUMNS.map((column) => `'v.${column}'`).join(", ")})`);
    expect(Number((db.prepare("select count(*) as n from day_blocks").get() as { n: number }).n)).toBeGreaterThan(0);
    db.close();

    const reopened = createTally({ database: `file:${fixture.file}`, dayBlocksIntervalMs: 0 });
    try {
      await reopened.ready();
      const check = new Database(fixture.file, { readonly: true });
      const columns = (check.prepare("select name from pragma_table_info('visits')").all() as { name: string }[]).map((row) => row.name);
      expect(columns).toEqual(expect.arrayContaining(NEW_COLUMNS));
      expect(Number((check.prepare("select count(*) as n from day_blocks").get() as { n: number }).n)).toBe(0);
      check.close();

      expect(await ask(reopened, "page", "referrer:is:google.com")).toEqual(before);
      // A filter on a new dimension over the old days: their visits have no channel.
      expect((await ask(reopened, "page", "channel:is_not:Direct")).data).toHaveLength(3);
      expect(await reopened.buildDayBlocks()).toBeGreaterThan(0);
      expect((await ask(reopened, "page", "channel:is_not:Direct")).data).toHaveLength(3);
      expect(await ask(reopened, "page", "referrer:is:google.com")).toEqual(before);
      // Old visits have no source; a new one has.
      expect((await ask(reopened, "source")).data).toEqual([]);
      await reopened.collect({
        url: "https://old.example/new",
        referrer: "https://www.google.de/",
        ip: "198.51.100.1",
        userAgent: CHROME,
        timestamp: Date.parse(`${DAYS[2]}T12:00:00Z`),
      });
      await reopened.flush();
      expect((await ask(reopened, "source")).data).toEqual([{ value: "Google", count: 1 }]);
      // Old pageviews have no hostname; a new one has the page's host.
      expect((await ask(reopened, "hostname")).data).toEqual([{ value: "old.example", count: 1 }]);
      expect((await ask(reopened, "browser_version", "channel:is:Organic Search")).data).toEqual([{ value: "Chrome 131", count: 1 }]);
    } finally {
      await reopened.close();
    }
  });
});
