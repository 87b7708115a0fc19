import { describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { allStatistics, crlf, importFixture } from "./support.js";

/**
 * A Plausible CSV export as its exporter writes it (lib/plausible/exports.ex, ClickHouse's
 * CSVWithNames: quoted strings and header, bare numbers, `\N` for NULL), one file saved
 * again by a spreadsheet (BOM, CRLF, no quotes), and the older column layouts its
 * importer still takes (columns are read by name).
 */
const FILES: Record<string, string> = {
  "imported_visitors_20240101_20240102.csv": `\uFEFF${crlf(["date,visitors,pageviews,bounces,visits,visit_duration", "2024-01-01,10,30,4,12,1200", "2024-01-02,5,8,5,6,60"])}`,
  "imported_pages_20240101_20240102.csv": [
    `"date","hostname","page","visits","visitors","pageviews","total_scroll_depth","total_scroll_depth_visits"`,
    `"2024-01-01","site.example","/",9,8,20,\\N,0`,
    `"2024-01-01","www.blog.site.example","/pricing",5,5,10,0,0`,
    `"2024-01-02","site.example","/",6,5,8,0,0`,
  ].join("\n"),
  "imported_entry_pages_20240101_20240102.csv": [
    `"date","entry_page","visitors","entrances","visit_duration","bounces","pageviews"`,
    `"2024-01-01","/",8,9,900,3,20`,
    `"2024-01-01","/pricing",3,3,300,1,10`,
    `"2024-01-02","/",5,6,60,5,8`,
  ].join("\n"),
  // The older layout: no visit_duration, bounces or pageviews.
  "imported_exit_pages_20240101_20240102.csv": [
    `"date","visitors","exits","exit_page"`,
    `"2024-01-01",7,8,"/pricing"`,
    `"2024-01-01",4,4,"/"`,
    `"2024-01-02",5,6,"/"`,
  ].join("\n"),
  "imported_sources_20240101_20240102.csv": [
    `"date","source","referrer","utm_source","utm_medium","utm_campaign","utm_content","utm_term","pageviews","visitors","visits","visit_duration","bounces","channel"`,
    `"2024-01-01","","","","","","","",10,5,6,100,2,"Direct"`,
    `"2024-01-01","Hacker News","news.ycombinator.com/item?id=1","","","","","",15,4,4,900,1,"Organic Social"`,
    `"2024-01-01","Newsletter","","newsletter","email","winter","","",5,1,2,200,1,"Email"`,
    `"2024-01-02","Google","www.google.com","","","","","",8,5,6,60,5,"Organic Search"`,
  ].join("\n"),
  "imported_custom_events_20240101_20240102.csv": [
    `"date","name","link_url","path","visitors","events"`,
    `"2024-01-01","Signup","","",2,3`,
    `"2024-01-01","Outbound Link: Click","https://github.com/x","",1,2`,
    `"2024-01-02","Outbound Link: Click","https://docs.example/","",1,1`,
  ].join("\n"),
  "imported_locations_20240101_20240102.csv": [
    `"date","country","region","city","visitors","visits","visit_duration","bounces","pageviews"`,
    `"2024-01-01","US","US-CA",5391959,4,5,500,1,10`,
    `"2024-01-01","US","US-TX",0,2,2,100,1,4`,
    `"2024-01-01","DE","",0,4,5,600,2,16`,
    `"2024-01-02","FR","FR-IDF",2988507,5,6,60,5,8`,
  ].join("\n"),
  "imported_devices_20240101_20240102.csv": [
    `"date","device","visitors","visits","visit_duration","bounces","pageviews"`,
    `"2024-01-01","Desktop",6,7,1000,2,20`,
    `"2024-01-01","Mobile",4,5,200,2,10`,
    `"2024-01-02","Mobile",5,6,60,5,8`,
  ].join("\n"),
  "imported_browsers_20240101_20240102.csv": [
    `"date","browser","browser_version","visitors","visits","visit_duration","bounces","pageviews"`,
    `"2024-01-01","Chrome","120.0",3,3,300,1,9`,
    `"2024-01-01","Chrome","121.0",3,4,700,1,11`,
    `"2024-01-01","Safari","17.2",4,5,200,2,10`,
    `"2024-01-02","(not set)","(not set)",5,6,60,5,8`,
  ].join("\n"),
  "imported_operating_systems_20240101_20240102.csv": [
    `"date","operating_system","operating_system_version","visitors","visits","visit_duration","bounces","pageviews"`,
    `"2024-01-01","Mac","14",6,7,1000,2,20`,
    `"2024-01-01","GNU/Linux","",4,5,200,2,10`,
    `"2024-01-02","iOS","17",5,6,60,5,8`,
  ].join("\n"),
};

const EXPECTED: Record<string, Record<string, number>> = {
  visitors: { "2024-01-01": 10, "2024-01-02": 5 },
  pageviews: { "2024-01-01": 30, "2024-01-02": 8 },
  visits: { "2024-01-01": 12, "2024-01-02": 6 },
  bounce_rate: { "2024-01-01": 33.3, "2024-01-02": 83.3 }, // 4/12, 5/6
  visit_duration: { "2024-01-01": 100, "2024-01-02": 10 }, // 1200/12, 60/6
  views_per_visit: { "2024-01-01": 2.5, "2024-01-02": 1.33 }, // 30/12, 8/6
  pageviews_hours: {},
  visitors_hours: {},
  page: { "/": 28, "/pricing": 10 },
  // imported_pages' hostname column (`www.` stripped), summed over its pages.
  hostname: { "site.example": 28, "blog.site.example": 10 },
  landing_page: { "/": 15, "/pricing": 3 },
  exit_page: { "/pricing": 8, "/": 10 },
  referrer: { "news.ycombinator.com": 4, "google.com": 6 },
  // From the `source` column, and the `channel` column a layout may have.
  source: { "Hacker News": 4, Newsletter: 2, Google: 6 },
  channel: { Direct: 6, "Organic Social": 4, Email: 2, "Organic Search": 6 },
  campaign: { winter: 2 },
  utm_source: { newsletter: 2 },
  utm_medium: { email: 2 },
  utm_content: {},
  utm_term: {},
  browser: { Chrome: 6, Safari: 4 },
  os: { "Mac OS": 6, Linux: 4, iOS: 5 },
  // Plausible's version columns: the browser's major, the OS's major.minor; none for "(not set)" or "".
  browser_version: { "Chrome 120": 3, "Chrome 121": 3, "Safari 17": 4 },
  os_version: { "Mac OS 14": 6, "iOS 17": 5 },
  device: { desktop: 6, mobile: 9 },
  resolution: {},
  language: {},
  country: { "US:United States": 6, "DE:Germany": 4, "FR:France": 5 },
  continent: { "NA:North America": 6, "EU:Europe": 9 },
  city: {},
  // imported_locations' region column.
  region: { "US-CA:California": 4, "US-TX:Texas": 2, "FR-IDF:Île-de-France": 5 },
  event: { Signup: 3, "Outbound Link: Click": 3 },
  goals: { Signup: 2, "Outbound Link: Click": 2 },
  // An export carries no engagement signals: no scroll depth, time on page or vitals.
  scroll_depth: {},
  time_on_page: {},
  vitals: {},
  "event_property:Outbound Link: Click:url": { "https://github.com/x": 2, "https://docs.example/": 1 },
};

describe.each(DIALECTS)("Plausible CSV export on %s", (dialect) => {
  const fixture = importFixture(dialect);

  it("adds the daily aggregates to the rollups: every statistic as the files say", async () => {
    const site = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "site.example" });
    const summary = await fixture.stored.tally.import(
      fixture.files.zip("site_example_20240103.zip", { ...FILES, "README.txt": "not a table" }),
      { websiteId: site.id },
    );
    expect(summary).toMatchObject({
      format: "plausible",
      rowsRead: 32,
      imported: 32,
      skipped: {},
      ignoredFiles: ["README.txt"],
      firstDay: "2024-01-01",
      lastDay: "2024-01-02",
    });
    const { stats, totals } = await allStatistics(fixture.stored.tally, fixture.accountId, site.id, "2024-01-01", "2024-01-02");
    expect(stats).toEqual(EXPECTED);
    expect(totals).toEqual({ visitors: 15, visits: 18, pageviews: 38, views_per_visit: 2.11, bounce_rate: 50, visit_duration: 70 });
    // Values are in the dictionary: searching finds them.
    const searched = await fixture.stored.tally.stats.query(fixture.accountId, site.id, {
      name: "page",
      from: "2024-01-01",
      to: "2024-01-02",
      search: "PRIC",
    });
    expect(searched.data).toEqual([{ value: "/pricing", count: 10 }]);
    // Aggregates have no visits: filtered statistics do not see them.
    expect(
      (
        await fixture.stored.tally.stats.totals(fixture.accountId, site.id, {
          from: "2024-01-01",
          to: "2024-01-02",
          filter: "page:contains:/",
        })
      ).data.visits,
    ).toBe(0);
  });

  it("cleans page values of tracking parameters, as for live hits", async () => {
    const site = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "tracked.site.example" });
    const pages = [
      `"date","page","pageviews"`,
      `"2024-01-01","/sale",7`,
      `"2024-01-01","/sale?fbclid=IwAR1",2`,
      `"2024-01-01","/sale?utm_source=news&q=red",3`,
      `"2024-01-01","/sale?q=red",1`,
    ].join("\n");
    const entries = [`"date","entry_page","entrances"`, `"2024-01-01","/sale?gclid=1",2`, `"2024-01-01","/sale",1`].join("\n");
    await fixture.stored.tally.import(
      fixture.files.zip("tracked.zip", {
        "imported_pages_20240101_20240101.csv": pages,
        "imported_entry_pages_20240101_20240101.csv": entries,
      }),
      { websiteId: site.id },
    );
    const rows = async (name: "page" | "landing_page") =>
      (await fixture.stored.tally.stats.query(fixture.accountId, site.id, { name, from: "2024-01-01", to: "2024-01-01" })).data;
    expect(await rows("page")).toEqual([
      { value: "/sale", count: 9 },
      { value: "/sale?q=red", count: 4 },
    ]);
    expect(await rows("landing_page")).toEqual([{ value: "/sale", count: 3 }]);
  });

  it("a bad number names file, line and column; nothing of any file is imported", async () => {
    const site = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "bad.site.example" });
    const broken = {
      ...FILES,
      "imported_devices_20240101_20240102.csv": FILES["imported_devices_20240101_20240102.csv"]!.replace(
        '"Mobile",5,6,60,5,8',
        '"Mobile",five,6,60,5,8',
      ),
    };
    await expect(fixture.stored.tally.import(fixture.files.zip("broken.zip", broken), { websiteId: site.id })).rejects.toThrow(
      'imported_devices_20240101_20240102.csv, line 4, column 3 (visitors): expected a whole number, got "five"',
    );
    const { stats } = await allStatistics(fixture.stored.tally, fixture.accountId, site.id, "2024-01-01", "2024-01-02");
    expect(Object.values(stats).every((rows) => Object.keys(rows).length === 0)).toBe(true);
  });
});
