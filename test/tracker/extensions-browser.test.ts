// The tracker's extensions (/script.ext.js, data-extensions="downloads 404 forms scroll
// vitals"), Plausible's extension names (/js/script.file-downloads.js…) and GoatCounter's
// snippet (/count.js with data-goatcounter), in real headless
// Chromium against a real embedded Tally (SQLite, node:http, mounted under /analytics).
// Events are read back through /api/v1/stats (`event`, `event_property`); scroll depth
// (`d`) and vitals (`w`) are asserted on the bodies the server receives: a recorder in
// front of Tally's handler keeps each body before Tally reads it, so these tests do not
// depend on how (or whether) the server stores them.
//
// Every test gets its own Tally, database and port (a beacon still in flight from one
// test never lands in the next one's counts). Headless Chromium is a bot to isbot: the
// website is created with exclude_bots 0.
import type { IncomingMessage } from "node:http";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { expectTodaysStats, PLAIN_PAGE, scriptPage, todayUtc } from "../support/browser-pages.js";
import { startEmbeddedSite, stopEmbeddedSite, type EmbeddedSite } from "../support/embedded-site.js";

warnIfSkipped("extensions-browser");

/** A body as the tracker sends it (`/collect`) or Plausible's (`/api/event`), parsed. */
interface Body {
  u: string;
  n?: string;
  p?: Record<string, unknown>;
  e?: number;
  d?: number;
  w?: { lcp?: number; inp?: number; cls?: number; fcp?: number; ttfb?: number };
}

interface Site extends EmbeddedSite {
  pages: Map<string, string>;
  /** Every POST body to /analytics/collect or /analytics/api/event, in arrival order. */
  bodies: Body[];
}

/** Reads a request's body, then leaves it where Tally's node adapter takes a parsed body from. */
async function record(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  (req as IncomingMessage & { body?: string }).body = text;
  return text;
}

async function startSite(): Promise<Site> {
  // The request listener reads the same object the test changes.
  const state = { pages: new Map<string, string>(), bodies: [] as Body[] };
  const embedded = await startEmbeddedSite("tally-ext-", (handler) => (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (req.method === "POST" && (path === "/analytics/collect" || path === "/analytics/api/event")) {
      void record(req).then((text) => {
        state.bodies.push(JSON.parse(text) as Body);
        handler(req, res);
      });
    } else if (path.startsWith("/analytics/")) handler(req, res);
    else if (path === "/favicon.ico") res.writeHead(204).end();
    else {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      res.end(state.pages.get(path) ?? PLAIN_PAGE);
    }
  });
  return Object.assign(state, embedded);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const today = todayUtc;
const page = scriptPage;

let browser: Browser;
let context: BrowserContext;
let site: Site;
let pageErrors: string[] = [];

/** Polls until `expected` shows up (beacons are asynchronous), then asserts it exactly. */
const expectStats = (name: string, expected: Record<string, number>, extra: Record<string, string> = {}) =>
  expectTodaysStats(site, { name, expected, extra });

/** The engagement signals received so far (bodies with `e`), polled until there are `count`. */
async function signals(count: number): Promise<Body[]> {
  await expect.poll(() => site.bodies.filter((body) => body.e !== undefined).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(count);
  return site.bodies.filter((body) => body.e !== undefined);
}

async function newPage(): Promise<Page> {
  const tab = await context.newPage();
  tab.on("pageerror", (error) => pageErrors.push(error.message));
  return tab;
}

/** Opens `path` (its pageview arrived), clicks `#id` and waits until the page is left. */
async function clickAway(path: string, id: string): Promise<void> {
  const tab = await open(path);
  await tab.click(`#${id}`);
  await tab.waitForURL((url) => url.pathname !== path);
}

/** Opens `path` and waits for its pageview to arrive. */
async function open(path: string): Promise<Page> {
  const tab = await newPage();
  const before = site.bodies.length;
  await tab.goto(`${site.origin}${path}`);
  await expect.poll(() => site.bodies.length, { timeout: 5_000 }).toBeGreaterThan(before);
  return tab;
}

describe.skipIf(skip)("tracker extensions → embedded Tally, in Chromium", () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    pageErrors = [];
    site = await startSite();
    context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  });

  afterEach(async () => {
    await context?.close();
    if (site) await stopEmbeddedSite(site);
    expect(pageErrors, "page errors").toEqual([]);
  });

  it("serves /script.ext.js as JavaScript with an ETag, beside the unchanged /script.js", async () => {
    const extended = await fetch(`${site.origin}/analytics/script.ext.js`);
    expect(extended.status).toBe(200);
    expect(extended.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const etag = extended.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]+"$/);
    const text = await extended.text();
    for (const marker of ["File Download", "Form: Submission", "tally-404", "layout-shift"]) expect(text).toContain(marker);
    expect((await fetch(`${site.origin}/analytics/script.ext.js`, { headers: { "if-none-match": etag! } })).status).toBe(304);
    const plain = await (await fetch(`${site.origin}/analytics/script.js`)).text();
    for (const marker of ["File Download", "Form: Submission", "tally-404", "layout-shift"]) expect(plain).not.toContain(marker);
  });

  it("downloads: a click on a link to a file is a File Download with {url}; other links are not", async () => {
    const links =
      '<a id="pdf" href="/files/report.pdf">pdf</a> <a id="zip" href="/files/App.ZIP?v=2">zip</a>' +
      ' <a id="page" href="/about">about</a> <a id="epub" href="/files/book.epub">epub</a>';
    site.pages.set("/docs", page({ attrs: 'data-extensions="downloads"', body: links }));
    for (const id of ["pdf", "zip", "page", "epub"]) {
      await clickAway("/docs", id);
    }
    await expectStats("event", { "File Download": 2 });
    await expectStats(
      "event_property",
      { [`${site.origin}/files/report.pdf`]: 1, [`${site.origin}/files/App.ZIP?v=2`]: 1 },
      { event: "File Download", property: "url" },
    );
  });

  it("downloads: data-file-types replaces the list of file types", async () => {
    const links = '<a id="pdf" href="/files/report.pdf">pdf</a> <a id="epub" href="/files/book.epub">epub</a>';
    site.pages.set("/docs", page({ attrs: 'data-extensions="downloads" data-file-types="epub mobi"', body: links }));
    for (const id of ["pdf", "epub"]) {
      await clickAway("/docs", id);
    }
    await expectStats("event_property", { [`${site.origin}/files/book.epub`]: 1 }, { event: "File Download", property: "url" });
  });

  it('404: a page with <meta name="tally-404"> sends 404 with {path}; other pages do not', async () => {
    site.pages.set("/missing/page", page({ attrs: 'data-extensions="404"', head: '<meta name="tally-404">' }));
    site.pages.set("/found", page({ attrs: 'data-extensions="404"' }));
    site.pages.set("/unextended", page({ head: '<meta name="tally-404">' })); // no "404" in data-extensions
    for (const path of ["/missing/page", "/found", "/unextended"]) await open(path);
    await expectStats("pageviews", { [today()]: 3 });
    await expectStats("event", { "404": 1 });
    await expectStats("event_property", { "/missing/page": 1 }, { event: "404", property: "path" });
  });

  it("forms: a submission the browser makes counts as Form: Submission with {path}; a prevented or invalid one does not", async () => {
    const forms =
      '<form id="ok" action="/thanks"><input name="q" value="x"><button id="send">send</button></form>' +
      '<form id="ajax" action="/thanks" onsubmit="event.preventDefault()"><button id="ajax-send">send</button></form>' +
      '<form id="invalid" action="/thanks"><input name="email" required><button id="invalid-send">send</button></form>';
    site.pages.set("/signup", page({ attrs: 'data-extensions="forms"', body: forms }));
    const tab = await open("/signup");
    await tab.click("#ajax-send"); // the page handles it: not a submission of the page's
    await tab.click("#invalid-send"); // the browser refuses it: no submit event
    await sleep(300);
    await expectStats("event", {});
    await tab.click("#send");
    await tab.waitForURL((url) => url.pathname === "/thanks");
    await expectStats("event", { "Form: Submission": 1 });
    await expectStats("event_property", { "/signup": 1 }, { event: "Form: Submission", property: "path" });
  });

  it("scroll: the engagement signal carries `d`, the deepest percentage seen, as a whole number", async () => {
    site.pages.set("/long", page({ attrs: 'data-extensions="scroll"', body: '<div style="height:3600px">long</div>' }));
    const tab = await open("/long");
    await tab.evaluate(() => scrollTo(0, 1800));
    await sleep(100);
    const expected = await tab.evaluate(() => Math.round(((scrollY + innerHeight) / document.documentElement.scrollHeight) * 100));
    await tab.evaluate(() => scrollTo(0, 0)); // back up: the deepest point stays
    await sleep(100);
    await tab.goto(`${site.origin}/elsewhere`);
    const [signal] = await signals(1);
    expect(signal!.u).toBe(`${site.origin}/long`);
    expect(signal!.d).toBe(expected);
    expect(expected).toBeGreaterThan(60);
    expect(expected).toBeLessThan(80);
    expect(signal!.e).toBeGreaterThan(0);
    expect(signal!.w).toBeUndefined(); // vitals not turned on
  });

  it("scroll: a page that fits the window was seen whole (d = 100)", async () => {
    site.pages.set("/short", page({ attrs: 'data-extensions="scroll"', body: "<p>short</p>" }));
    const tab = await open("/short");
    await sleep(200);
    await tab.close({ runBeforeUnload: true });
    const [signal] = await signals(1);
    expect(signal).toMatchObject({ u: `${site.origin}/short`, d: 100 });
  });

  it("time on page: an SPA navigation sends the page left's signal (e, d) for its URL before the next pageview", async () => {
    site.pages.set("/app", page({ attrs: 'data-extensions="scroll"', body: '<div style="height:7200px">app</div>' }));
    const tab = await open("/app");
    await sleep(700);
    await tab.evaluate(() => scrollTo(0, 3600));
    await sleep(100);
    await tab.evaluate(() => history.pushState({}, "", "/app/settings"));
    await expect.poll(() => site.bodies.length).toBeGreaterThanOrEqual(3);
    const [view, signal, next] = site.bodies;
    expect(view).toMatchObject({ u: `${site.origin}/app` });
    expect(view!.e).toBeUndefined();
    expect(signal).toMatchObject({ u: `${site.origin}/app`, d: 60 }); // (3600 + 720) / 7200
    expect(signal!.e).toBeGreaterThanOrEqual(700);
    expect(next).toMatchObject({ u: `${site.origin}/app/settings` });
    expect(next!.e).toBeUndefined();

    // The next page starts afresh: its own signal, its own depth (nothing scrolled since).
    await sleep(300);
    await tab.goto(`${site.origin}/elsewhere`);
    const all = await signals(2);
    expect(all[1]).toMatchObject({ u: `${site.origin}/app/settings`, d: 60 });
    expect(all[1]!.e).toBeGreaterThan(0);
    expect(all[1]!.e).toBeLessThan(all[0]!.e! + 5_000);
    await expectStats("page", { "/app": 1, "/app/settings": 1 });
  });

  it("vitals: the engagement signal carries `w` with LCP, FCP, TTFB, CLS and INP as measured", async () => {
    const body =
      '<h1 id="title" style="font-size:64px">Largest text of the page</h1>' +
      '<div id="slot"></div><p id="shifted">shifted by an insert</p>' +
      // A slow handler: an interaction long enough for the Event Timing API (over 16 ms).
      '<button id="slow" onclick="const t=performance.now();while(performance.now()-t<80);">slow</button>' +
      // A layout shift without input: content inserted above, after the first paint.
      "<script>setTimeout(()=>{document.getElementById('slot').style.height='200px'},300)</script>";
    site.pages.set("/vitals", page({ attrs: 'data-extensions="vitals"', body }));
    const tab = await open("/vitals");
    await sleep(600);
    await tab.click("#slow");
    await sleep(200);
    await tab.goto(`${site.origin}/elsewhere`);
    const [signal] = await signals(1);
    expect(signal!.u).toBe(`${site.origin}/vitals`);
    expect(signal!.d).toBeUndefined(); // scroll not turned on
    const w = signal!.w!;
    expect(Object.keys(w).sort()).toEqual(["cls", "fcp", "inp", "lcp", "ttfb"]);
    for (const key of ["lcp", "fcp", "ttfb", "inp"] as const) expect(Number.isInteger(w[key]), key).toBe(true);
    expect(w.ttfb).toBeGreaterThanOrEqual(0);
    expect(w.fcp).toBeGreaterThan(0);
    expect(w.lcp).toBeGreaterThanOrEqual(w.fcp!);
    expect(w.inp).toBeGreaterThanOrEqual(80);
    expect(w.cls).toBeGreaterThan(0);
    expect(w.cls).toBeLessThan(1);
  });

  it("vitals: a page never focused still sends its vitals when left (e = 0), once", async () => {
    site.pages.set("/background", page({ attrs: 'data-extensions="vitals"', body: "<h1>hello</h1>" }));
    const tab = await newPage();
    // A page that never has focus (as a tab opened in the background): no engaged time.
    await tab.addInitScript(() => Object.defineProperty(Document.prototype, "hasFocus", { value: () => false }));
    await tab.goto(`${site.origin}/background`);
    await expect.poll(() => site.bodies.length).toBe(1);
    expect(await tab.evaluate(() => document.hasFocus())).toBe(false);
    await sleep(300);
    await tab.close({ runBeforeUnload: true });
    const [signal] = await signals(1);
    expect(signal).toMatchObject({ u: `${site.origin}/background`, e: 0, w: { ttfb: expect.any(Number) } });
    await sleep(300);
    expect(site.bodies.filter((body) => body.w)).toHaveLength(1);
  });

  it("turns on only what data-extensions names; /script.js ignores the attribute", async () => {
    const body = '<a id="pdf" href="/files/report.pdf">pdf</a><div style="height:3000px"></div>';
    site.pages.set("/none", page({ body }));
    site.pages.set("/default", page({ src: "script.js", attrs: 'data-extensions="downloads scroll vitals"', body }));
    for (const path of ["/none", "/default"]) {
      const tab = await open(path);
      await sleep(200);
      await tab.click("#pdf");
      await tab.waitForURL((url) => url.pathname === "/files/report.pdf");
    }
    const all = await signals(2);
    for (const signal of all) {
      expect(Object.keys(signal)).not.toContain("d");
      expect(Object.keys(signal)).not.toContain("w");
    }
    await sleep(300);
    await expectStats("event", {});
    await expectStats("page", { "/none": 1, "/default": 1 });
  });

  it("Plausible's extension names: script.file-downloads.outbound-links.js counts downloads and outbound clicks", async () => {
    const links = `<a id="pdf" href="/files/report.pdf">pdf</a> <a id="out" href="${"OTHER"}/away">away</a>`;
    const snippet = (file: string) =>
      page({ src: `js/${file}`, attrs: 'data-domain="127.0.0.1"', body: links.replace("OTHER", site.other) });
    site.pages.set("/both", snippet("script.file-downloads.outbound-links.js"));
    site.pages.set("/downloads", snippet("script.file-downloads.js"));
    site.pages.set("/plain", snippet("script.js"));
    site.pages.set("/unknown", snippet("script.tagged-events.file-downloads.no-such-name.js"));
    for (const [path, id] of [
      ["/both", "pdf"],
      ["/both", "out"],
      ["/downloads", "pdf"],
      ["/downloads", "out"], // outbound-links not named: not counted
      ["/plain", "pdf"], // neither named
      ["/unknown", "pdf"], // unknown names are ignored, file-downloads still counts
    ] as const) {
      await clickAway(path, id);
    }
    await expectStats("event", { "File Download": 3, "Outbound Link: Click": 1 });
    await expectStats("event_property", { [`${site.origin}/files/report.pdf`]: 3 }, { event: "File Download", property: "url" });
    await expectStats("event_property", { [`${site.other}/away`]: 1 }, { event: "Outbound Link: Click", property: "url" });
    expect(site.bodies.filter((body) => body.n === "File Download").length).toBe(3);
  });

  it("Plausible's extension names: file-types replaces the list, as Plausible's attribute does", async () => {
    const links = '<a id="pdf" href="/files/report.pdf">pdf</a> <a id="js" href="/files/app.js">js</a>';
    site.pages.set(
      "/types",
      page({ src: "js/script.file-downloads.js", attrs: 'data-domain="127.0.0.1" file-types="js,py"', body: links }),
    );
    for (const id of ["pdf", "js"]) {
      await clickAway("/types", id);
    }
    await expectStats("event_property", { [`${site.origin}/files/app.js`]: 1 }, { event: "File Download", property: "url" });
  });

  it("GoatCounter's snippet: count.js with data-goatcounter counts the page, goatcounter.count events and data-goatcounter-click", async () => {
    const snippet = (attrs: string) =>
      `<!doctype html><html><head><meta charset="utf-8"><title>GC</title></head><body>` +
      `<button id="buy" data-goatcounter-click="Buy">buy</button>` +
      `<script ${attrs} async src="/analytics/count.js"></script></body></html>`;
    site.pages.set("/gc", snippet(`data-goatcounter="${site.origin}/analytics/count"`));
    site.pages.set("/manual", snippet(`data-goatcounter="${site.origin}/analytics/count" data-goatcounter-settings='{"no_onload": true}'`));
    const tab = await newPage();
    await tab.goto(`${site.origin}/gc?utm_campaign=spring`);
    await expectStats("page", { "/gc": 1 });
    await expectStats("campaign", { spring: 1 });
    await tab.waitForFunction(() => typeof (window as { goatcounter?: unknown }).goatcounter === "object");
    await tab.evaluate(() =>
      (window as unknown as { goatcounter: { count(vars: object): void } }).goatcounter.count({ path: "Signup", event: true }),
    );
    await tab.click("#buy");
    await expectStats("event", { Signup: 1, Buy: 1 });

    await tab.goto(`${site.origin}/manual`); // no_onload: no pageview until count() is called
    await tab.waitForFunction(() => typeof (window as { goatcounter?: unknown }).goatcounter === "object");
    await sleep(300);
    await expectStats("page", { "/gc": 1 });
    await tab.evaluate(() => (window as unknown as { goatcounter: { count(): void } }).goatcounter.count());
    await expectStats("page", { "/gc": 1, "/manual": 1 });
    await expectStats("pageviews", { [today()]: 2 });
  });
});
