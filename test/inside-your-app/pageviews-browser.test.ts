// Server-side pageviews (docs/guide/inside-your-app.md): a real Express app and a real Fastify
// app on port 0, each with Tally mounted and its counting middleware, visited by headless
// Chromium with and without JavaScript, read back in-process.
//
// Chromium runs with a desktop Chrome user agent (a switch, so that the beacon of a page
// being left carries it too): its own says "HeadlessChrome", which isbot calls a bot, and
// these websites drop bots (the default), as the bot test shows.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import Database from "better-sqlite3";
import express from "express";
import Fastify from "fastify";
import type { Tally } from "@tally-analytics/core";
import { countPageviews, toNodeHandler } from "@tally-analytics/server/node";
import { tallyPageviews, tallyPlugin } from "@tally-analytics/server/fastify";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";

warnIfSkipped("pageviews-browser");

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** A page of the app, with the tracker (and a stylesheet and an API call, which are no pages). */
const trackedPage = (title: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/style.css">` +
  `<script defer src="/analytics/script.js"></script></head><body><h1>${title}</h1>` +
  `<script>fetch("/api/orders/7").catch(() => {})</script></body></html>`;

interface App {
  /** http://127.0.0.1:port */
  origin: string;
  close(): Promise<void>;
}

/** The same app twice: pages `/`, `/orders/:id` and `/shop/:slug`, a stylesheet, a JSON API; Tally under /analytics. */
const FRAMEWORKS: Record<string, (tally: Tally) => Promise<App>> = {
  async express(tally) {
    const app = express();
    app.use("/analytics", toNodeHandler(tally));
    app.use(countPageviews(tally));
    app.get("/style.css", (_req, res) => void res.type("text/css").send("h1 { color: teal }"));
    app.get("/api/orders/:id", (req, res) => void res.json({ id: req.params.id }));
    app.get("/orders/:id", (req, res) => void res.type("html").send(trackedPage(`Order ${req.params.id}`)));
    app.get("/shop/:slug", (req, res) => void res.type("html").send(trackedPage(`Shop ${req.params.slug}`)));
    app.get("/", (_req, res) => void res.type("html").send(trackedPage("Home")));
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    return {
      origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      async close() {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  },
  async fastify(tally) {
    const app = Fastify();
    await app.register(tallyPlugin, { tally, prefix: "/analytics" });
    await app.register(tallyPageviews, { tally, exclude: ["/analytics"] });
    app.get("/style.css", async (_request, reply) => reply.type("text/css").send("h1 { color: teal }"));
    app.get<{ Params: { id: string } }>("/api/orders/:id", async (request) => ({ id: request.params.id }));
    app.get<{ Params: { id: string } }>("/orders/:id", async (request, reply) =>
      reply.type("text/html").send(trackedPage(`Order ${request.params.id}`)),
    );
    app.get<{ Params: { slug: string } }>("/shop/:slug", async (request, reply) =>
      reply.type("text/html").send(trackedPage(`Shop ${request.params.slug}`)),
    );
    app.get("/", async (_request, reply) => reply.type("text/html").send(trackedPage("Home")));
    await app.listen({ port: 0, host: "127.0.0.1" });
    return { origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  },
};

const today = () => new Date().toISOString().slice(0, 10);

let browser: Browser;

for (const [framework, start] of Object.entries(FRAMEWORKS)) {
  describe.skipIf(skip)(`server-side pageviews with ${framework}, in Chromium`, () => {
    let tally: Tally;
    let file: string;
    let dispose: () => Promise<void>;
    let accountId: number;
    let key: string;
    let websiteId: number;
    let app: App;
    let context: BrowserContext;

    beforeAll(async () => {
      browser ??= await launchChromium([`--user-agent=${CHROME}`]);
    });

    afterAll(async () => {
      if (framework === "fastify") await browser?.close();
    });

    beforeEach(async () => {
      ({ tally, file, dispose } = createTempTally({ flushIntervalMs: 50 }));
      ({ accountId, key } = await tally.accounts.create({ name: "shop" }));
      websiteId = (await tally.websites.create(accountId, { domain: "127.0.0.1" })).id;
      app = await start(tally);
    });

    afterEach(async () => {
      await context?.close();
      await app.close();
      await dispose();
    });

    const newContext = async (javaScriptEnabled: boolean) => {
      context = await browser.newContext({
        javaScriptEnabled,
        viewport: { width: 1280, height: 720 },
        screen: { width: 1280, height: 720 },
        locale: "fr-FR",
      });
      return context.newPage();
    };

    /** One statistic for today as {value: count}, after every held and buffered view is written. */
    async function stats(name: string): Promise<Record<string, number>> {
      await tally.flush();
      const page = await tally.stats.query(accountId, websiteId, { name, from: today(), to: today(), per_page: 100 });
      return Object.fromEntries(page.data.map((row) => [row.value, row.count]));
    }

    it("counts pages with JavaScript disabled, with the language the browser asks for", async () => {
      const page = await newContext(false);
      await page.goto(`${app.origin}/`);
      await page.goto(`${app.origin}/orders/83412?tab=items`);
      expect(await stats("pageviews")).toEqual({ [today()]: 2 });
      expect(await stats("page")).toEqual({ "/": 1, "/orders/83412?tab=items": 1 });
      expect(await stats("visits")).toEqual({ [today()]: 1 });
      expect(await stats("browser")).toEqual({ Chrome: 1 });
      expect(await stats("language")).toEqual({ fr: 1 });
      expect(await stats("resolution")).toEqual({}); // only a script knows the screen
    });

    it("counts a page with the tracker once: the tracker's pageview adds screen size and engaged time", async () => {
      const page = await newContext(true);
      const collected = page.waitForResponse((response) => response.url().endsWith("/analytics/collect"));
      const served = await page.goto(`${app.origin}/`);
      expect(served?.headers()["server-timing"]).toMatch(/^tally;desc="[\w-]+"$/);
      const answer = await collected;
      expect(answer.request().postDataJSON()).toMatchObject({ u: `${app.origin}/`, s: "1280x720", v: expect.any(String) });
      expect(answer.status()).toBe(202);
      expect(answer.headers()["x-tally-dropped"]).toBeUndefined();
      await page.waitForTimeout(1_500);
      await page.goto(`${app.origin}/api/orders/1`); // hidden and left: the engagement signal goes out
      await expect.poll(async () => engagedSeconds(), { timeout: 5_000 }).toBeGreaterThanOrEqual(1);

      expect(await stats("pageviews")).toEqual({ [today()]: 1 });
      expect(await stats("page")).toEqual({ "/": 1 });
      expect(await stats("resolution")).toEqual({ "1280x720": 1 });
      expect(await stats("language")).toEqual({ fr: 1 });
      expect(await stats("visits")).toEqual({ [today()]: 1 });
    });

    /** The engaged seconds of the site's visits, as stored. */
    async function engagedSeconds(): Promise<number> {
      await tally.flush();
      const database = new Database(file, { readonly: true });
      try {
        const row = database.prepare("select coalesce(sum(engaged), 0) as engaged from visits").get() as { engaged: number };
        return row.engaged;
      } finally {
        database.close();
      }
    }

    it("does not count prefetches, assets, API calls, bots, errors or Tally's own routes", async () => {
      const get = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${app.origin}${path}`, { headers: { "user-agent": CHROME, accept: BROWSER_ACCEPT, ...headers } });
      expect((await get("/", { "sec-purpose": "prefetch" })).headers.get("server-timing")).toBeNull();
      expect((await get("/", { purpose: "prefetch" })).status).toBe(200);
      expect((await get("/style.css")).status).toBe(200);
      expect((await get("/api/orders/1")).status).toBe(200);
      expect((await get("/api/orders/1", { accept: "application/json" })).status).toBe(200);
      expect((await get("/nowhere")).status).toBe(404);
      expect((await get("/analytics/script.js")).status).toBe(200);
      expect((await get("/", { "sec-fetch-dest": "iframe" })).status).toBe(200);
      // A bot gets the page, marked, but is not counted (the website drops bots).
      expect((await get("/orders/1", { "user-agent": GOOGLEBOT })).status).toBe(200);
      expect(await stats("pageviews")).toEqual({});

      // A real page load counts one view, while its stylesheet and API call do not.
      const page = await newContext(false);
      await page.goto(`${app.origin}/orders/2`);
      expect(await stats("page")).toEqual({ "/orders/2": 1 });
    });

    it("names pages by route template with page_names route: ids never reach the database", async () => {
      const put = (body: object) =>
        fetch(`${app.origin}/analytics/api/v1/websites/${websiteId}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const refused = await put({ page_names: "template" });
      expect(refused.status).toBe(422);
      expect(await refused.json()).toEqual({
        message: "The given data was invalid.",
        errors: { page_names: ["The page names must be one of: path, route."] },
        status: 422,
      });
      const updated = await put({ page_names: "route" });
      expect(((await updated.json()) as { data: { page_names: string } }).data.page_names).toBe("route");

      const plain = await newContext(false);
      await plain.goto(`${app.origin}/orders/83412?tab=items`);
      await plain.goto(`${app.origin}/shop/red-shoes`); // no id in sight: only the route names it
      await context.close();
      const scripted = await newContext(true);
      const collected = scripted.waitForResponse((response) => response.url().endsWith("/analytics/collect"));
      await scripted.goto(`${app.origin}/orders/55501`);
      await collected;
      // A single-page app's navigation has no server view: its path is named with ids as :id.
      const navigated = scripted.waitForResponse((response) => response.url().endsWith("/analytics/collect"));
      await scripted.evaluate(() => history.pushState(null, "", "/orders/77702/items"));
      await navigated;

      expect(await stats("page")).toEqual({ "/orders/:id": 2, "/orders/:id/items": 1, "/shop/:slug": 1 });
      expect(await stats("landing_page")).toEqual({ "/orders/:id": 1 }); // one person (address and user agent): one visit
      expect(await stats("resolution")).toEqual({ "1280x720": 1 });
      const database = new Database(file, { readonly: true });
      try {
        const values = database.prepare("select value from dimensions").all() as { value: string }[];
        expect(values.filter(({ value }) => /83412|55501|77702|items|red-shoes/.test(value) && value !== "/orders/:id/items")).toEqual([]);
      } finally {
        database.close();
      }
    });

    it("answers a forged or stale mark with 202 dropped, and bad hits with 400 JSON", async () => {
      const post = (body: string) =>
        fetch(`${app.origin}/analytics/collect`, { method: "POST", body, headers: { "content-type": "text/plain", "user-agent": CHROME } });
      const stale = await post(JSON.stringify({ u: `${app.origin}/`, v: "not-a-mark" }));
      expect(stale.status).toBe(202);
      expect(stale.headers.get("x-tally-dropped")).toBe("counted");
      const tooLong = await post(JSON.stringify({ u: `${app.origin}/`, v: "x".repeat(65) }));
      expect(tooLong.status).toBe(400);
      expect(await tooLong.json()).toMatchObject({ status: 400, message: expect.stringContaining("v") });
      expect(await stats("pageviews")).toEqual({});
    });
  });
}
