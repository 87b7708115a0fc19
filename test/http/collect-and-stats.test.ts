import type { Tally, TrustProxy } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectInvalid, expectJson, form, jsonBody, type ApiBody, type ApiClient, type ApiResponse } from "../support/api-client.js";
import { apiMatrix, clickhouseCell } from "../support/matrix.js";
import { createTempTally, servedWithTwoAccounts, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served, type Transport } from "../support/transports.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const ACCEPTED = { message: "Accepted.", status: 202 };
const DAY_MS = 86_400_000;
const day = (offset = 0) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

/** Sends one hit the way the tracker does: a text/plain POST, no credentials. */
async function sendHit(served: Served, body: string | Uint8Array | object, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const payload = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
  const response = await served.fetch("/collect", {
    method: "POST",
    body: payload as BodyInit,
    headers: { "content-type": "text/plain;charset=UTF-8", "user-agent": CHROME, ...headers },
  });
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.startsWith("application/json") ?? false;
  return { status: response.status, headers: response.headers, text, body: (isJson && text ? JSON.parse(text) : {}) as ApiBody };
}

function expectCors(response: { headers: Headers }): void {
  expect(response.headers.get("access-control-allow-origin")).toBe("*");
}

function expectAccepted(response: ApiResponse): void {
  expectJson(response, 202);
  expectCors(response);
  expect(response.body).toEqual(ACCEPTED);
  expect(response.headers.get("x-tally-dropped")).toBeNull();
}

function expectDropped(response: ApiResponse, reason: string): void {
  expectJson(response, 202);
  expectCors(response);
  expect(response.headers.get("x-tally-dropped")).toBe(reason);
  expect(response.body).toEqual({ message: `Dropped: ${reason}.`, status: 202 });
}

/** Sum of `pageviews` (and the rows) of a website around today, read through the API. */
async function pageviewsAroundToday(client: ApiClient, websiteId: number): Promise<number> {
  const response = await client.get(`/api/v1/stats/${websiteId}?name=pageviews&from=${day(-1)}&to=${day(1)}`);
  expectJson(response, 200);
  return (response.body.data as { count: number }[]).reduce((sum, row) => sum + row.count, 0);
}

async function pageCount(client: ApiClient, websiteId: number, page: string): Promise<number> {
  const response = await client.get(`/api/v1/stats/${websiteId}?name=page&from=${day(-1)}&to=${day(1)}&per_page=100`);
  expectJson(response, 200);
  return (response.body.data as { value: string; count: number }[]).find((row) => row.value === page)?.count ?? 0;
}

/** What is stored, read by a second connection to the database itself. */
async function storedRollups(stored: TestTally): Promise<{ rows: number; pageviews: number }> {
  const [row] = await stored.sql<{ rows: number; pageviews: number }>(
    "select count(*) as rows, coalesce(sum(case when name = 'pageviews' then count else 0 end), 0) as pageviews from rollups",
  );
  return { rows: Number(row?.rows), pageviews: Number(row?.pageviews) };
}

describe.each([...apiMatrix, clickhouseCell])("collect, script and stats over $name", ({ transport, dialect, clickhouse }) => {
  let tally: Tally;
  let stored: TestTally;
  let dispose: () => Promise<void>;
  let served: Served;
  let alice: ApiClient;
  let bob: ApiClient;
  let anonymous: ApiClient;
  let aliceId: number;
  let siteId: number;

  beforeAll(async () => {
    ({ stored, tally, served, aliceId, alice, bob, anonymous, dispose } = await servedWithTwoAccounts(transport, dialect, { clickhouse }));
    siteId = (await tally.websites.create(aliceId, { domain: "collect.example" })).id;
  });

  afterAll(() => dispose());

  describe("POST /collect", () => {
    it("202 for a text/plain hit, and it is counted", async () => {
      const response = await sendHit(served, {
        u: "https://collect.example/plain",
        r: "https://news.example/",
        s: "1920x1080",
        l: "en-US",
      });
      expectAccepted(response);
      expect(await pageCount(alice, siteId, "/plain")).toBe(1);
    });

    it("202 for application/json", async () => {
      const response = await sendHit(served, { u: "https://collect.example/json" }, { "content-type": "application/json" });
      expectAccepted(response);
      expect(await pageCount(alice, siteId, "/json")).toBe(1);
    });

    it("counts an event with properties as an event, not a pageview", async () => {
      expectAccepted(
        await sendHit(served, { u: "https://collect.example/pricing", n: "signup", p: { plan: "pro", seats: 3, trial: true } }),
      );
      const events = await alice.get(`/api/v1/stats/${siteId}?name=event&from=${day(-1)}&to=${day(1)}`);
      expect(events.body.data).toEqual([{ value: "signup", count: 1 }]);
      expect(await pageCount(alice, siteId, "/pricing")).toBe(0);
    });

    it("counts a pageview's properties (p; n: pageview is a pageview): listed under the event pageview, selected by prop: filters", async () => {
      expectAccepted(await sendHit(served, { u: "https://collect.example/posts/props", p: { author: "Jane", words: 1200 } }));
      expectAccepted(await sendHit(served, { u: "https://collect.example/posts/named", n: "pageview", p: { author: "Bob" } }));
      expect(await pageCount(alice, siteId, "/posts/props")).toBe(1);
      expect(await pageCount(alice, siteId, "/posts/named")).toBe(1);
      const range = `from=${day(-1)}&to=${day(1)}`;
      const authors = await alice.get(`/api/v1/stats/${siteId}?name=event_property&event=pageview&property=author&${range}`);
      expect(authors.body.data).toEqual([
        { value: "Bob", count: 1 },
        { value: "Jane", count: 1 },
      ]);
      const words = await alice.get(`/api/v1/stats/${siteId}?name=event_property&event=pageview&property=words&${range}`);
      expect(words.body.data).toEqual([{ value: "1200", count: 1 }]);
      // One visit has every hit of this suite: the filter keeps the pageview that has the property, not the visit's others.
      const pages = await alice.get(`/api/v1/stats/${siteId}?name=page&filter=prop:author:is:Jane&${range}`);
      expect(pages.body.data).toEqual([{ value: "/posts/props", count: 1 }]);
      const events = await alice.get(`/api/v1/stats/${siteId}?name=event&${range}`);
      expect(events.body.data.map((row: { value: string }) => row.value)).not.toContain("pageview");
    });

    it("accepts an engagement signal (e): no pageview, no event", async () => {
      expectAccepted(await sendHit(served, { u: "https://collect.example/engaged" }));
      expectAccepted(await sendHit(served, { u: "https://collect.example/engaged", s: "1920x1080", l: "en-US", e: 12_500 }));
      expect(await pageCount(alice, siteId, "/engaged")).toBe(1);
      const events = await alice.get(`/api/v1/stats/${siteId}?name=event&from=${day(-1)}&to=${day(1)}&search=engaged`);
      expect(events.body.data).toEqual([]);
    });

    it("OPTIONS is a 204 preflight answer with the CORS headers", async () => {
      const response = await served.fetch("/collect", {
        method: "OPTIONS",
        headers: {
          origin: "https://collect.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe("");
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
      expect(response.headers.get("access-control-allow-headers")).toBe("Content-Type");
      expect(response.headers.get("access-control-max-age")).toBe("86400");
    });

    it("exposes X-Tally-Dropped to the page", async () => {
      const response = await sendHit(served, { u: "https://collect.example/" });
      expect(response.headers.get("access-control-expose-headers")).toBe("X-Tally-Dropped");
    });

    it("drops a bot with exclude_bots 1, counts it with exclude_bots 0", async () => {
      const botSite = (await tally.websites.create(aliceId, { domain: "bots.example" })).id;
      expectDropped(await sendHit(served, { u: "https://bots.example/bot" }, { "user-agent": "curl/8.0" }), "bot");
      expect(await pageCount(alice, botSite, "/bot")).toBe(0);

      await tally.websites.update(aliceId, botSite, { exclude_bots: "0" });
      expectAccepted(await sendHit(served, { u: "https://bots.example/bot" }, { "user-agent": "curl/8.0" }));
      expect(await pageCount(alice, botSite, "/bot")).toBe(1);
    });

    it("drops referrer spam (a listed host or its subdomain) with exclude_bots 1, counts it with exclude_bots 0", async () => {
      const spamSite = (await tally.websites.create(aliceId, { domain: "spam.example" })).id;
      for (const referrer of ["https://semalt.com/", "http://www.Darodar.com/x", "https://forum.buttons-for-website.com/"])
        expectDropped(await sendHit(served, { u: "https://spam.example/landing", r: referrer }), "referrer-spam");
      expectAccepted(await sendHit(served, { u: "https://spam.example/landing", r: "https://notsemalt.com/" }));
      expect(await pageCount(alice, spamSite, "/landing")).toBe(1);
      await tally.websites.update(aliceId, spamSite, { exclude_bots: "0" });
      expectAccepted(await sendHit(served, { u: "https://spam.example/landing", r: "https://semalt.com/" }));
      expect(await pageCount(alice, spamSite, "/landing")).toBe(2);
    });

    it("drops a hit from an excluded IP (the socket's, 127.0.0.1)", async () => {
      const excluded = (await tally.websites.create(aliceId, { domain: "excluded.example", exclude_ips: "10.0.0.0/8\n127.0.0.1" })).id;
      expectDropped(await sendHit(served, { u: "https://excluded.example/x" }), "excluded-ip");
      expect(await pageCount(alice, excluded, "/x")).toBe(0);
      await tally.websites.update(aliceId, excluded, { exclude_ips: "127.0.0.0/8" });
      expectDropped(await sendHit(served, { u: "https://excluded.example/x" }), "excluded-ip");
      await tally.websites.update(aliceId, excluded, { exclude_ips: "::1\n10.0.0.1" });
      expectAccepted(await sendHit(served, { u: "https://excluded.example/x" }));
      expect(await pageCount(alice, excluded, "/x")).toBe(1);
    });

    it("404 JSON for a host no website has", async () => {
      for (const u of ["https://unknown.example/", "https://sub.collect.example/", "http://127.0.0.2/"]) {
        const response = await sendHit(served, { u });
        expectJson(response, 404);
        expectCors(response);
        expect(response.body).toEqual({ message: "No website is registered for this host.", status: 404 });
      }
    });

    it("routes a www. host (any case) to the website", async () => {
      expectAccepted(await sendHit(served, { u: "https://www.collect.example/www" }));
      expectAccepted(await sendHit(served, { u: "https://WWW.Collect.Example/www" }));
      expect(await pageCount(alice, siteId, "/www")).toBe(2);
    });

    it("a website with include_subdomains counts its subdomains, each host its own hostname and visits", async () => {
      const subs = (await tally.websites.create(aliceId, { domain: "subs.example" })).id;
      const own = (await tally.websites.create(aliceId, { domain: "own.subs.example" })).id;
      // Off (the default): a subdomain is a host no website has.
      expectJson(await sendHit(served, { u: "https://blog.subs.example/off" }), 404);
      expectJson(await alice.put(`/api/v1/websites/${subs}`, form({ include_subdomains: 1 })), 200);
      // On, at once: any depth, www. stripped; a subdomain that is a website of its own keeps its hits.
      expectAccepted(await sendHit(served, { u: "https://www.Blog.subs.example/a" }));
      expectAccepted(await sendHit(served, { u: "https://blog.subs.example/b", r: "https://blog.subs.example/a" }));
      expectAccepted(await sendHit(served, { u: "https://subs.example/c", r: "https://blog.subs.example/b" }));
      expectAccepted(await sendHit(served, { u: "https://eu.shop.subs.example/d" }));
      expectAccepted(await sendHit(served, { u: "https://own.subs.example/e" }));
      const stats = async (id: number, name: string, filter = "") => {
        const response = await alice.get(`/api/v1/stats/${id}?name=${name}&from=${day(-1)}&to=${day(1)}${filter && `&filter=${filter}`}`);
        expectJson(response, 200);
        return Object.fromEntries((response.body.data as { value: string; count: number }[]).map((row) => [row.value, row.count]));
      };
      expect(await stats(subs, "hostname")).toEqual({ "blog.subs.example": 2, "subs.example": 1, "eu.shop.subs.example": 1 });
      expect(await stats(own, "hostname")).toEqual({ "own.subs.example": 1 });
      // Another host of the website is a referrer; the same host is not. A page on another host starts a visit.
      expect(await stats(subs, "referrer")).toEqual({ "blog.subs.example": 1 });
      expect(Object.values(await stats(subs, "visits")).reduce((sum, n) => sum + n, 0)).toBe(3);
      expect(await stats(subs, "page", "hostname:is:blog.subs.example")).toEqual({ "/a": 1, "/b": 1 });
      expect(await stats(subs, "hostname", "hostname:contains:SHOP")).toEqual({ "eu.shop.subs.example": 1 });
      expect(await stats(subs, "hostname", "hostname:is_not:subs.example")).toEqual({ "blog.subs.example": 2, "eu.shop.subs.example": 1 });
      expect(await stats(subs, "hostname", "page:is:/c")).toEqual({ "subs.example": 1 });
      // Off again: the subdomains are unknown at once.
      expectJson(await alice.put(`/api/v1/websites/${subs}`, jsonBody({ include_subdomains: 0 })), 200);
      expectJson(await sendHit(served, { u: "https://blog.subs.example/off-again" }), 404);
    });

    it("never trusts a client timestamp: a `t` key is ignored, the server clock is used", async () => {
      expectAccepted(await sendHit(served, { u: "https://collect.example/clock", t: 0, timestamp: "2001-01-01T00:00:00Z" }));
      expect(await pageCount(alice, siteId, "/clock")).toBe(1);
      for (const [from, to] of [
        ["1970-01-01", "1970-01-02"],
        ["2001-01-01", "2001-01-01"],
      ]) {
        const past = await alice.get(`/api/v1/stats/${siteId}?name=page&from=${from}&to=${to}`);
        expect(past.body.data).toEqual([]);
      }
    });

    describe("bad bodies are a 400 and store nothing", () => {
      const url = "https://collect.example/garbage";
      const invalidUtf8 = new Uint8Array([...Buffer.from('{"u":"https://collect.example/'), 0xff, 0xfe, ...Buffer.from('"}')]);
      const cases: [string, string | Uint8Array, string | RegExp][] = [
        ["an empty body", "", "The request body is not valid JSON."],
        ["not JSON", "u=https://collect.example/", "The request body is not valid JSON."],
        ["truncated JSON", '{"u":"https://collect.example/"', "The request body is not valid JSON."],
        ["a JSON array", JSON.stringify([{ u: url }]), "The request body must be a JSON object."],
        ["a JSON string", JSON.stringify(url), "The request body must be a JSON object."],
        ["JSON null", "null", "The request body must be a JSON object."],
        ["no u", JSON.stringify({ r: "https://collect.example/" }), /^Invalid hit: u: /],
        ["u not a string", JSON.stringify({ u: 42 }), /^Invalid hit: u: /],
        ["u not a URL", JSON.stringify({ u: "collect.example/garbage" }), "Invalid hit: The page URL is not a valid URL."],
        ["u an ftp: URL", JSON.stringify({ u: "ftp://collect.example/garbage" }), "Invalid hit: The page URL must be http or https."],
        ["u a javascript: URL", JSON.stringify({ u: "javascript:alert(1)" }), "Invalid hit: The page URL must be http or https."],
        ["u too long", JSON.stringify({ u: `${url}?${"x".repeat(2048)}` }), "Invalid hit: The page URL is missing or too long."],
        ["p not an object", JSON.stringify({ u: url, n: "e", p: "plan=pro" }), /^Invalid hit: p: /],
        ["p an array", JSON.stringify({ u: url, n: "e", p: ["pro"] }), /^Invalid hit: p: /],
        ["p with a nested object", JSON.stringify({ u: url, n: "e", p: { plan: { name: "pro" } } }), /^Invalid hit: p\.plan: /],
        ["p with null", JSON.stringify({ u: url, n: "e", p: { plan: null } }), /^Invalid hit: p\.plan: /],
        [
          "p with too many keys",
          JSON.stringify({ u: url, n: "e", p: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, i])) }),
          "Invalid hit: At most 30 event properties are allowed.",
        ],
        [
          "a p value too long",
          JSON.stringify({ u: url, n: "e", p: { plan: "x".repeat(501) } }),
          /^Invalid hit: The event property "plan" must be/,
        ],
        ["invalid UTF-8 bytes", invalidUtf8, "The request body is not valid UTF-8."],
        ["n too long", JSON.stringify({ u: url, n: "x".repeat(201) }), "Invalid hit: The event name must be 1 to 200 characters."],
        ["n blank", JSON.stringify({ u: url, n: "   " }), "Invalid hit: The event name must be 1 to 200 characters."],
        ["n not a string", JSON.stringify({ u: url, n: 5 }), /^Invalid hit: n: /],
        ["r not a string", JSON.stringify({ u: url, r: { host: "x" } }), /^Invalid hit: r: /],
        ["e not a number", JSON.stringify({ u: url, e: "5000" }), /^Invalid hit: e: /],
        ["e negative", JSON.stringify({ u: url, e: -1 }), "Invalid hit: The engaged time must be a number of milliseconds, 0 or more."],
        ["e with an event name", JSON.stringify({ u: url, n: "x", e: 5000 }), "Invalid hit: An engagement signal has no event name."],
      ];

      let before: { rows: number; pageviews: number };
      let apiBefore: number;
      beforeAll(async () => {
        await tally.flush();
        before = await storedRollups(stored);
        apiBefore = await pageviewsAroundToday(alice, siteId);
      });

      it.each(cases)("%s", async (_name, body, message) => {
        const response = await sendHit(served, body);
        expectJson(response, 400);
        expectCors(response);
        expect(response.body.message).toEqual(typeof message === "string" ? message : expect.stringMatching(message));
        expect(Object.keys(response.body).sort()).toEqual(["message", "status"]);
      });

      it("a JSON array sent as application/json is refused too", async () => {
        const response = await sendHit(served, JSON.stringify([{ u: url }]), { "content-type": "application/json" });
        expectJson(response, 400);
        expect(response.body).toEqual({ message: "The request body must be a JSON object.", status: 400 });
      });

      it("afterwards, nothing was stored: not through the API, not in the rollups table", async () => {
        await tally.flush();
        expect(await storedRollups(stored)).toEqual(before);
        expect(await pageviewsAroundToday(alice, siteId)).toBe(apiBefore);
        expect(await pageCount(alice, siteId, "/garbage")).toBe(0);
      });
    });

    it("a body over 16 KiB is a 413; exactly 16 KiB is accepted", async () => {
      const padded = (size: number) => {
        const head = '{"u":"https://collect.example/big","pad":"';
        return `${head}${"x".repeat(size - head.length - 2)}"}`;
      };
      expect(Buffer.byteLength(padded(16 * 1024))).toBe(16 * 1024);
      expectAccepted(await sendHit(served, padded(16 * 1024)));

      const tooLarge = await sendHit(served, padded(16 * 1024 + 1));
      expectJson(tooLarge, 413);
      expectCors(tooLarge);
      expect(tooLarge.body).toEqual({ message: "The request body is too large.", status: 413 });
      expect(await pageCount(alice, siteId, "/big")).toBe(1);
      // The connection may be closed after a 413; the next hit still works.
      expectAccepted(await sendHit(served, { u: "https://collect.example/after-413" }));
    });

    it("a body far over the limit is a 413 with CORS too", async () => {
      const huge = `{"u":"https://collect.example/huge","pad":"${"x".repeat(200_000)}"}`;
      const response = await sendHit(served, huge);
      expectJson(response, 413);
      expectCors(response);
      expect(await pageCount(alice, siteId, "/huge")).toBe(0);
    });

    it("other methods on /collect are a 405 naming POST and OPTIONS", async () => {
      const response = await anonymous.get("/collect");
      expectJson(response, 405);
      expect(response.headers.get("allow")).toBe("POST, OPTIONS");
    });
  });

  describe("GET /script.js", () => {
    it("200 text/javascript with Cache-Control and an ETag", async () => {
      const response = await served.fetch("/script.js");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("public, max-age=86400, stale-while-revalidate=604800");
      expect(response.headers.get("etag")).toMatch(/^"[^"]+"$/);
      const body = await response.text();
      expect(body.length).toBeGreaterThan(100);
      expect(body).toContain("collect");
    });

    it("If-None-Match with the ETag (strong, weak, in a list, or *) is a 304 without a body", async () => {
      const etag = (await served.fetch("/script.js")).headers.get("etag")!;
      for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const response = await served.fetch("/script.js", { headers: { "if-none-match": tag } });
        expect(response.status).toBe(304);
        expect(await response.text()).toBe("");
        expect(response.headers.get("etag")).toBe(etag);
        expect(response.headers.get("cache-control")).toContain("max-age=86400");
      }
      const stale = await served.fetch("/script.js", { headers: { "if-none-match": '"stale-tag"' } });
      expect(stale.status).toBe(200);
      expect((await stale.text()).length).toBeGreaterThan(100);
    });

    it("HEAD answers the headers without a body", async () => {
      const get = await served.fetch("/script.js");
      const response = await served.fetch("/script.js", { method: "HEAD" });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(response.headers.get("etag")).toBe(get.headers.get("etag"));
      expect(await response.text()).toBe("");
    });
  });

  describe("GET /api/v1/stats/{id}", () => {
    let statsId: number;
    const at = (iso: string) => new Date(iso).getTime();
    const path = (query: string) => `/api/v1/stats/${statsId}?${query}`;
    const link = (query: string) => `${served.base}/api/v1/stats/${statsId}?${query}`;

    beforeAll(async () => {
      statsId = (await tally.websites.create(aliceId, { domain: "stats.example" })).id;
      const hits = [
        {
          url: "https://stats.example/a",
          ip: "203.0.113.1",
          userAgent: CHROME,
          timestamp: at("2026-01-10T10:15:00Z"),
          referrer: "https://www.news.example/story",
        },
        { url: "https://stats.example/b", ip: "203.0.113.1", userAgent: CHROME, timestamp: at("2026-01-10T10:20:00Z") },
        { url: "https://stats.example/a", ip: "203.0.113.2", userAgent: FIREFOX, timestamp: at("2026-01-10T14:00:00Z") },
        {
          url: "https://stats.example/a?utm_campaign=launch&ref=mail&fbclid=x1",
          ip: "203.0.113.1",
          userAgent: CHROME,
          timestamp: at("2026-01-11T09:00:00Z"),
        },
        { url: "https://stats.example/b", ip: "203.0.113.1", userAgent: CHROME, timestamp: at("2026-01-11T09:05:00Z"), event: "signup" },
        { url: "https://stats.example/c", ip: "203.0.113.3", userAgent: CHROME, timestamp: at("2026-02-01T23:59:00Z") },
      ];
      for (const hit of hits) expect(await tally.collect(hit)).toEqual({ status: "accepted" });
      await tally.flush();
    });

    it("pageviews per day, in the list envelope", async () => {
      const response = await alice.get(path("name=pageviews&from=2026-01-01&to=2026-01-31"));
      expectJson(response, 200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.body).toEqual({
        data: [
          { value: "2026-01-10", count: 3 },
          { value: "2026-01-11", count: 1 },
        ],
        current_page: 1,
        last_page: 1,
        per_page: 10,
        total: 2,
        from: 1,
        to: 2,
        links: {
          first: link("name=pageviews&from=2026-01-01&to=2026-01-31&page=1"),
          last: link("name=pageviews&from=2026-01-01&to=2026-01-31&page=1"),
          prev: null,
          next: null,
        },
        meta: {
          current_page: 1,
          from: 1,
          last_page: 1,
          path: `${served.base}/api/v1/stats/${statsId}`,
          per_page: 10,
          to: 2,
          total: 2,
        },
        status: 200,
      });
    });

    it("visitors, pages, landing pages, referrers, campaigns and events", async () => {
      const rows = async (query: string) => {
        const response = await alice.get(path(query));
        expectJson(response, 200);
        return response.body.data;
      };
      const range = "from=2026-01-01&to=2026-02-28";
      expect(await rows(`name=visitors&${range}&sort_by=value&sort=asc`)).toEqual([
        { value: "2026-01-10", count: 2 },
        { value: "2026-01-11", count: 1 },
        { value: "2026-02-01", count: 1 },
      ]);
      expect(await rows(`name=page&${range}`)).toEqual([
        { value: "/a", count: 2 },
        { value: "/a?ref=mail", count: 1 },
        { value: "/b", count: 1 },
        { value: "/c", count: 1 },
      ]);
      expect(await rows(`name=landing_page&${range}`)).toEqual([
        { value: "/a", count: 2 },
        { value: "/a?ref=mail", count: 1 },
        { value: "/c", count: 1 },
      ]);
      expect(await rows(`name=referrer&${range}`)).toEqual([{ value: "news.example", count: 1 }]);
      expect(await rows(`name=campaign&${range}`)).toEqual([{ value: "launch", count: 1 }]);
      expect(await rows(`name=event&${range}`)).toEqual([{ value: "signup", count: 1 }]);
      expect(await rows(`name=pageviews_hours&${range}&sort_by=value&sort=asc`)).toEqual([
        { value: "09", count: 1 },
        { value: "10", count: 2 },
        { value: "14", count: 1 },
        { value: "23", count: 1 },
      ]);
      // The range is inclusive on both ends and cuts at day boundaries.
      expect(await rows("name=pageviews&from=2026-01-11&to=2026-02-01&sort_by=value")).toEqual([
        { value: "2026-02-01", count: 1 },
        { value: "2026-01-11", count: 1 },
      ]);
      expect(await rows("name=page&from=2026-01-11&to=2026-01-11")).toEqual([{ value: "/a?ref=mail", count: 1 }]);
      expect(await rows("name=page&from=2025-01-01&to=2025-12-31")).toEqual([]);
    });

    it("search by value or url (same meaning), sort, and pages", async () => {
      const range = "from=2026-01-01&to=2026-02-28";
      for (const searchBy of ["", "&search_by=value", "&search_by=url"]) {
        const response = await alice.get(path(`name=page&${range}&search=%2FA${searchBy}`));
        expectJson(response, 200);
        expect(response.body.data).toEqual([
          { value: "/a", count: 2 },
          { value: "/a?ref=mail", count: 1 },
        ]);
      }
      const second = await alice.get(path(`name=page&${range}&sort_by=value&sort=desc&per_page=10&page=1`));
      expect((second.body.data as { value: string }[]).map((row) => row.value)).toEqual(["/c", "/b", "/a?ref=mail", "/a"]);

      const beyond = await alice.get(path(`name=page&${range}&page=2`));
      expectJson(beyond, 200);
      expect(beyond.body.data).toEqual([]);
      expect(beyond.body.meta).toMatchObject({ current_page: 2, from: null, to: null, last_page: 1, total: 4 });
      expect(beyond.body.links).toMatchObject({ prev: link(`name=page&${range}&page=1`), next: null });
    });

    it("a range of exactly 3660 days is accepted", async () => {
      // 2016-01-01 + 3660 days = 2026-01-08.
      expectJson(await alice.get(path("name=pageviews&from=2016-01-01&to=2026-01-08")), 200);
    });

    it("a long range reaching before the first data is answered from the first data, with a Warning", async () => {
      const whole = await alice.get(path("name=pageviews&from=2026-01-01&to=2026-03-31&sort_by=value&sort=asc"));
      const first = (whole.body.data as { value: string }[])[0]!.value;
      const response = await alice.get(path("name=pageviews&from=1970-01-01&to=2026-03-31&sort_by=value&sort=asc"));
      expectJson(response, 200);
      expect(response.body.data).toEqual(whole.body.data);
      expect(response.headers.get("warning")).toBe(`299 - "The range begins before the website's first data; answered from ${first}"`);
      expect(whole.headers.get("warning")).toBeNull();
    });

    it.each([
      ["from=2026-01-01&to=2026-01-31", { name: ["The name field is required."] }],
      ["name=pageviews&to=2026-01-31", { from: ["The from field is required."] }],
      ["name=pageviews&from=2026-01-01", { to: ["The to field is required."] }],
      ["", { name: ["The name field is required."], from: ["The from field is required."], to: ["The to field is required."] }],
      ["name=hits&from=2026-01-01&to=2026-01-31", { name: ["The selected name is invalid."] }],
      ["name=PAGEVIEWS&from=2026-01-01&to=2026-01-31", { name: ["The selected name is invalid."] }],
      ["name=pageviews&from=2026-02-30&to=2026-03-01", { from: ["The from is not a valid date in the format Y-m-d."] }],
      ["name=pageviews&from=2026-01-01&to=2026-13-01", { to: ["The to is not a valid date in the format Y-m-d."] }],
      ["name=pageviews&from=20260101&to=2026-01-31", { from: ["The from is not a valid date in the format Y-m-d."] }],
      ["name=pageviews&from=2026-1-1&to=2026-01-31", { from: ["The from is not a valid date in the format Y-m-d."] }],
      ["name=pageviews&from=2026-01-01T00:00:00Z&to=2026-01-31", { from: ["The from is not a valid date in the format Y-m-d."] }],
      ["name=pageviews&from=2026-02-01&to=2026-01-31", { to: ["The to must be a date after or equal to from."] }],
      // Longer than the limit from the first data: 2026-01-10 + 3660 days = 2036-01-18.
      ["name=pageviews&from=2026-01-10&to=2036-01-19", { to: ["The range may not be longer than 3660 days."] }],
      ["name=pageviews&from=1900-01-01&to=2026-01-01", { from: ["The from must be a date from 1970-01-01 to 9998-12-31."] }],
      ["name=page&from=2026-1-1&to=2026-01-31&sort=up&per_page=20", { from: ["The from is not a valid date in the format Y-m-d."] }],
      ["name=page&from=2026-01-01&to=2026-01-31&page=0", { page: ["The page must be an integer greater than 0."] }],
      ["name=page&from=2026-01-01&to=2026-01-31&page=x", { page: ["The page must be an integer greater than 0."] }],
      [
        `name=page&from=2026-01-01&to=2026-01-31&search=${"a".repeat(256)}`,
        { search: ["The search may not be longer than 255 characters."] },
      ],
    ])("422 for ?%s", async (query, errors) => {
      expectInvalid(await alice.get(path(query)), errors);
    });

    it("another account's website and a missing one are the same 404", async () => {
      const notFound = { message: "Resource not found.", status: 404 };
      for (const response of [
        await bob.get(path("name=pageviews&from=2026-01-01&to=2026-01-31")),
        await alice.get("/api/v1/stats/987654?name=pageviews&from=2026-01-01&to=2026-01-31"),
      ]) {
        expectJson(response, 404);
        expect(response.body).toEqual(notFound);
      }
    });

    it("an id that is not a positive integer is a 404", async () => {
      for (const id of ["abc", "1.5", "0", "-1", "1e3"]) {
        const response = await alice.get(`/api/v1/stats/${id}?name=pageviews&from=2026-01-01&to=2026-01-31`);
        expectJson(response, 404);
        expect(response.body).toEqual({ message: "Resource not found.", status: 404 });
      }
    });

    it("401 without a key (before anything else is checked)", async () => {
      for (const query of ["name=pageviews&from=2026-01-01&to=2026-01-31", "name=nope"]) {
        const response = await anonymous.get(path(query));
        expectJson(response, 401);
        expect(response.body).toEqual({ message: "Unauthenticated.", status: 401 });
      }
    });
  });
});

describe.each(transports)("client IP and trustProxy over $name", (transport: Transport) => {
  /** One Tally per trustProxy setting, with one website whose exclude_ips reveals the IP used. */
  async function setup(trustProxy: TrustProxy | undefined) {
    const fixture = createTempTally(trustProxy === undefined ? {} : { trustProxy });
    const served = await transport.serve(fixture.tally);
    const { accountId } = await fixture.tally.accounts.create();
    const { id } = await fixture.tally.websites.create(accountId, { domain: "proxy.example", exclude_bots: "0" });
    return {
      /** Asserts that this request is counted as coming from `expected` and from none of `others`. */
      async expectClientIp(headers: Record<string, string>, expected: string, others: string[]) {
        await fixture.tally.websites.update(accountId, id, { exclude_ips: expected });
        expectDropped(await sendHit(served, { u: "https://proxy.example/" }, headers), "excluded-ip");
        for (const other of others) {
          await fixture.tally.websites.update(accountId, id, { exclude_ips: other });
          expectAccepted(await sendHit(served, { u: "https://proxy.example/" }, headers));
        }
      },
      async close() {
        await served.close();
        await fixture.dispose();
      },
    };
  }

  const XFF = "203.0.113.9, 198.51.100.7";

  it("by default (false) the headers are ignored: the socket's 127.0.0.1 is used", async () => {
    for (const trust of [undefined, false] as const) {
      const site = await setup(trust);
      try {
        await site.expectClientIp({ "x-forwarded-for": XFF }, "127.0.0.1", ["203.0.113.9", "198.51.100.7"]);
        await site.expectClientIp({ forwarded: 'for="[2001:db8::1]:4711"' }, "127.0.0.1", ["2001:db8::1"]);
      } finally {
        await site.close();
      }
    }
  });

  it("true: one hop, the last X-Forwarded-For entry (what the client wrote to its left is never read)", async () => {
    const site = await setup(true);
    try {
      await site.expectClientIp({ "x-forwarded-for": XFF }, "198.51.100.7", ["203.0.113.9", "127.0.0.1"]);
      await site.expectClientIp({ "x-forwarded-for": "unknown, 198.51.100.7" }, "198.51.100.7", ["127.0.0.1"]);
      // A last entry that is not an address falls back to the socket.
      await site.expectClientIp({ "x-forwarded-for": "198.51.100.7, unknown" }, "127.0.0.1", ["198.51.100.7"]);
      // Without any forwarding header, the socket.
      await site.expectClientIp({}, "127.0.0.1", ["203.0.113.9"]);
    } finally {
      await site.close();
    }
  });

  it("a hop count of 1: the last X-Forwarded-For entry", async () => {
    const site = await setup(1);
    try {
      await site.expectClientIp({ "x-forwarded-for": XFF }, "198.51.100.7", ["203.0.113.9", "127.0.0.1"]);
      await site.expectClientIp({ "x-forwarded-for": "203.0.113.9" }, "203.0.113.9", ["127.0.0.1"]);
    } finally {
      await site.close();
    }
  });

  it("a hop count of 2: the second entry from the right", async () => {
    const site = await setup(2);
    try {
      await site.expectClientIp({ "x-forwarded-for": `192.0.2.1, ${XFF}` }, "203.0.113.9", ["192.0.2.1", "198.51.100.7", "127.0.0.1"]);
    } finally {
      await site.close();
    }
  });

  it('a CIDR list ["127.0.0.1/32"]: the nearest untrusted hop, walking from the right', async () => {
    const site = await setup(["127.0.0.1/32"]);
    try {
      await site.expectClientIp({ "x-forwarded-for": `${XFF}, 127.0.0.1` }, "198.51.100.7", ["203.0.113.9", "127.0.0.1"]);
      await site.expectClientIp({ "x-forwarded-for": XFF }, "198.51.100.7", ["203.0.113.9", "127.0.0.1"]);
    } finally {
      await site.close();
    }
  });

  it("a CIDR list that does not contain the peer: the headers are ignored", async () => {
    const site = await setup(["10.0.0.0/8", "192.168.0.0/16"]);
    try {
      await site.expectClientIp({ "x-forwarded-for": XFF }, "127.0.0.1", ["203.0.113.9", "198.51.100.7"]);
    } finally {
      await site.close();
    }
  });

  it('Forwarded: for="[2001:db8::1]:4711" is honoured when the peer is trusted', async () => {
    for (const trust of [true, 1, ["127.0.0.0/8"]] as TrustProxy[]) {
      const site = await setup(trust);
      try {
        await site.expectClientIp({ forwarded: 'for="[2001:db8::1]:4711"' }, "2001:db8::1", ["127.0.0.1"]);
        await site.expectClientIp({ forwarded: "for=192.0.2.60;proto=http;by=203.0.113.43" }, "192.0.2.60", ["127.0.0.1", "203.0.113.43"]);
      } finally {
        await site.close();
      }
    }
  });
});
