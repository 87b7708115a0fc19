// Plausible's, Umami's and GoatCounter's hit endpoints over every transport: they count like
// /collect (bots, excluded addresses), answer like the tool they copy, and a bad request
// changes nothing. @umami/node is the real npm package, posting to a real server.
import { Umami } from "@umami/node";
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const CURL = "curl/8.5.0";
const UMAMI_ID = "b59e9c65-ae32-47f1-8400-119fcf4861c4";
const today = new Date().toISOString().slice(0, 10);

/** One statistic of today, as {value: count}. */
async function rows(tally: Tally, websiteId: number, query: Record<string, string>): Promise<Record<string, number>> {
  await tally.flush();
  const page = await tally.stats.queryWebsite(websiteId, { from: today, to: today, per_page: "100", ...query });
  return Object.fromEntries(page.data.map((row) => [row.value, row.count]));
}

const post = (served: Served, path: string, body: unknown, headers: Record<string, string> = {}) =>
  served.fetch(path, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", "user-agent": CHROME, ...headers },
  });

describe.each(transports)("other tools' hit endpoints ($name)", (transport) => {
  let stored: TestTally;
  let served: Served;
  let shop: number;
  let excluded: number;
  let reading: number;

  beforeAll(async () => {
    stored = await createTestTally("sqlite");
    served = await transport.serve(stored.tally);
    const { accountId } = await stored.tally.accounts.create();
    shop = (await stored.tally.websites.create(accountId, { domain: "shop.example" })).id;
    excluded = (await stored.tally.websites.create(accountId, { domain: "office.example", exclude_ips: "127.0.0.1\n::1" })).id;
    reading = (await stored.tally.websites.create(accountId, { domain: "read.example" })).id;
  });
  afterAll(async () => {
    await served.close();
    await stored.dispose();
  });

  describe("Plausible's POST /api/event", () => {
    it("counts pageviews and events with their props, routed by d, answering 202 ok", async () => {
      const pageview = await post(
        served,
        "/api/event",
        { n: "pageview", u: "https://shop.example/pricing", d: "shop.example", r: null, p: { author: "Jane" } },
        { "content-type": "text/plain" },
      );
      expect(pageview.status).toBe(202);
      expect(await pageview.text()).toBe("ok");
      expect(pageview.headers.get("access-control-allow-origin")).toBe("*");
      // The Events API's long keys, props as JSON text (older scripts), a page on another host of the same site.
      const event = await post(served, "/api/event", {
        name: "Signup",
        url: "https://app.shop.example/pricing",
        domain: "shop.example",
        props: '{"plan":"pro","seats":3,"list":[1]}',
      });
      expect(event.status).toBe(202);
      expect(await rows(stored.tally, shop, { name: "page" })).toEqual({ "/pricing": 1 });
      expect(await rows(stored.tally, shop, { name: "event" })).toEqual({ Signup: 1 });
      expect(await rows(stored.tally, shop, { name: "event_property", event: "Signup", property: "plan" })).toEqual({ pro: 1 });
      expect(await rows(stored.tally, shop, { name: "event_property", event: "Signup", property: "seats" })).toEqual({ 3: 1 });
      // A pageview's props: Plausible's custom properties for pageviews.
      expect(await rows(stored.tally, shop, { name: "event_property", event: "pageview", property: "author" })).toEqual({ Jane: 1 });
    });

    it("drops bots and excluded addresses as /collect does, saying so", async () => {
      const bot = await post(
        served,
        "/api/event",
        { n: "pageview", u: "https://shop.example/bot", d: "shop.example" },
        { "user-agent": CURL },
      );
      expect(bot.status).toBe(202);
      expect(bot.headers.get("x-plausible-dropped")).toBe("1");
      expect(bot.headers.get("x-tally-dropped")).toBe("bot");
      const office = await post(served, "/api/event", { n: "pageview", u: "https://office.example/", d: "office.example" });
      expect(office.headers.get("x-tally-dropped")).toBe("excluded-ip");
      expect(await rows(stored.tally, shop, { name: "page" })).toEqual({ "/pricing": 1 });
      expect(await rows(stored.tally, excluded, { name: "page" })).toEqual({});
    });

    it("keeps an engagement event's e as engaged time and its sd as scroll depth (past 100: 100)", async () => {
      const event = (body: object) =>
        post(served, "/api/event", { d: "read.example", u: "https://read.example/essay", ...body }, { "content-type": "text/plain" });
      const read = async (name: string) => (await stored.tally.stats.queryWebsite(reading, { name, from: today, to: today })).data;
      expect((await event({ n: "pageview" })).status).toBe(202);
      expect((await event({ n: "engagement", e: 4_000, sd: 40, v: 36 })).status).toBe(202);
      expect((await event({ n: "engagement", e: 2_000, sd: 130 })).status).toBe(202);
      await stored.tally.flush();
      expect(await read("scroll_depth")).toEqual([{ value: "/essay", count: 1, average: 100, median: 100 }]);
      expect(await read("time_on_page")).toEqual([{ value: "/essay", count: 1, seconds: 6 }]);
      const bad = await event({ n: "engagement", e: 1_000, sd: "deep" });
      expect(bad.status).toBe(400);
      expect(Object.keys((await bad.json()).errors)).toEqual(["sd"]);
      await stored.tally.flush();
      expect(await read("time_on_page")).toEqual([{ value: "/essay", count: 1, seconds: 6 }]);
    });

    it.each([
      // As Plausible's script sends it: text/plain (a host app's JSON parser never sees it).
      ["{", 400, { request: ["The request body is not valid JSON."] }],
      [{ u: "https://shop.example/" }, 400, { name: ["can't be blank"] }],
      [{ n: "pageview", d: "shop.example" }, 400, { url: ["can't be blank"] }],
      [{ n: "pageview", u: "https://shop.example/", d: "shop.example", p: [1] }, 400, { p: expect.any(Array) }],
      [{ n: "Signup", u: "https://shop.example/", d: "shop.example", p: "nope" }, 400, { props: ["The props are not a JSON object."] }],
      [{ n: "pageview", u: "ftp://shop.example/", d: "shop.example" }, 400, { request: [expect.stringContaining("http or https")] }],
      [{ n: "pageview", u: "https://shop.example/", d: "unknown.example" }, 404, { request: [expect.stringContaining("No website")] }],
    ])("answers %j with %i in Plausible's error shape, changing nothing", async (body, status, errors) => {
      const response = await post(served, "/api/event", body, { "content-type": "text/plain" });
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual({ errors });
      expect(await rows(stored.tally, shop, { name: "pageviews" })).toEqual({ [today]: 1 });
    });
  });

  describe("Umami's POST /api/send", () => {
    it("counts pageviews and events with their data, routed by hostname, answering as Umami", async () => {
      const send = (payload: object) =>
        post(served, "/api/send", { type: "event", payload: { website: UMAMI_ID, hostname: "shop.example", ...payload } });
      const pageview = await send({
        url: "/docs?utm_source=news",
        referrer: "https://news.example/",
        screen: "1920x1080",
        language: "en-US",
        title: "Docs",
      });
      expect(pageview.status).toBe(200);
      expect(await pageview.json()).toEqual({ ok: true });
      expect((await send({ url: "/docs", name: "Download", data: { file: "a.pdf", size: 12, nested: { x: 1 } } })).status).toBe(200);
      expect((await post(served, "/api/send", { type: "identify", payload: { website: UMAMI_ID, data: { plan: "pro" } } })).status).toBe(
        200,
      );
      expect(await rows(stored.tally, shop, { name: "page" })).toEqual({ "/pricing": 1, "/docs": 1 });
      expect(await rows(stored.tally, shop, { name: "event_property", event: "Download", property: "file" })).toEqual({ "a.pdf": 1 });
      expect(await rows(stored.tally, shop, { name: "referrer" })).toEqual({ "news.example": 1 });
      expect(await rows(stored.tally, shop, { name: "resolution" })).toEqual({ "1920x1080": 1 });
    });

    it("answers a bot with beep boop, counting nothing", async () => {
      const bot = await post(
        served,
        "/api/send",
        { type: "event", payload: { website: UMAMI_ID, hostname: "shop.example", url: "/bot" } },
        { "user-agent": CURL },
      );
      expect(bot.status).toBe(200);
      expect(await bot.json()).toEqual({ beep: "boop" });
      expect(bot.headers.get("x-tally-dropped")).toBe("bot");
    });

    it.each([
      ["[]", 400],
      [{ type: "event" }, 400],
      [{ type: "event", payload: { hostname: "shop.example", url: "/" } }, 400],
      [{ type: "nope", payload: { website: UMAMI_ID, hostname: "shop.example" } }, 400],
      [{ type: "event", payload: { website: UMAMI_ID, hostname: "unknown.example", url: "/" } }, 400],
    ])("answers %j with %i in Umami's error shape, changing nothing", async (body, status) => {
      const response = await post(served, "/api/send", body, { "content-type": "text/plain" });
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual({ error: { message: expect.any(String), code: "bad-request", status } });
      expect(await rows(stored.tally, shop, { name: "pageviews" })).toEqual({ [today]: 2 });
    });

    it("answers the preflight its script's JSON needs", async () => {
      const response = await served.fetch("/api/send", { method: "OPTIONS" });
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-headers")).toContain("x-umami-cache");
    });
  });

  describe("GoatCounter's GET /count", () => {
    const count = (query: string, headers: Record<string, string> = {}) =>
      served.fetch(`/count?${query}`, { headers: { "user-agent": CHROME, referer: "https://shop.example/blog/post", ...headers } });

    it("counts a pageview of p on the Referer's host, or an event, answering a 1×1 GIF", async () => {
      const pixel = await count("p=/blog/post&q=%3Futm_campaign%3Dspring&s=1280,720,2&t=Post");
      expect(pixel.status).toBe(200);
      expect(pixel.headers.get("content-type")).toBe("image/gif");
      expect(
        Buffer.from(await pixel.arrayBuffer())
          .subarray(0, 6)
          .toString(),
      ).toBe("GIF89a");
      expect((await count("p=share-click&e=true")).status).toBe(200);
      expect(await rows(stored.tally, shop, { name: "page" })).toEqual({ "/pricing": 1, "/docs": 1, "/blog/post": 1 });
      expect(await rows(stored.tally, shop, { name: "campaign" })).toEqual({ spring: 1 });
      expect(await rows(stored.tally, shop, { name: "event" })).toEqual({ Signup: 1, Download: 1, "share-click": 1 });
    });

    it("counts count.js's beacon (a POST with the same query)", async () => {
      const beacon = await served.fetch("/count?p=/beacon", {
        method: "POST",
        headers: { "user-agent": CHROME, referer: "https://shop.example/beacon" },
      });
      expect(beacon.status).toBe(200);
      expect(await rows(stored.tally, shop, { name: "page" })).toMatchObject({ "/beacon": 1 });
    });

    it("drops bots (by user agent, or count.js's b flag) and excluded addresses", async () => {
      for (const answer of [await count("p=/bot", { "user-agent": CURL }), await count("p=/bot&b=152")]) {
        expect(answer.status).toBe(200);
        expect(answer.headers.get("x-tally-dropped")).toBe("bot");
      }
      expect((await count("p=/", { referer: "https://office.example/" })).headers.get("x-tally-dropped")).toBe("excluded-ip");
      expect(await rows(stored.tally, shop, { name: "pageviews" })).toEqual({ [today]: 4 });
    });

    it("refuses a pixel without p or without a page to route by, changing nothing", async () => {
      const missing = await count("t=x");
      expect(missing.status).toBe(422);
      const anonymous = await served.fetch("/count?p=/x", { headers: { "user-agent": CHROME } });
      expect(anonymous.status).toBe(400);
      expect(await anonymous.json()).toEqual({ message: "The pixel's page is unknown: the request has no Referer header.", status: 400 });
      expect(await rows(stored.tally, shop, { name: "pageviews" })).toEqual({ [today]: 4 });
    });
  });

  describe("script paths", () => {
    it.each(["/js/script.js", "/js/script.hash.outbound-links.js", "/js/script.manual.js", "/umami.js"])("serves %s", async (path) => {
      const response = await served.fetch(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(await response.text()).toMatch(/^\(\(\)=>\{/);
    });

    it("answers other /js/ names with 404", async () => {
      expect((await served.fetch("/js/other.js")).status).toBe(404);
    });
  });
});

describe.each(["sqlite", "postgres"] as const)("Umami's website id as a website's alias (%s)", (dialect) => {
  let stored: TestTally;
  let served: Served;
  let site: number;
  let accountId: number;

  beforeAll(async () => {
    stored = await createTestTally(dialect);
    served = await transports[1]!.serve(stored.tally);
    accountId = (await stored.tally.accounts.create()).accountId;
    site = (await stored.tally.websites.create(accountId, { domain: "alias.example", aliases: UMAMI_ID.toUpperCase() })).id;
  });
  afterAll(async () => {
    await served.close();
    await stored.dispose();
  });

  it("routes @umami/node's track(name, data), which sends no hostname, by the website id", async () => {
    expect((await stored.tally.websites.get(accountId, site)).aliases).toBe(UMAMI_ID);
    const umami = new Umami({ hostUrl: served.base, websiteId: UMAMI_ID, userAgent: CHROME });
    const event = await umami.track("Signup", { plan: "pro" });
    expect(event.status).toBe(200);
    // The alias wins over a hostname that names no website.
    expect((await umami.track({ website: UMAMI_ID, hostname: "elsewhere.example", url: "/pricing" })).status).toBe(200);
    expect(await rows(stored.tally, site, { name: "event_property", event: "Signup", property: "plan" })).toEqual({ pro: 1 });
    expect(await rows(stored.tally, site, { name: "page" })).toEqual({ "/pricing": 1 });
  });

  it("keeps aliases free across accounts and apart from domains", async () => {
    const other = (await stored.tally.accounts.create()).accountId;
    for (const aliases of [UMAMI_ID, "alias.example", "not an id"]) {
      await expect(stored.tally.websites.create(other, { domain: `other-${aliases.length}.example`, aliases })).rejects.toMatchObject({
        errors: { aliases: [expect.stringContaining(aliases)] },
      });
    }
    await expect(stored.tally.websites.create(other, { domain: UMAMI_ID })).rejects.toMatchObject({
      errors: { domain: ["The domain has already been taken."] },
    });
    // The website itself may keep its alias on update.
    expect((await stored.tally.websites.update(accountId, site, { aliases: `${UMAMI_ID}\nshop-id` })).aliases).toBe(`${UMAMI_ID}\nshop-id`);
  });
});

describe("@umami/node against a real server", () => {
  it("is counted", async () => {
    const stored = await createTestTally("sqlite");
    const served = await transports[1]!.serve(stored.tally);
    try {
      const { accountId } = await stored.tally.accounts.create();
      const site = await stored.tally.websites.create(accountId, { domain: "node.example" });
      const umami = new Umami({ hostUrl: served.base, websiteId: UMAMI_ID, userAgent: CHROME });
      const pageview = await umami.track({ website: UMAMI_ID, hostname: "node.example", url: "/checkout" });
      expect(pageview.status).toBe(200);
      const event = await umami.track({
        website: UMAMI_ID,
        hostname: "node.example",
        url: "/checkout",
        name: "Paid",
        data: { plan: "pro" },
      });
      expect(await event.json()).toEqual({ ok: true });
      expect(await rows(stored.tally, site.id, { name: "page" })).toEqual({ "/checkout": 1 });
      expect(await rows(stored.tally, site.id, { name: "event_property", event: "Paid", property: "plan" })).toEqual({ pro: 1 });
    } finally {
      await served.close();
      await stored.dispose();
    }
  });
});
