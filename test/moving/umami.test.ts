import { mkdirSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { allStatistics, importFixture } from "./support.js";

/** Umami's tables (prisma/schema.prisma, db/clickhouse/schema.sql), the same visits written in both of its layouts. */
const SESSIONS = {
  s1: {
    browser: "chrome",
    os: "Windows 10",
    device: "laptop",
    screen: "1920x1080",
    language: "en-US",
    country: "US",
    region: "US-CA",
    city: "San Francisco",
  },
  s2: { browser: "ios", os: "iOS", device: "mobile", screen: "390x844", language: "fr-FR", country: "FR", region: "FR-IDF", city: "Paris" },
  s3: { browser: "searchbot", os: "Linux", device: "desktop", screen: "", language: "", country: "", region: "", city: "" },
} as const;

interface Event {
  id: string;
  session: keyof typeof SESSIONS;
  /** UTC */
  at: string;
  path: string;
  query?: string;
  referrer?: [domain: string, path: string];
  type: number;
  name?: string;
  data?: Record<string, string | number>;
}

const EVENTS: Event[] = [
  { id: "e1", session: "s1", at: "2024-03-15 09:00:00", path: "/pricing", query: "utm_campaign=spring&utm_source=newsletter", type: 1 },
  {
    id: "e2",
    session: "s1",
    at: "2024-03-15 09:02:00",
    path: "/pricing",
    type: 2,
    name: "Signup",
    data: { plan: "pro", seats: 3, revenue: 29.9, currency: "EUR" },
  },
  { id: "e3", session: "s1", at: "2024-03-15 09:03:00", path: "/welcome", type: 1 },
  { id: "e6", session: "s3", at: "2024-03-15 09:30:00", path: "/", type: 1 },
  { id: "e7", session: "s1", at: "2024-03-15 10:00:00", path: "/pricing", type: 5 },
  { id: "e4", session: "s2", at: "2024-03-15 22:45:00", path: "/", referrer: ["t.co", "/abc"], type: 1 },
  { id: "e5", session: "s2", at: "2024-03-15 23:05:00", path: "/about", type: 1 },
  // Umami's revenue is the event data pair `revenue`, `currency` (as sent: lower case here).
  {
    id: "e8",
    session: "s2",
    at: "2024-03-16 08:00:00",
    path: "/",
    type: 2,
    name: "Signup",
    data: { plan: "free", revenue: 5, currency: "usd" },
  },
];

const q = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
const csv = (header: readonly string[], rows: readonly (readonly string[])[]) =>
  [header, ...rows].map((row) => row.map(q).join(",")).join("\n") + "\n";

const EVENT_HEADER = [
  "event_id",
  "website_id",
  "session_id",
  "visit_id",
  "created_at",
  "url_path",
  "url_query",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_term",
  "referrer_path",
  "referrer_query",
  "referrer_domain",
  "page_title",
  "gclid",
  "fbclid",
  "msclkid",
  "ttclid",
  "li_fat_id",
  "twclid",
  "event_type",
  "event_name",
  "tag",
  "hostname",
];
const SESSION_HEADER = [
  "session_id",
  "website_id",
  "browser",
  "os",
  "device",
  "screen",
  "language",
  "country",
  // Umami 2's name of the region (ClickHouse's rows below call it `region`).
  "subdivision1",
  "city",
  "distinct_id",
  "created_at",
];
const DATA_HEADER = [
  "event_data_id",
  "website_id",
  "website_event_id",
  "data_key",
  "string_value",
  "number_value",
  "date_value",
  "data_type",
  "created_at",
];
const W = "5f3a0a4e-0000-4000-8000-000000000001";

/** As `\copy … to csv header` writes PostgreSQL's tables: timestamptz with `+00`, NULL as an empty field, numbers as decimals. */
function postgresLayout() {
  const events = EVENTS.map((e) => [
    e.id,
    W,
    e.session,
    `v-${e.session}`,
    `${e.at}.123+00`,
    e.path,
    e.query ?? "",
    "",
    "",
    "",
    "",
    "",
    e.referrer?.[1] ?? "",
    "",
    e.referrer?.[0] ?? "",
    "Title",
    "",
    "",
    "",
    "",
    "",
    "",
    String(e.type),
    e.name ?? "",
    "",
    "example.com",
  ]);
  const sessions = Object.entries(SESSIONS).map(([id, s]) => [
    id,
    W,
    s.browser,
    s.os,
    s.device,
    s.screen,
    s.language,
    s.country,
    s.region,
    s.city,
    "",
    "2024-03-15 09:00:00+00",
  ]);
  const data = EVENTS.flatMap((e) =>
    Object.entries(e.data ?? {}).map(([key, value], i) => [
      `d-${e.id}-${i}`,
      W,
      e.id,
      key,
      typeof value === "string" ? value : "",
      typeof value === "number" ? value.toFixed(4) : "",
      "",
      typeof value === "number" ? "2" : "1",
      e.at,
    ]),
  );
  return {
    "website_event.csv": csv(EVENT_HEADER, events),
    "session.csv": csv(SESSION_HEADER, sessions),
    "event_data.csv": csv(DATA_HEADER, data),
  };
}

const CH_HEADER = [
  "website_id",
  "session_id",
  "visit_id",
  "event_id",
  "hostname",
  "browser",
  "os",
  "device",
  "screen",
  "language",
  "country",
  "region",
  "city",
  "url_path",
  "url_query",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_term",
  "referrer_path",
  "referrer_query",
  "referrer_domain",
  "page_title",
  "gclid",
  "fbclid",
  "msclkid",
  "ttclid",
  "li_fat_id",
  "twclid",
  "event_type",
  "event_name",
  "tag",
  "distinct_id",
  "created_at",
  "job_id",
];

/** ClickHouse's (Umami Cloud's) website_event: the session's columns on every row, rows by hour and session rather than by time. */
function clickhouseLayout() {
  const ordered = [...EVENTS].sort((a, b) => (a.at.slice(0, 13) + a.session + a.at < b.at.slice(0, 13) + b.session + b.at ? -1 : 1));
  const events = ordered.map((e) => {
    const s = SESSIONS[e.session];
    return [
      W,
      e.session,
      `v-${e.session}`,
      e.id,
      "example.com",
      s.browser,
      s.os,
      s.device,
      s.screen,
      s.language,
      s.country,
      s.region,
      s.city,
      e.path,
      e.query ?? "",
      "",
      "",
      "",
      "",
      "",
      e.referrer?.[1] ?? "",
      "",
      e.referrer?.[0] ?? "",
      "Title",
      "",
      "",
      "",
      "",
      "",
      "",
      String(e.type),
      e.name ?? "",
      "",
      "",
      e.at,
      "\\N",
    ];
  });
  const data = EVENTS.flatMap((e) =>
    Object.entries(e.data ?? {}).map(([key, value]) => [
      W,
      e.session,
      e.id,
      e.path,
      e.name ?? "",
      key,
      typeof value === "string" ? value : "\\N",
      typeof value === "number" ? value.toFixed(4) : "\\N",
      "\\N",
      typeof value === "number" ? "2" : "1",
      e.at,
      "\\N",
    ]),
  );
  const dataHeader = [
    "website_id",
    "session_id",
    "event_id",
    "url_path",
    "event_name",
    "data_key",
    "string_value",
    "number_value",
    "date_value",
    "data_type",
    "created_at",
    "job_id",
  ];
  return { "website_event.csv": csv(CH_HEADER, events), "event_data.csv": csv(dataHeader, data) };
}

/** By hand, in Europe/Paris (UTC+1): s1 visits at 10:00–10:03 on the 15th; s2 at 23:45 and past midnight, then at 09:00 on the 16th with an event only. */
const EXPECTED: Record<string, Record<string, number>> = {
  visitors: { "2024-03-15": 2, "2024-03-16": 1 },
  pageviews: { "2024-03-15": 3, "2024-03-16": 1 },
  visits: { "2024-03-15": 2, "2024-03-16": 1 },
  bounce_rate: { "2024-03-15": 0, "2024-03-16": 0 },
  visit_duration: { "2024-03-15": 690, "2024-03-16": 0 },
  views_per_visit: { "2024-03-15": 2, "2024-03-16": 0 },
  pageviews_hours: { "10": 2, "23": 1, "00": 1 },
  visitors_hours: { "10": 1, "23": 1, "00": 1 },
  page: { "/pricing": 1, "/welcome": 1, "/": 1, "/about": 1 },
  landing_page: { "/": 2, "/pricing": 1 },
  exit_page: { "/welcome": 1, "/about": 1 },
  referrer: { "t.co": 1 },
  campaign: { spring: 1 },
  utm_source: { newsletter: 1 },
  utm_medium: {},
  utm_content: {},
  utm_term: {},
  // s1's visit came by utm_source=newsletter, s2's first from t.co, its visit on the 16th directly.
  source: { newsletter: 1, Twitter: 1 },
  channel: { Email: 1, "Organic Social": 1, Direct: 1 },
  browser: { Chrome: 1, "Mobile Safari": 2 },
  // Umami's sessions carry no versions.
  browser_version: {},
  os: { Windows: 1, iOS: 2 },
  os_version: {},
  device: { desktop: 1, mobile: 2 },
  resolution: { "1920x1080": 1, "390x844": 2 },
  language: { en: 1, fr: 2 },
  country: { "US:United States": 1, "FR:France": 2 },
  continent: { "NA:North America": 1, "EU:Europe": 2 },
  city: { "US:San Francisco": 1, "FR:Paris": 2 },
  // The session's ISO 3166-2 code (`subdivision1`, or `region`), named as GoatCounter's `US-TX` is.
  region: { "US-CA:California": 1, "FR-IDF:Île-de-France": 2 },
  event: { Signup: 2 },
  goals: { Signup: 2 },
  // An export carries no engagement signals: no scroll depth, time on page or vitals.
  scroll_depth: {},
  time_on_page: {},
  vitals: {},
  "event_property:Signup:plan": { pro: 1, free: 1 },
  "event_property:Signup:seats": { "3": 1 },
};

/** With the pageviews' host: the website's domain (the import's pages are on it). */
const expectedOn = (domain: string) => ({ ...EXPECTED, hostname: { [domain]: 4 } });

describe.each(DIALECTS)("Umami data export on %s", (dialect) => {
  const fixture = importFixture(dialect);

  const website = (domain: string) =>
    fixture.stored.tally.websites.create(fixture.accountId, {
      domain,
      timezone: "Europe/Paris",
      exclude_params: "utm_campaign\nutm_source",
    });

  it("PostgreSQL tables in a zip: sessions give the visitor, event_data the properties; every statistic as counted by hand", async () => {
    const site = await website("pg.umami.example");
    const summary = await fixture.stored.tally.import(fixture.files.zip("umami-pg.zip", postgresLayout()), { websiteId: site.id });
    expect(summary).toMatchObject({
      format: "umami",
      rowsRead: 8,
      imported: 6,
      skipped: { "bot (Umami's browser)": 1, "performance measurement (Umami event type 5)": 1 },
      firstDay: "2024-03-15",
      lastDay: "2024-03-16",
    });
    const { stats } = await allStatistics(fixture.stored.tally, fixture.accountId, site.id, "2024-03-15", "2024-03-16");
    expect(stats).toEqual(expectedOn("pg.umami.example"));
    const goals = await fixture.stored.tally.stats.query(fixture.accountId, site.id, {
      name: "goals",
      from: "2024-03-15",
      to: "2024-03-16",
    });
    expect(goals.data[0]!.revenue?.map(({ currency, total_revenue, events }) => ({ currency, total_revenue, events }))).toEqual([
      { currency: "EUR", total_revenue: 29.9, events: 1 },
      { currency: "USD", total_revenue: 5, events: 1 },
    ]);
    // Umami's website id becomes the website's alias: Umami's /api/send finds it by that id.
    expect((await fixture.stored.tally.websites.get(fixture.accountId, site.id)).aliases).toBe(W);
  });

  it("ClickHouse's website_event (sessions inline, rows by hour and session) beside event_data: the same statistics", async () => {
    const site = await website("ch.umami.example");
    const layout = clickhouseLayout();
    fixture.files.write("website_event.csv", layout["website_event.csv"]);
    fixture.files.write("event_data.csv", layout["event_data.csv"]);
    const summary = await fixture.stored.tally.import(`${fixture.files.directory}/website_event.csv`, { websiteId: site.id });
    expect(summary).toMatchObject({ rowsRead: 8, imported: 6 });
    const { stats } = await allStatistics(fixture.stored.tally, fixture.accountId, site.id, "2024-03-15", "2024-03-16");
    expect(stats).toEqual(expectedOn("ch.umami.example"));
    // The same Umami website id is the first website's alias already: an alias names one website.
    expect((await fixture.stored.tally.websites.get(fixture.accountId, site.id)).aliases).toBe("");
  });

  it("the same tables in a directory: the same statistics", async () => {
    const site = await website("dir.umami.example");
    const directory = `${fixture.files.directory}/umami-tables`;
    mkdirSync(directory);
    for (const [name, text] of Object.entries(postgresLayout())) writeFileSync(`${directory}/${name}`, text);
    expect(await fixture.stored.tally.import(directory, { websiteId: site.id })).toMatchObject({ format: "umami", imported: 6 });
    const { stats } = await allStatistics(fixture.stored.tally, fixture.accountId, site.id, "2024-03-15", "2024-03-16");
    expect(stats).toEqual(expectedOn("dir.umami.example"));
  });

  it("an event row of an unknown type names file, line and column, and nothing is imported", async () => {
    const site = await website("bad.umami.example");
    const layout = postgresLayout();
    const broken = layout["website_event.csv"].replace(/,2,Signup,,example\.com\n$/, ",9,Signup,,example.com\n");
    await expect(
      fixture.stored.tally.import(fixture.files.zip("umami-bad.zip", { ...layout, "website_event.csv": broken }), { websiteId: site.id }),
    ).rejects.toThrow('website_event.csv, line 9, column 23 (event_type): expected 1 to 5, got "9"');
    const { stats } = await allStatistics(fixture.stored.tally, fixture.accountId, site.id, "2024-03-15", "2024-03-16");
    expect(stats.pageviews).toEqual({});
  });
});
