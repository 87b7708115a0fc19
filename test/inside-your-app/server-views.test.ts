// Server-side pageviews in-process: the fetch form of the middleware, the wait after which a
// view is counted alone, and the tracker pageview that completes a view by address, user
// agent and URL when the browser could not read the mark (docs/statistics.md).
import { createTally, type TypedTally } from "@tally-analytics/core";
import { createTestWebsite, recorded } from "@tally-analytics/core/testing";
import { countPageviews } from "@tally-analytics/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const IP = "192.0.2.44";

const navigation = (path: string, headers: Record<string, string> = {}) =>
  new Request(`https://app.test${path}`, {
    headers: { accept: "text/html", "user-agent": CHROME, "sec-fetch-dest": "document", "accept-language": "de-AT,de;q=0.9", ...headers },
  });
const html = () => new Response("<!doctype html><h1>Hi</h1>", { headers: { "content-type": "text/html; charset=utf-8" } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("server-side pageviews in-process", () => {
  let tally: TypedTally<Record<string, Record<string, string>>>;
  let site: { accountId: number; websiteId: number };
  const count = () => countPageviews(tally);

  beforeEach(async () => {
    tally = createTally({ database: ":memory:", serverViewWaitMs: 300 });
    site = await createTestWebsite(tally, "app.test");
  });

  afterEach(() => tally.close());

  it("marks a fetch app's HTML answer and counts it alone once the wait is over", async () => {
    const day = new Date().toISOString().slice(0, 10);
    // Read without flush (which would count it at once): the view waits, then counts by itself.
    const pages = async () => (await tally.stats.query(site.accountId, site.websiteId, { name: "page", from: day, to: day })).data;
    // The first read loads the statistics' code: done before the view, so the read after it is quick.
    expect(await pages()).toEqual([]);
    const response = html();
    count()(navigation("/pricing?plan=pro"), { ip: IP, response });
    expect(response.headers.get("server-timing")).toMatch(/^tally;desc="[\w-]{16}"$/);
    expect(await pages()).toEqual([]);
    await sleep(600);
    expect(await pages()).toEqual([{ value: "/pricing?plan=pro", count: 1 }]);
    expect(await recorded(tally, "app.test", "language")).toEqual({ de: 1 });
  });

  it("keeps the app's own Server-Timing and leaves other answers alone", async () => {
    const response = html();
    response.headers.set("server-timing", "db;dur=12");
    count()(navigation("/"), { ip: IP, response });
    expect(response.headers.get("server-timing")).toMatch(/^db;dur=12, tally;desc=/);
    const json = Response.json({ ok: true });
    count()(navigation("/api/me"), { ip: IP, response: json });
    const missing = new Response("<h1>Not found</h1>", { status: 404, headers: { "content-type": "text/html" } });
    count()(navigation("/gone"), { ip: IP, response: missing });
    count()(navigation("/", { "sec-purpose": "prefetch;prerender" }), { ip: IP, response: html() });
    count()(new Request("https://app.test/", { method: "POST", headers: { accept: "text/html" } }), { ip: IP, response: html() });
    expect(json.headers.get("server-timing")).toBeNull();
    expect(missing.headers.get("server-timing")).toBeNull();
    expect(await recorded(tally, "app.test", "page")).toEqual({ "/": 1 });
  });

  it("completes a view by address, user agent and URL when the tracker sent no mark", async () => {
    count()(navigation("/docs#intro"), { ip: IP, response: html() });
    const tracker = { url: "https://app.test/docs", ip: IP, userAgent: CHROME, screen: "390x844", language: "en-GB" };
    expect(await tally.collect(tracker)).toEqual({ status: "accepted" });
    await sleep(600);
    expect(await recorded(tally, "app.test", "pageviews")).toEqual({ [new Date().toISOString().slice(0, 10)]: 1 });
    expect(await recorded(tally, "app.test", "resolution")).toEqual({ "390x844": 1 });
    expect(await recorded(tally, "app.test", "language")).toEqual({ en: 1 });
    // A second tracker pageview of that page is a view of its own (a reload the server did not see).
    expect(await tally.collect(tracker)).toEqual({ status: "accepted" });
    expect(await recorded(tally, "app.test", "page")).toEqual({ "/docs": 2 });
  });

  it("counts a request alone when the fetch app passes no response, and ignores unknown hosts", async () => {
    count()(navigation("/about"), { ip: IP });
    count()(new Request("https://elsewhere.test/", { headers: { accept: "text/html", "user-agent": CHROME } }), { ip: IP });
    expect(await recorded(tally, "app.test", "page")).toEqual({ "/about": 1 });
  });
});
