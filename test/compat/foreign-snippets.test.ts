// Other tools' snippets in real headless Chromium against a real Tally (SQLite, node:http on
// port 0, mounted under /analytics): Plausible's snippet API, the official
// @plausible-analytics/tracker npm package, Umami's snippet with umami.track, and a
// GoatCounter pixel in an <img>. The pages are served as http://shop.example:port (Chromium
// resolves that name to 127.0.0.1), the website's domain; counts are read back in-process.
//
// Headless Chromium's user agent is a bot's to isbot: the website has exclude_bots 0, and a
// second website with the default (1) shows that bots are dropped as on /collect.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { Tally } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";

warnIfSkipped("foreign-snippets");

const UMAMI_ID = "b59e9c65-ae32-47f1-8400-119fcf4861c4";
const today = () => new Date().toISOString().slice(0, 10);
const plausibleModule = readFileSync(createRequire(import.meta.url).resolve("@plausible-analytics/tracker"), "utf8");

const html = (head: string, body = "") =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>${head}</head><body>${body}</body></html>`;

let browser: Browser;
let context: BrowserContext;
let stored: TestTally;
let tally: Tally;
let server: Server;
let origin: string;
let shop: number;
let botShop: number;
const pages = new Map<string, string>();

/** One statistic of today, as {value: count}, polled until it equals `expected` (beacons are asynchronous). */
async function expectRows(websiteId: number, query: Record<string, string>, expected: Record<string, number>): Promise<void> {
  const read = async () => {
    await tally.flush();
    const page = await tally.stats.queryWebsite(websiteId, { from: today(), to: today(), per_page: "100", ...query });
    return Object.fromEntries(page.data.map((row) => [row.value, row.count]));
  };
  const deadline = Date.now() + 5_000;
  let actual = await read();
  while (JSON.stringify(actual) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    actual = await read();
  }
  expect(actual, JSON.stringify(query)).toEqual(expected);
}

async function visit(path: string): Promise<void> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${origin}${path}`, { waitUntil: "load" });
  await page.waitForTimeout(200);
  await page.close({ runBeforeUnload: true });
  expect(errors, "page errors").toEqual([]);
}

describe.skipIf(skip)("other tools' snippets in Chromium → Tally", () => {
  beforeAll(async () => {
    browser = await launchChromium(["--host-resolver-rules=MAP shop.example 127.0.0.1, MAP bots.example 127.0.0.1"]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    stored = await createTestTally("sqlite", { flushIntervalMs: 100 });
    tally = stored.tally;
    const { accountId } = await tally.accounts.create();
    shop = (await tally.websites.create(accountId, { domain: "shop.example", exclude_bots: 0 })).id;
    botShop = (await tally.websites.create(accountId, { domain: "bots.example" })).id;
    const handler = toNodeHandler(tally, { basePath: "/analytics" });
    server = createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path.startsWith("/analytics/")) return handler(req, res);
      if (path === "/npm/plausible.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(plausibleModule);
      res.writeHead(pages.has(path) ? 200 : 404, { "content-type": "text/html; charset=utf-8" }).end(pages.get(path) ?? "");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://shop.example:${(server.address() as AddressInfo).port}`;
    context = await browser.newContext({ screen: { width: 1280, height: 720 }, viewport: { width: 1280, height: 720 } });
  });
  afterEach(async () => {
    await context?.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await stored.dispose();
    pages.clear();
  });

  it("Plausible's snippet: a pageview, and plausible('Signup', {props}) queued before the script loads", async () => {
    pages.set(
      "/pricing",
      html(
        "<script>window.plausible=window.plausible||function(){(plausible.q=plausible.q||[]).push(arguments)}</script>" +
          '<script defer data-domain="shop.example" src="/analytics/js/script.js"></script>' +
          "<script>plausible('Signup', {props: {plan: 'pro'}})</script>",
      ),
    );
    await visit("/pricing");
    await expectRows(shop, { name: "page" }, { "/pricing": 1 });
    await expectRows(shop, { name: "event_property", event: "Signup", property: "plan" }, { pro: 1 });
    await expectRows(shop, { name: "resolution" }, { "1280x720": 1 });
  });

  it("Plausible's data-exclude and script.manual.js", async () => {
    const tag = (file: string, attrs = "") => `<script defer data-domain="shop.example" ${attrs} src="/analytics/js/${file}"></script>`;
    pages.set("/private/area", html(tag("script.js", 'data-exclude="/private/*"')));
    pages.set("/manual", html(tag("script.manual.js") + "<script>addEventListener('load', () => plausible('pageview'))</script>"));
    pages.set("/quiet", html(tag("script.manual.js")));
    for (const path of ["/private/area", "/manual", "/quiet"]) await visit(path);
    await expectRows(shop, { name: "page" }, { "/manual": 1 });
  });

  it(
    "Plausible's script.tagged-events.js: tagged elements send their event and props on click, tagged forms on submit",
    { timeout: 60_000 },
    async () => {
      pages.set(
        "/signup",
        html(
          '<script defer data-domain="shop.example" src="/analytics/js/script.outbound-links.tagged-events.js"></script>',
          '<button class="plausible-event-name=Signup plausible-event-plan=Pro+Plus"><span id="inner">Sign up</span></button>' +
            '<div class="plausible-event-name=Docs+Link"><a id="docs" href="https://elsewhere.example/docs" target="_blank">Docs</a></div>' +
            '<a id="away" href="https://elsewhere.example/away" target="_blank">Away</a>' +
            '<button id="plain">Nothing</button>' +
            '<form class="plausible-event-name=Newsletter plausible-event-list--weekly" action="/thanks">' +
            '<button id="subscribe">Subscribe</button></form>',
        ),
      );
      pages.set("/thanks", html(""));
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${origin}/signup`, { waitUntil: "load" });
      // A click within the tagged button, an outbound link within a tagged element (its tagged event only), an untagged
      // outbound link, an untagged button, then a tagged form's submission.
      await page.click("#inner");
      await page.click("#docs");
      await page.click("#away");
      await page.click("#plain");
      await Promise.all([page.waitForURL(/\/thanks\b/), page.click("#subscribe")]);
      await page.close();
      expect(errors, "page errors").toEqual([]);
      await expectRows(shop, { name: "event" }, { "Docs Link": 1, Newsletter: 1, "Outbound Link: Click": 1, Signup: 1 });
      await expectRows(shop, { name: "event_property", event: "Signup", property: "plan" }, { "Pro Plus": 1 });
      await expectRows(shop, { name: "event_property", event: "Docs Link", property: "url" }, { "https://elsewhere.example/docs": 1 });
      await expectRows(
        shop,
        { name: "event_property", event: "Outbound Link: Click", property: "url" },
        { "https://elsewhere.example/away": 1 },
      );
      await expectRows(shop, { name: "event_property", event: "Newsletter", property: "list" }, { weekly: 1 });
    },
  );

  it("@plausible-analytics/tracker (the npm package) pointed at Tally's /api/event", async () => {
    pages.set(
      "/app",
      html(
        '<script type="module">import { init, track } from "/npm/plausible.js";' +
          `init({ domain: "shop.example", endpoint: location.origin + "/analytics/api/event", captureOnLocalhost: true,` +
          ` customProperties: { author: "Jane" } });` +
          "track('Purchase', { props: { plan: 'team' } });</script>",
      ),
    );
    await visit("/app");
    await expectRows(shop, { name: "page" }, { "/app": 1 });
    await expectRows(shop, { name: "event_property", event: "Purchase", property: "plan" }, { team: 1 });
    // customProperties go with every hit: the pageview's properties too (Plausible's custom properties for pageviews).
    await expectRows(shop, { name: "event_property", event: "pageview", property: "author" }, { Jane: 1 });
    await expectRows(shop, { name: "event_property", event: "Purchase", property: "author" }, { Jane: 1 });
  });

  it("@plausible-analytics/tracker's engagement event: its sd is the page's scroll depth", async () => {
    const init = `init({ domain: "shop.example", endpoint: location.origin + "/analytics/api/event", captureOnLocalhost: true });`;
    pages.set(
      "/long",
      html(`<script type="module">import { init } from "/npm/plausible.js";${init}</script>`, '<div style="height:3600px">long</div>'),
    );
    const page = await context.newPage();
    await page.goto(`${origin}/long`, { waitUntil: "load" });
    await page.waitForTimeout(200);
    await page.evaluate(() => scrollTo(0, 1800));
    await page.waitForTimeout(200);
    // The package's own measure: the bottom of the window seen, over the page's tallest height.
    const expected = await page.evaluate(() => {
      const [body, root] = [document.body, document.documentElement];
      const height = Math.max(
        body.scrollHeight,
        body.offsetHeight,
        body.clientHeight,
        root.scrollHeight,
        root.offsetHeight,
        root.clientHeight,
      );
      return Math.round(((scrollY + innerHeight) / height) * 100);
    });
    expect(expected).toBeGreaterThan(60);
    expect(expected).toBeLessThan(80);
    await page.close({ runBeforeUnload: true }); // hidden: the package sends its engagement event
    const scrolled = async () => {
      await tally.flush();
      const { data } = await tally.stats.queryWebsite(shop, { name: "scroll_depth", from: today(), to: today() });
      return data.map((row) => [row.value, row.count, row.average]);
    };
    await expect.poll(scrolled, { timeout: 5_000 }).toEqual([["/long", 1, expected]]);
  });

  it("Umami's snippet and umami.track in its documented forms", async () => {
    pages.set(
      "/docs",
      html(
        `<script defer src="/analytics/umami.js" data-website-id="${UMAMI_ID}"></script>` +
          "<script>addEventListener('load', () => { umami.track('Signup', { plan: 'pro' }); umami.track((props) => ({ ...props, name: 'Shared', data: { via: 'fn' } })); umami.track({ website: '" +
          UMAMI_ID +
          "', hostname: 'shop.example', url: '/virtual', title: 'Virtual' }); })</script>",
      ),
    );
    pages.set(
      "/elsewhere",
      html(`<script defer src="/analytics/umami.js" data-website-id="${UMAMI_ID}" data-domains="other.example"></script>`),
    );
    await visit("/docs");
    await visit("/elsewhere");
    await expectRows(shop, { name: "page" }, { "/docs": 1, "/virtual": 1 });
    await expectRows(shop, { name: "event" }, { Signup: 1, Shared: 1 });
    await expectRows(shop, { name: "event_property", event: "Signup", property: "plan" }, { pro: 1 });
    await expectRows(shop, { name: "event_property", event: "Shared", property: "via" }, { fn: 1 });
  });

  it("a GoatCounter /count pixel in an <img>, and bots dropped as on /collect", async () => {
    pages.set("/blog/hello", html("", '<img src="/analytics/count?p=/blog/hello&t=Hello" alt="">'));
    await visit("/blog/hello");
    await expectRows(shop, { name: "page" }, { "/blog/hello": 1 });
    // The same pixel on a website that drops bots: headless Chromium is one.
    const page = await context.newPage();
    const answer = page.waitForResponse((response) => response.url().includes("/count?"));
    await page.goto(origin.replace("shop.example", "bots.example") + "/blog/hello");
    expect((await answer).headers()["x-tally-dropped"]).toBe("bot");
    await page.close();
    await expectRows(botShop, { name: "pageviews" }, {});
  });
});
