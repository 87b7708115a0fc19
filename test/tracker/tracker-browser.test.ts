// The built tracker in real headless Chromium, against a node:http server that serves a
// page plus the script and records what arrives at the collect endpoint.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { trackerScript } from "@tally-analytics/tracker";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";

warnIfSkipped("tracker-browser");

declare global {
  interface Window {
    tally: { track(name: string, props?: Record<string, unknown>): void; q?: unknown[] };
  }
}

interface Hit {
  u: string;
  r?: string;
  s?: string;
  l?: string;
  n?: string;
  p?: Record<string, unknown>;
  h?: 1;
  e?: number;
}
interface Received {
  path: string;
  host: string | undefined;
  contentType: string | undefined;
  hit: Hit;
}

const SNIPPET = "<script>window.tally=window.tally||{q:[],track:function(){tally.q.push(arguments)}}</script>";
const COLLECT_PATHS = new Set(["/analytics/collect", "/custom/hit"]);

// Per-test server state.
let received: Received[] = [];
/** Engagement signals (`e`), kept apart: every page that is left sends one. */
let engagements: Received[] = [];
let preflights = 0;
let collectStatus = 202;
let html = "";

const server = createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (COLLECT_PATHS.has(path)) {
    if (req.method === "OPTIONS") preflights++;
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      if (req.method === "POST") {
        const hit = JSON.parse(body) as Hit;
        (hit.e === undefined ? received : engagements).push({
          path,
          host: req.headers.host,
          contentType: req.headers["content-type"],
          hit,
        });
      }
      res.writeHead(req.method === "POST" ? collectStatus : 204, {
        "access-control-allow-origin": "*",
        "content-type": "application/json",
      });
      res.end("{}");
    });
    return;
  }
  if (path === "/analytics/script.js") {
    res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
    res.end(trackerScript);
    return;
  }
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  // /away stands for another site: no tracker there.
  res.end(path.startsWith("/away") ? "<!doctype html><p>away</p>" : html);
});

let browser: Browser;
let context: BrowserContext;
let origin = ""; // the measured site
let other = ""; // the same server under another host: outbound links, cross-origin data-api
let pageErrors: string[] = [];
let consoleErrors: string[] = [];
let allowNetworkErrors = false;

/** Serves every page path with the tracker tag (plus extra attributes, head and body). */
function site({ attrs = "", head = "", body = "" } = {}) {
  html =
    `<!doctype html><html><head><meta charset="utf-8">${head}` +
    `<script defer src="/analytics/script.js"${attrs ? ` ${attrs}` : ""}></script>` +
    `</head><body>${body}</body></html>`;
}

async function newPage(init?: () => void): Promise<Page> {
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  return page;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForHits(count: number, timeout = 5_000): Promise<Hit[]> {
  const deadline = Date.now() + timeout;
  while (received.length < count && Date.now() < deadline) await sleep(10);
  expect(received.length, "hits received").toBeGreaterThanOrEqual(count);
  return received.map((r) => r.hit);
}

/** For "nothing more is sent": beacons to 127.0.0.1 arrive within milliseconds. */
async function expectHitCount(count: number) {
  await sleep(300);
  expect(received.map((r) => r.hit)).toHaveLength(count);
}

const SCREEN = { s: "1280x720", l: "de-DE" };

describe.skipIf(skip)("tracker in Chromium", () => {
  beforeAll(async () => {
    browser = await launchChromium();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    origin = `http://127.0.0.1:${port}`;
    other = `http://localhost:${port}`;
  });

  afterAll(async () => {
    await browser?.close();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(async () => {
    received = [];
    engagements = [];
    preflights = 0;
    collectStatus = 202;
    pageErrors = [];
    consoleErrors = [];
    allowNetworkErrors = false;
    context = await browser.newContext({
      viewport: { width: 800, height: 600 },
      screen: { width: 1280, height: 720 },
      locale: "de-DE",
    });
  });

  afterEach(async () => {
    await context.close();
    expect(pageErrors, "page errors").toEqual([]);
    // Chromium's own network log ("Failed to load resource: …") is reported as a console
    // error for any failed request, whatever the transport; it does not come from our code.
    const ours = consoleErrors.filter((text) => !(allowNetworkErrors && text.startsWith("Failed to load resource")));
    expect(ours, "console errors").toEqual([]);
  });

  it("sends a pageview on load with URL, referrer, screen and language as text/plain", async () => {
    site();
    const page = await newPage();
    await page.goto(`${origin}/page?x=1#section`, { referer: "https://news.example/item" });
    const [hit] = await waitForHits(1);
    expect(hit).toEqual({ u: `${origin}/page?x=1`, r: "https://news.example/item", ...SCREEN });
    expect(received[0]).toMatchObject({
      path: "/analytics/collect",
      contentType: "text/plain;charset=UTF-8",
    });
    expect(preflights).toBe(0);

    await page.goto(`${origin}/direct`);
    const hits = await waitForHits(2);
    expect(hits[1]).toEqual({ u: `${origin}/direct`, ...SCREEN });
    expect(Object.keys(hits[1]!)).not.toContain("r");
  });

  it("follows pushState, replaceState to a new path and popstate, without duplicates", async () => {
    site();
    const page = await newPage();
    await page.goto(`${origin}/a`);
    await waitForHits(1);

    await page.evaluate(() => history.pushState({}, "", "/b"));
    await waitForHits(2);
    await page.evaluate(() => {
      history.pushState({}, "", "/b"); // same URL
      history.pushState({}, "", "/b#details"); // fragment only
      history.replaceState({}, "", "/b?sort=asc"); // same path
    });
    await expectHitCount(2);

    await page.evaluate(() => history.replaceState({}, "", "/c"));
    await waitForHits(3);
    // Stack: /a, /b, /b, /c (that entry replaced twice); back() pops to /b.
    await page.evaluate(() => history.back());
    const hits = await waitForHits(4);
    await expectHitCount(4);
    expect(hits).toEqual(["/a", "/b", "/c", "/b"].map((path) => ({ u: origin + path, ...SCREEN })));
  });

  it("keeps the fragment and sets h with data-hash", async () => {
    site({ attrs: "data-hash" });
    const page = await newPage();
    await page.goto(`${origin}/app#/home`);
    await waitForHits(1);
    await page.evaluate(() => (location.hash = "#/about")); // hashchange and popstate: one hit
    await waitForHits(2);
    await page.evaluate(() => history.pushState({}, "", "#/settings")); // routers using pushState
    await waitForHits(3);
    await page.evaluate(() => history.replaceState({}, "", "#/settings")); // same route
    await page.evaluate(() => window.tally.track("Saved"));
    const hits = await waitForHits(4);
    await expectHitCount(4);
    expect(hits).toEqual([
      { u: `${origin}/app#/home`, h: 1, ...SCREEN },
      { u: `${origin}/app#/about`, h: 1, ...SCREEN },
      { u: `${origin}/app#/settings`, h: 1, ...SCREEN },
      { u: `${origin}/app#/settings`, n: "Saved", h: 1, ...SCREEN },
    ]);
  });

  it("sends custom events with tally.track(name, props)", async () => {
    site();
    const page = await newPage();
    await page.goto(`${origin}/pricing#plans`);
    await waitForHits(1);
    await page.evaluate(() => window.tally.track("Signup", { plan: "pro", seats: 3, trial: true }));
    const hits = await waitForHits(2);
    expect(hits[1]).toEqual({
      u: `${origin}/pricing`,
      n: "Signup",
      p: { plan: "pro", seats: 3, trial: true },
      ...SCREEN,
    });
  });

  it("replays calls queued by the snippet before the script loaded", async () => {
    site({ head: `${SNIPPET}<script>tally.track("Early", { step: 1 }); tally.track("Earlier")</script>` });
    const page = await newPage();
    await page.goto(`${origin}/landing`);
    const hits = await waitForHits(3);
    await expectHitCount(3);
    expect(hits).toEqual(
      expect.arrayContaining([
        { u: `${origin}/landing`, ...SCREEN },
        { u: `${origin}/landing`, n: "Early", p: { step: 1 }, ...SCREEN },
        { u: `${origin}/landing`, n: "Earlier", ...SCREEN },
      ]),
    );
    expect(await page.evaluate(() => typeof window.tally.track === "function" && !window.tally.q)).toBe(true);
  });

  it("reports outbound link clicks with data-outbound without blocking navigation", async () => {
    site({
      attrs: "data-outbound",
      body:
        `<a id="out" href="${other}/away?ref=1"><span>elsewhere</span></a> ` +
        `<a id="in" href="/inside">inside</a> <a id="mail" href="mailto:a@b.example">mail</a>`,
    });
    const page = await newPage();
    await page.goto(`${origin}/links`);
    await waitForHits(1);

    await page.click("#mail");
    await page.click("#out", { button: "right" }); // context menu: not a visit
    await expectHitCount(1);

    await page.click("#out", { button: "middle" }); // opens a background tab
    await waitForHits(2);
    await page.click("#out");
    await page.waitForURL(`${other}/away?ref=1`);
    const hits = await waitForHits(3);
    await expectHitCount(3);
    const event = { n: "Outbound Link: Click", p: { url: `${other}/away?ref=1` } };
    expect(hits).toEqual([
      { u: `${origin}/links`, ...SCREEN },
      { u: `${origin}/links`, ...event, ...SCREEN },
      { u: `${origin}/links`, ...event, ...SCREEN },
    ]);

    received = [];
    await page.goto(`${origin}/links`);
    await waitForHits(1);
    await page.click("#in");
    await page.waitForURL(`${origin}/inside`);
    const internal = await waitForHits(2);
    await expectHitCount(2);
    expect(internal.map((h) => h.u)).toEqual([`${origin}/links`, `${origin}/inside`]);
    expect(internal.map((h) => h.n)).toEqual([undefined, undefined]);
  });

  it("ignores outbound clicks without data-outbound", async () => {
    site({ body: `<a id="out" href="${other}/away">elsewhere</a>` });
    const page = await newPage();
    await page.goto(`${origin}/links`);
    await waitForHits(1);
    await page.click("#out");
    await page.waitForURL(`${other}/away`);
    await expectHitCount(1);
  });

  const signals = {
    "Do Not Track": () => Object.defineProperty(Navigator.prototype, "doNotTrack", { get: () => "1" }),
    "Global Privacy Control": () => Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true }),
  };
  for (const [name, init] of Object.entries(signals)) {
    it(`honours ${name} with data-dnt="true", and only then`, async () => {
      site({ attrs: 'data-dnt="true"' });
      const page = await newPage(init);
      await page.goto(`${origin}/private`);
      await page.evaluate(() => {
        window.tally.track("Click");
        history.pushState({}, "", "/private/2");
      });
      await expectHitCount(0);

      site();
      await page.goto(`${origin}/public`);
      await waitForHits(1);
    });
  }

  it("is opted out by localStorage.tally_ignore", async () => {
    site();
    const page = await newPage(() => localStorage.setItem("tally_ignore", "true"));
    await page.goto(`${origin}/me`);
    await page.evaluate(() => window.tally.track("Click"));
    await page.goto(`${origin}/me/again`); // leaving /me: no engagement signal either
    await expectHitCount(0);
    expect(engagements).toEqual([]);
  });

  it("still tracks when localStorage throws (sandboxed iframes, blocked storage)", async () => {
    site();
    const page = await newPage(() =>
      Object.defineProperty(window, "localStorage", {
        get() {
          throw new DOMException("denied", "SecurityError");
        },
      }),
    );
    await page.goto(`${origin}/sandboxed`);
    await waitForHits(1);
  });

  it("posts to data-api instead of the collect beside the script, without a preflight", async () => {
    site({ attrs: `data-api="${other}/custom/hit"` });
    const page = await newPage();
    await page.goto(`${origin}/api`);
    await waitForHits(1);
    expect(received[0]).toMatchObject({
      path: "/custom/hit",
      host: new URL(other).host,
      contentType: "text/plain;charset=UTF-8",
      hit: { u: `${origin}/api` },
    });
    expect(preflights).toBe(0);
  });

  it("raises no page or console errors when the endpoint answers 500", async () => {
    allowNetworkErrors = true;
    collectStatus = 500;
    site();
    const page = await newPage();
    await page.goto(`${origin}/down`);
    await page.evaluate(() => window.tally.track("Click"));
    await waitForHits(2);
    await sleep(200);
  });

  it("raises no page or console errors when the endpoint is unreachable", async () => {
    allowNetworkErrors = true;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    site({ attrs: `data-api="http://127.0.0.1:${port}/collect"` });
    const page = await newPage();
    await page.goto(`${origin}/down`);
    await page.evaluate(() => {
      window.tally.track("Click");
      history.pushState({}, "", "/down/2");
    });
    await sleep(300);
  });

  it("does not throw where sendBeacon is disabled", async () => {
    site();
    const page = await newPage(() => {
      delete (Navigator.prototype as Partial<Navigator>).sendBeacon;
    });
    await page.goto(`${origin}/nobeacon`);
    await page.evaluate(() => window.tally.track("Click"));
    await expectHitCount(0);
  });

  it("delivers a hit sent right before the page navigates away", async () => {
    site({ body: `<button onclick="tally.track('Leave');location.href='/next'">go</button>` });
    const page = await newPage();
    await page.goto(`${origin}/first`);
    await waitForHits(1);
    await page.click("button");
    await page.waitForURL(`${origin}/next`);
    const hits = await waitForHits(3);
    expect(hits).toEqual(
      expect.arrayContaining([
        { u: `${origin}/first`, n: "Leave", ...SCREEN },
        { u: `${origin}/next`, r: `${origin}/first`, ...SCREEN },
      ]),
    );
  });

  it("delivers a hit sent right before the tab closes", async () => {
    site();
    const page = await newPage();
    await page.goto(`${origin}/closing`);
    await waitForHits(1);
    await page.evaluate(() => window.tally.track("Bye"));
    await page.close();
    const hits = await waitForHits(2);
    expect(hits[1]).toMatchObject({ n: "Bye" });
  });

  /**
   * Moves the focus to another page (a real blur). Headless Chromium pretends every page
   * has focus; without that emulation only the page in front has it.
   */
  async function focusElsewhere(page: Page): Promise<Page> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setFocusEmulationEnabled", { enabled: false });
    const other = await page.context().newPage();
    await other.bringToFront();
    await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(false);
    return other;
  }

  async function waitForEngagements(count: number, timeout = 5_000): Promise<Hit[]> {
    const deadline = Date.now() + timeout;
    while (engagements.length < count && Date.now() < deadline) await sleep(10);
    expect(engagements.length, "engagement signals received").toBeGreaterThanOrEqual(count);
    return engagements.map((r) => r.hit);
  }

  it("sends the time the page was visible and focused when it is left, once, as text/plain", async () => {
    site();
    const page = await newPage();
    const opened = Date.now();
    await page.goto(`${origin}/read?x=1#part`);
    await waitForHits(1);
    const focusedFor = 1_500;
    await sleep(focusedFor); // visible and focused
    await focusElsewhere(page);
    await sleep(1_500); // visible, not focused: does not count
    await expectHitCount(1); // blurring sends nothing
    expect(engagements).toEqual([]);
    await page.bringToFront();
    await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(true);
    await sleep(500); // focused again: counts
    await page.goto(`${origin}/next`); // hidden, then left
    const [signal] = await waitForEngagements(1);
    const lived = Date.now() - opened; // more than the page's life
    // (The CDP session of focusElsewhere resets the locale emulation: `l` is not compared.)
    expect(signal).toMatchObject({ u: `${origin}/read?x=1`, s: SCREEN.s });
    expect(Object.keys(signal!).sort()).toEqual(["e", "l", "s", "u"]);
    // At least the focused time, and none of the 1.5 s without focus.
    expect(signal!.e).toBeGreaterThanOrEqual(focusedFor + 500);
    expect(signal!.e).toBeLessThanOrEqual(lived - 1_500);
    expect(engagements[0]).toMatchObject({ path: "/analytics/collect", contentType: "text/plain;charset=UTF-8" });
    expect(preflights).toBe(0);
    // The pageview of /next came, and nothing else: one signal per page left.
    await waitForHits(2);
    await sleep(300);
    expect(engagements).toHaveLength(1);
  });

  it("counts a page visible and focused until the tab closes, and the URL it was left on", async () => {
    site();
    const page = await newPage();
    await page.goto(`${origin}/spa`);
    await waitForHits(1);
    await page.evaluate(() => history.pushState({}, "", "/spa/2"));
    await waitForHits(2);
    await sleep(1_000);
    await page.close();
    const [signal] = await waitForEngagements(1);
    expect(signal).toMatchObject({ u: `${origin}/spa/2`, ...SCREEN });
    expect(signal!.e).toBeGreaterThanOrEqual(1_000);
    await sleep(300);
    expect(engagements).toHaveLength(1);
    expect(received).toHaveLength(2);
  });
});
