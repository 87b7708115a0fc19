import { describe, expect, it } from "vitest";
import { ImportFileError } from "@tally-analytics/core";
import { DIALECTS } from "../support/databases.js";
import { allStatistics, crlf, importFixture } from "./support.js";

const FIREFOX = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0";
const HEADER = "2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date";

/**
 * A GoatCounter v2 export as GoatCounter writes it (exportcsv.go, tpl/help/export.md),
 * with the quirks seen in real files: a UTF-8 BOM, CRLF, quoted fields and numbers,
 * Event/FirstVisit as 1/0 and as true/false, a blank UserAgent (newer exports) beside a
 * full one, a width-only screen size, `US-TX` locations, generated (`g`) referrers (named sources).
 */
const ROWS = [
  `/,Home,false,,Chrome 120,Windows 10,a1,0,news.ycombinator.com/item?id=1,h,"1920,1080,1",US-TX,true,2024-03-01T10:00:00Z`,
  `/pricing,Pricing,0,,Chrome 120,Windows 10,a1,"0",,,"1920,1080,1",US-TX,0,2024-03-01T10:05:00Z`,
  `signup-click,Sign up,1,,Chrome 120,Windows 10,a1,0,,,"1920,1080,1",US-TX,false,2024-03-01T10:06:00Z`,
  `/,Home,False,,Chrome 120,Windows 10,a1,0,,,"1920,1080,1",US-TX,1,2024-03-01T11:00:00Z`,
  `/,Home,false,"curl/8.0",,,c3,7,,,,,true,2024-03-01T12:00:00Z`,
  `/,Home,false,"${FIREFOX}",Firefox 121,macOS 14.1,b2,0,www.google.com,h,"1280,0,1",DE,true,2024-03-01T23:50:00Z`,
  `/blog,"Blog, ""news""",false,"${FIREFOX}",Firefox 121,macOS 14.1,b2,0,,,"1280,0,1",DE,false,2024-03-02T00:10:00Z`,
  `/,Home,TRUE,,Safari 17.2,iOS 17.2,d4,0,Email,g,"390,844,3",,true,2024-03-02T09:00:00Z`.replace("TRUE", "false"),
];

const EXPECTED: Record<string, Record<string, number>> = {
  visitors: { "2024-03-01": 2, "2024-03-02": 2 },
  pageviews: { "2024-03-01": 4, "2024-03-02": 2 },
  visits: { "2024-03-01": 3, "2024-03-02": 1 },
  // a1's first visit: 2 pageviews and an event; its second: one pageview (bounced); b2: 2 pageviews across midnight; d4: 1.
  bounce_rate: { "2024-03-01": 33.3, "2024-03-02": 100 },
  // (360 + 0 + 1200) / 3 = 520; d4's single pageview lasts 0 s.
  visit_duration: { "2024-03-01": 520, "2024-03-02": 0 },
  views_per_visit: { "2024-03-01": 1.67, "2024-03-02": 1 },
  pageviews_hours: { "10": 2, "11": 1, "23": 1, "00": 1, "09": 1 },
  visitors_hours: { "10": 1, "23": 1, "00": 1, "09": 1 },
  page: { "/": 4, "/pricing": 1, "/blog": 1 },
  landing_page: { "/": 4 },
  exit_page: { "/pricing": 1, "/": 2, "/blog": 1 },
  referrer: { "news.ycombinator.com": 1, "google.com": 1 },
  // d4's generated (`g`) referrer `Email` is its source, and its channel by Plausible's rules.
  source: { "Hacker News": 1, Google: 1, Email: 1 },
  channel: { "Organic Social": 1, "Organic Search": 1, Direct: 1, Email: 1 },
  campaign: {},
  utm_source: {},
  utm_medium: {},
  utm_content: {},
  utm_term: {},
  browser: { Chrome: 1, Firefox: 2, Safari: 1 },
  os: { Windows: 1, "Mac OS": 2, iOS: 1 },
  device: { desktop: 3, mobile: 1 },
  // From the user agent where a row has one (b2), else GoatCounter's Browser and System columns.
  browser_version: { "Chrome 120": 1, "Firefox 121": 2, "Safari 17": 1 },
  os_version: { "Windows 10": 1, "Mac OS 10.15": 2, "iOS 17.2": 1 },
  resolution: { "1920x1080": 1, "390x844": 1 },
  language: {},
  country: { "US:United States": 1, "DE:Germany": 2 },
  continent: { "NA:North America": 1, "EU:Europe": 2 },
  city: {},
  // GoatCounter's `US-TX`: the region.
  region: { "US-TX:Texas": 1 },
  event: { "signup-click": 1 },
  goals: { "signup-click": 1 },
  // An export carries no engagement signals: no scroll depth, time on page or vitals.
  scroll_depth: {},
  time_on_page: {},
  vitals: {},
};
/** With the pageviews' host: the website's domain (GoatCounter's export names no host). */
const expectedOn = (domain: string) => ({ ...EXPECTED, hostname: { [domain]: 6 } });

describe.each(DIALECTS)("GoatCounter CSV export v2 on %s", (dialect) => {
  const fixture = importFixture(dialect);

  it("imports every row at its own time, and every statistic is what the rows say", async () => {
    const website = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "goat.example" });
    const file = fixture.files.gzip("goatcounter-export-goat.csv.gz", `\uFEFF${crlf([HEADER, ...ROWS])}`);
    const summary = await fixture.stored.tally.import(file, { websiteId: website.id });
    expect(summary).toMatchObject({
      format: "goatcounter",
      rowsRead: 8,
      imported: 7,
      skipped: { "bot (GoatCounter's Bot column)": 1 },
      firstDay: "2024-03-01",
      lastDay: "2024-03-02",
      sorted: false,
    });
    const { stats, totals } = await allStatistics(fixture.stored.tally, fixture.accountId, website.id, "2024-03-01", "2024-03-02");
    expect(stats).toEqual(expectedOn("goat.example"));
    expect(totals).toEqual({ visitors: 4, visits: 4, pageviews: 6, views_per_visit: 1.5, bounce_rate: 50, visit_duration: 390 });
    // Filters read the visits and hits the replay fixture.stored.
    const filtered = await allStatistics(
      fixture.stored.tally,
      fixture.accountId,
      website.id,
      "2024-03-01",
      "2024-03-02",
      "referrer:is:google.com",
    );
    expect(filtered.totals).toMatchObject({ visits: 1, pageviews: 2 });
    // Nothing of the replay's visitor rows is left behind.
    expect(await fixture.stored.sql("select hash from visitors where hash like '~%'")).toEqual([]);
  });

  const emptyStats = async (websiteId: number) => {
    const { stats } = await allStatistics(fixture.stored.tally, fixture.accountId, websiteId, "2024-03-01", "2024-03-02");
    return Object.values(stats).every((rows) => Object.keys(rows).length === 0);
  };

  it("a malformed file names the file, line and column, and imports nothing", async () => {
    const website = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "bad.goat.example" });
    const badEvent = fixture.files.gzip("bad-event.csv.gz", crlf([HEADER, ...ROWS.slice(0, 3), ROWS[3]!.replace(",False,", ",maybe,")]));
    await expect(fixture.stored.tally.import(badEvent, { websiteId: website.id })).rejects.toThrow(
      new ImportFileError("bad-event.csv", 5, "3 (Event)", 'expected true/false or 1/0, got "maybe"'),
    );
    const badQuote = fixture.files.gzip("bad-quote.csv.gz", crlf([HEADER, ROWS[0]!, ROWS[1]!.replace('"1920,1080,1"', '"1920,1080,1"x')]));
    await expect(fixture.stored.tally.import(badQuote, { websiteId: website.id })).rejects.toThrow(
      /^bad-quote\.csv, line 3, column 11: Invalid Closing Quote/,
    );
    const badDate = fixture.files.gzip("bad-date.csv.gz", crlf([HEADER, ROWS[0]!.replace("2024-03-01T10:00:00Z", "2024-02-30T10:00:00Z")]));
    await expect(fixture.stored.tally.import(badDate, { websiteId: website.id })).rejects.toThrow(
      'bad-date.csv, line 2, column 14 (Date): expected an RFC 3339 time, got "2024-02-30T10:00:00Z"',
    );
    expect(await emptyStats(website.id)).toBe(true);
    expect(await fixture.stored.sql(`select id from imports where website_id = ${website.id}`)).toEqual([]);
  });

  it("a version 1 GoatCounter export, or a file of no known format, is refused with what was expected", async () => {
    const website = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "v1.goat.example" });
    const v1 = fixture.files.gzip(
      "v1.csv.gz",
      "1Path,Title,Event,Bot,Session,FirstVisit,Referrer,Referrer scheme,Browser,Screen size,Location,Date\n",
    );
    await expect(fixture.stored.tally.import(v1, { websiteId: website.id })).rejects.toThrow(
      /a GoatCounter CSV export of version 1; only version 2 can be read/,
    );
    const other = fixture.files.write("other.csv", "a,b,c\n1,2,3\n");
    await expect(fixture.stored.tally.import(other, { websiteId: website.id })).rejects.toThrow(
      /other\.csv: cannot tell its format; expected a Plausible export/,
    );
    await expect(fixture.stored.tally.import(`${fixture.files.directory}/missing.csv.gz`, { websiteId: website.id })).rejects.toThrow(
      /no such file or directory/,
    );
  });

  it("--dry-run reads and counts everything and writes nothing", async () => {
    const website = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "dry.goat.example" });
    const file = fixture.files.gzip("dry.csv.gz", crlf([HEADER, ...ROWS]));
    const summary = await fixture.stored.tally.import(file, { websiteId: website.id, dryRun: true });
    expect(summary).toMatchObject({
      dryRun: true,
      importId: null,
      rowsRead: 8,
      imported: 7,
      skipped: { "bot (GoatCounter's Bot column)": 1 },
    });
    expect(await emptyStats(website.id)).toBe(true);
    expect(await fixture.stored.sql(`select id from imports where website_id = ${website.id}`)).toEqual([]);
  });

  it("the same file twice is refused; a longer export later adds only the days not imported yet", async () => {
    const website = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "twice.goat.example" });
    const firstDay = fixture.files.gzip("first-day.csv.gz", crlf([HEADER, ...ROWS.slice(0, 6)]));
    expect(await fixture.stored.tally.import(firstDay, { websiteId: website.id })).toMatchObject({ imported: 5, lastDay: "2024-03-01" });
    await expect(fixture.stored.tally.import(firstDay, { websiteId: website.id })).rejects.toThrow(
      /was imported into website \d+ already \(import #\d+/,
    );
    const everything = fixture.files.gzip("everything.csv.gz", crlf([HEADER, ...ROWS]));
    const second = await fixture.stored.tally.import(everything, { websiteId: website.id });
    expect(second.imported).toBe(2);
    expect(Object.entries(second.skipped)).toEqual([
      [expect.stringMatching(/^day already imported \(import #\d+\)$/), 5],
      ["bot (GoatCounter's Bot column)", 1],
    ]);
    // b2's hit after midnight starts a visit of its own here (its visit of the day before is not replayed again).
    const { stats } = await allStatistics(fixture.stored.tally, fixture.accountId, website.id, "2024-03-01", "2024-03-02");
    expect(stats.pageviews).toEqual(EXPECTED.pageviews);
    expect(stats.visitors).toEqual(EXPECTED.visitors);
    expect(stats.visits).toEqual({ "2024-03-01": 3, "2024-03-02": 2 });
    const rows = await fixture.stored.sql<{ status: string; first_day: string; last_day: string }>(
      `select status, first_day, last_day from imports where website_id = ${website.id} order by id`,
    );
    expect(rows).toEqual([
      { status: "complete", first_day: "2024-03-01", last_day: "2024-03-01" },
      { status: "complete", first_day: "2024-03-02", last_day: "2024-03-02" },
    ]);
  });

  it("rows out of time order are replayed sorted: the same statistics", async () => {
    const website = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "shuffled.goat.example" });
    const shuffled = [ROWS[6], ROWS[2], ROWS[0], ROWS[7], ROWS[4], ROWS[1], ROWS[5], ROWS[3]] as string[];
    const file = fixture.files.write("shuffled.csv", [HEADER, ...shuffled].join("\n"));
    expect(await fixture.stored.tally.import(file, { websiteId: website.id })).toMatchObject({ imported: 7, sorted: true });
    const { stats } = await allStatistics(fixture.stored.tally, fixture.accountId, website.id, "2024-03-01", "2024-03-02");
    expect(stats).toEqual(expectedOn("shuffled.goat.example"));
  });

  it("a row Tally cannot count (a path over 2,048 characters) is skipped with its reason, in the check and in the import alike", async () => {
    const website = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "long.goat.example" });
    const file = fixture.files.gzip("long.csv.gz", crlf([HEADER, ROWS[0]!, ROWS[1]!.replace("/pricing,", `/${"x".repeat(2100)},`)]));
    const expected = { rowsRead: 2, imported: 1, skipped: { "not a hit Tally can count (page URL)": 1 } };
    expect(await fixture.stored.tally.import(file, { websiteId: website.id, dryRun: true })).toMatchObject(expected);
    expect(await fixture.stored.tally.import(file, { websiteId: website.id })).toMatchObject(expected);
  });

  it("exclude_bots 0 counts GoatCounter's bots too; --from/--to keep only those days", async () => {
    const website = await fixture.stored.tally.websites.create(fixture.accountId, { domain: "bots.goat.example", exclude_bots: 0 });
    const file = fixture.files.gzip("bots.csv.gz", crlf([HEADER, ...ROWS]));
    const summary = await fixture.stored.tally.import(file, { websiteId: website.id, from: "2024-03-01", to: "2024-03-01" });
    expect(summary).toMatchObject({ imported: 6, skipped: { "outside --from/--to": 2 } });
    const { stats } = await allStatistics(fixture.stored.tally, fixture.accountId, website.id, "2024-03-01", "2024-03-02");
    expect(stats.visitors).toEqual({ "2024-03-01": 3 });
    expect(stats.browser).toEqual({ Chrome: 1, Firefox: 1 }); // curl: no browser
  });
});
