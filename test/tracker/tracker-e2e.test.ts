// End to end: the built tracker in real headless Chromium, posting to a real embedded
// Tally (SQLite, node:http, mounted under /analytics), read back through /api/v1/stats.
//
// Every test gets its own Tally, database and server (a new port), so a beacon still in
// flight from one test can never land in the next one's counts.
//
// Headless Chromium says "HeadlessChrome/…" in its user agent and isbot calls that a bot:
// the website is created with exclude_bots 0, or every hit would be dropped (the last
// test shows it). The user agent parser reports "Chrome Headless" as "Chrome".
import { join } from "node:path";
import Database from "better-sqlite3";
import { trackerEtag } from "@tally-analytics/tracker";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { startEmbeddedSite, stopEmbeddedSite, type EmbeddedSite } from "../support/embedded-site.js";

warnIfSkipped("tracker-e2e");

declare global {
  interface Window {
    tally: { track(name: string, props?: Record<string, unknown>): void; q?: unknown[] };
  }
}

const SNIPPET = "<script>window.tally=window.tally||{q:[],track:function(){tally.q.push(arguments)}}</script>";

/** A page with the tracker tag (plus extra attributes, head and body). */
function trackedPage({ attrs = "", head = "", body = "" } = {}): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8">${head}` +
    `<script defer src="/analytics/script.js"${attrs ? ` ${attrs}` : ""}></script>` +
    `</head><body>${body}</body></html>`
  );
}
const plainPage = (body = "") => `<!doctype html><html><head><meta charset="utf-8"></head><body>${body}</body></html>`;

interface Collected {
  status: number;
  dropped: string | undefined;
}

/** One embedded Tally with its website and the node:http server in front of it. */
interface Site extends EmbeddedSite {
  /** Pages by path; any other path gets `fallback`. */
  pages: Map<string, string>;
  fallback: string;
  /** Every POST /analytics/collect the server answered, in order. */
  collected: Collected[];
}

async function startSite(): Promise<Site> {
  // The request listener reads the same object the test changes.
  const state = { pages: new Map<string, string>(), fallback: trackedPage(), collected: [] as Collected[] };
  const embedded = await startEmbeddedSite("tally-e2e-", (handler) => (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/analytics" || path.startsWith("/analytics/")) {
      if (path === "/analytics/collect" && req.method === "POST") {
        res.once("finish", () =>
          state.collected.push({ status: res.statusCode, dropped: res.getHeader("x-tally-dropped") as string | undefined }),
        );
      }
      handler(req, res);
      return;
    }
    if (path === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(state.pages.get(path) ?? state.fallback);
  });
  return Object.assign(state, embedded);
}

const stopSite = stopEmbeddedSite;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The website's time zone is the default, UTC. */
const today = () => new Date().toISOString().slice(0, 10);

let browser: Browser;
let context: BrowserContext;
let site: Site;
let pageErrors: string[] = [];

/** One statistic for today, through the HTTP API, as {value: count}. */
async function stats(name: string): Promise<Record<string, number>> {
  const query = new URLSearchParams({ name, from: today(), to: today(), per_page: "100" });
  const response = await fetch(`${site.origin}/analytics/api/v1/stats/${site.websiteId}?${query}`, {
    headers: { authorization: `Bearer ${site.key}`, accept: "application/json" },
  });
  const body = (await response.json()) as { data: { value: string; count: number }[] };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return Object.fromEntries(body.data.map((row) => [row.value, row.count]));
}

/** Beacons are asynchronous: polls (stats queries flush first) until `expected` shows up, then asserts it exactly. */
async function expectStats(name: string, expected: Record<string, number>, timeout = 5_000): Promise<void> {
  const deadline = Date.now() + timeout;
  let actual = await stats(name);
  while (!equal(actual, expected) && Date.now() < deadline) {
    await sleep(25);
    actual = await stats(name);
  }
  expect(actual, name).toEqual(expected);
}

function equal(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/** For "nothing is counted": beacons to 127.0.0.1 arrive within milliseconds. */
async function expectNothingCollected(): Promise<void> {
  await sleep(300);
  expect(site.collected, "POST /collect requests").toEqual([]);
  await expectStats("pageviews", {}, 0);
  await expectStats("event", {}, 0);
}

async function newPage(init?: () => void): Promise<Page> {
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  return page;
}

describe.skipIf(skip)("tracker → embedded Tally → /api/v1/stats, in Chromium", () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    pageErrors = [];
    site = await startSite();
    context = await browser.newContext({
      viewport: { width: 1280, height: 720 },
      screen: { width: 1280, height: 720 },
      locale: "de-DE",
    });
  });

  afterEach(async () => {
    await context?.close();
    if (site) await stopSite(site);
    expect(pageErrors, "page errors").toEqual([]);
  });

  it("serves /script.js as JavaScript with long caching, an ETag and 304 on revalidation", async () => {
    const url = `${site.origin}/analytics/script.js`;
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toMatch(/max-age=\d+/);
    const etag = response.headers.get("etag");
    // Node's fetch accepts gzip: the script goes out as compressed at build time, its ETag says so.
    expect(etag).toBe(trackerEtag.replace(/"$/, '-gzip"'));
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect((await response.text()).length).toBeGreaterThan(100);

    const revalidated = await fetch(url, { headers: { "if-none-match": etag! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("etag")).toBe(etag);
    expect(await revalidated.text()).toBe("");
    expect((await fetch(url, { headers: { "if-none-match": '"other"' } })).status).toBe(200);
  });

  it("counts a pageview with page, landing page, browser, OS, device, screen and language", async () => {
    const page = await newPage();
    await page.goto(`${site.origin}/page?x=1#section`);
    await expectStats("pageviews", { [today()]: 1 });
    await page.goto(`${site.origin}/second`);
    await expectStats("pageviews", { [today()]: 2 });

    // Two pageviews and the engagement signal of the page left, all accepted.
    expect(site.collected.length).toBeGreaterThanOrEqual(2);
    expect(site.collected.every((answer) => answer.status === 202 && answer.dropped === undefined)).toBe(true);
    await expectStats("visitors", { [today()]: 1 });
    await expectStats("page", { "/page?x=1": 1, "/second": 1 });
    await expectStats("landing_page", { "/page?x=1": 1 });
    await expectStats("referrer", {}); // direct, then internal
    await expectStats("campaign", {});
    await expectStats("event", {});
    await expectStats("browser", { Chrome: 1 });
    await expectStats("os", { Linux: 1 });
    await expectStats("device", { desktop: 1 });
    await expectStats("resolution", { "1280x720": 1 });
    await expectStats("language", { de: 1 });
    await expectStats("pageviews_hours", { [new Date().toISOString().slice(11, 13)]: 2 }).catch(async (error) => {
      // The hour may have turned between the hits and the query: only the total is certain.
      const hours = await stats("pageviews_hours");
      if (Object.values(hours).reduce((a, b) => a + b, 0) !== 2) throw error;
    });
  });

  it("counts an external referrer from a link on another host", async () => {
    site.pages.set("/from", plainPage(`<a id="go" href="${site.origin}/landing">to the site</a>`));
    const page = await newPage();
    await page.goto(`${site.other}/from`); // another site, without the tracker
    await page.click("#go");
    await page.waitForURL(`${site.origin}/landing`);
    await expectStats("referrer", { localhost: 1 });
    await expectStats("landing_page", { "/landing": 1 });
    await expectStats("pageviews", { [today()]: 1 });
  });

  it("counts the utm_campaign of a visit, not as part of the page", async () => {
    const page = await newPage();
    await page.goto(`${site.origin}/?utm_campaign=spring`);
    await expectStats("campaign", { spring: 1 });
    // Tracking parameters are never part of the page.
    await expectStats("page", { "/": 1 });
    await expectStats("landing_page", { "/": 1 });
  });

  it("counts SPA navigations made with pushState as pages of one visit", async () => {
    const page = await newPage();
    await page.goto(`${site.origin}/spa`);
    await expectStats("pageviews", { [today()]: 1 });
    await page.evaluate(() => history.pushState({}, "", "/spa/a"));
    await expectStats("pageviews", { [today()]: 2 });
    await page.evaluate(() => history.pushState({}, "", "/spa/b"));
    await expectStats("page", { "/spa": 1, "/spa/a": 1, "/spa/b": 1 });
    await expectStats("pageviews", { [today()]: 3 });
    await expectStats("landing_page", { "/spa": 1 });
    await expectStats("visitors", { [today()]: 1 });
  });

  it("keeps the fragment in the page with data-hash", async () => {
    site.fallback = trackedPage({ attrs: "data-hash" });
    const page = await newPage();
    await page.goto(`${site.origin}/app#/home`);
    await expectStats("pageviews", { [today()]: 1 });
    await page.evaluate(() => history.pushState({}, "", "#/settings"));
    await expectStats("page", { "/app#/home": 1, "/app#/settings": 1 });
    await expectStats("landing_page", { "/app#/home": 1 });
  });

  it("counts custom events from tally.track(name, props), not as pageviews", async () => {
    const page = await newPage();
    await page.goto(`${site.origin}/pricing`);
    await expectStats("pageviews", { [today()]: 1 });
    await page.evaluate(() => window.tally.track("Signup", { plan: "pro" }));
    await expectStats("event", { Signup: 1 });
    await expectStats("pageviews", { [today()]: 1 });
    await expectStats("page", { "/pricing": 1 });
    await expectStats("visitors", { [today()]: 1 });
  });

  it("counts outbound link clicks with data-outbound", async () => {
    site.fallback = trackedPage({
      attrs: "data-outbound",
      body: `<a id="out" href="${site.other}/away">elsewhere</a> <a id="in" href="/inside">inside</a>`,
    });
    site.pages.set("/away", plainPage("away"));
    const page = await newPage();
    await page.goto(`${site.origin}/links`);
    await expectStats("pageviews", { [today()]: 1 });
    await page.click("#in");
    await page.waitForURL(`${site.origin}/inside`);
    await expectStats("pageviews", { [today()]: 2 });
    await page.goBack();
    await expectStats("pageviews", { [today()]: 3 });
    await page.click("#out");
    await page.waitForURL(`${site.other}/away`);
    await expectStats("event", { "Outbound Link: Click": 1 });
    await expectStats("page", { "/links": 2, "/inside": 1 });
  });

  const signals = {
    "Do Not Track": () => Object.defineProperty(Navigator.prototype, "doNotTrack", { get: () => "1" }),
    "Global Privacy Control": () => Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true }),
  };
  for (const [name, init] of Object.entries(signals)) {
    it(`counts nothing under ${name} with data-dnt="true", and counts the same browser without it`, async () => {
      site.fallback = trackedPage({ attrs: 'data-dnt="true"' });
      site.pages.set("/public", trackedPage());
      const page = await newPage(init);
      await page.goto(`${site.origin}/private`);
      await page.evaluate(() => {
        window.tally.track("Click");
        history.pushState({}, "", "/private/2");
      });
      await expectNothingCollected();

      await page.goto(`${site.origin}/public`); // same signal, no data-dnt: counted
      await expectStats("page", { "/public": 1 });
      await expectStats("event", {});
    });
  }

  it("counts nothing for a browser opted out with localStorage.tally_ignore", async () => {
    site.pages.set("/blank", plainPage());
    const page = await newPage();
    await page.goto(`${site.origin}/blank`);
    await page.evaluate(() => localStorage.setItem("tally_ignore", "true"));
    await page.goto(`${site.origin}/me`);
    await page.evaluate(() => window.tally.track("Click"));
    await expectNothingCollected();

    await page.evaluate(() => localStorage.removeItem("tally_ignore"));
    await page.goto(`${site.origin}/me/again`);
    await expectStats("page", { "/me/again": 1 });
    await expectStats("event", {});
  });

  it("counts events queued by the snippet before the deferred script loaded", async () => {
    site.fallback = trackedPage({ head: `${SNIPPET}<script>tally.track("Early")</script>` });
    const page = await newPage();
    await page.goto(`${site.origin}/early`);
    await expectStats("event", { Early: 1 });
    await expectStats("pageviews", { [today()]: 1 });
    expect(await page.evaluate(() => typeof window.tally.track === "function" && !window.tally.q)).toBe(true);
  });

  it("counts an event sent right before the page navigates away", async () => {
    site.fallback = trackedPage({
      body: `<button onclick="tally.track('Leave');location.href='/next'">go</button>`,
    });
    const page = await newPage();
    await page.goto(`${site.origin}/first`);
    await expectStats("pageviews", { [today()]: 1 });
    await page.click("button");
    await page.waitForURL(`${site.origin}/next`);
    await expectStats("event", { Leave: 1 });
    await expectStats("page", { "/first": 1, "/next": 1 });
    await expectStats("referrer", {}); // the own site is not a referrer
    await expectStats("landing_page", { "/first": 1 });
  });

  it("counts an event sent right before the tab closes", async () => {
    const page = await newPage();
    await page.goto(`${site.origin}/closing`);
    await expectStats("pageviews", { [today()]: 1 });
    await page.evaluate(() => window.tally.track("Bye"));
    await page.close();
    await expectStats("event", { Bye: 1 });
  });

  it("drops headless Chromium as a bot when the website excludes bots", async () => {
    await site.tally.websites.update(site.accountId, site.websiteId, { exclude_bots: 1 });
    const page = await newPage();
    await page.goto(`${site.origin}/bot`);
    const deadline = Date.now() + 5_000;
    while (site.collected.length === 0 && Date.now() < deadline) await sleep(10);
    expect(site.collected).toEqual([{ status: 202, dropped: "bot" }]);
    await expectStats("pageviews", {}, 0);
  });

  it("engaged time lands: a page left visible for 3 s makes a one-page visit last 3 s, still a bounce", async () => {
    site.pages.set("/elsewhere", plainPage("no tracker here"));
    const page = await newPage();
    await page.goto(`${site.origin}/article`);
    await expectStats("pageviews", { [today()]: 1 });
    await expectStats("visit_duration", { [today()]: 0 }); // one hit: no duration yet
    await sleep(3_000);
    await page.goto(`${site.other}/elsewhere`); // the page is hidden and left: its signal goes out
    // Until the signal is written (the next flush; later on a loaded machine): its time is its arrival's, not the wait's.
    const deadline = Date.now() + 20_000;
    while ((await stats("visit_duration"))[today()] === 0 && Date.now() < deadline) await sleep(25);
    const duration = (await stats("visit_duration"))[today()] ?? 0;
    // From the pageview to the signal's arrival, in whole seconds: at least the 3 s, and
    // (on any machine) well under the 3 s plus the ~10 s this test may take.
    expect(duration).toBeGreaterThanOrEqual(3);
    expect(duration).toBeLessThan(13);
    await expectStats("visits", { [today()]: 1 });
    await expectStats("pageviews", { [today()]: 1 }); // a signal is no pageview
    await expectStats("bounce_rate", { [today()]: 100 });
    await expectStats("visitors", { [today()]: 1 });
    await expectStats("event", {});
    expect(site.collected).toHaveLength(2);
    // The visit row holds the engaged seconds (what the tracker measured).
    const database = new Database(join(site.directory, "tally.sqlite"), { readonly: true });
    try {
      const visits = database.prepare("select engaged, duration, pageviews from visits").all() as {
        engaged: number;
        duration: number;
        pageviews: number;
      }[];
      expect(visits).toHaveLength(1);
      expect(visits[0]!.engaged).toBeGreaterThanOrEqual(3);
      // The tracker's clock starts when the page loads, the server's when the pageview arrives, both in
      // whole seconds: on a loaded machine the engaged time can pass the duration by that second.
      expect(visits[0]!.engaged).toBeLessThanOrEqual(visits[0]!.duration + 1);
      expect(visits[0]!.pageviews).toBe(1);
    } finally {
      database.close();
    }
  });
});
