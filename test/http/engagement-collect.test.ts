import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, expectJson, type ApiBody, type ApiClient, type ApiResponse } from "../support/api-client.js";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";

// Scroll depth (`d`) and web vitals (`w`) ride on the engagement signal (`e`): checked,
// then kept per signal in `page_engagement`, on both databases, through a real server.
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const node = transports.find((transport) => transport.name === "node:http") ?? transports[0]!;

async function send(served: Served, body: string | object, userAgent = CHROME): Promise<ApiResponse> {
  const response = await served.fetch("/collect", {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "text/plain;charset=UTF-8", "user-agent": userAgent },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as ApiBody };
}

interface StoredSignal {
  page: string;
  engaged_ms: number;
  scroll_depth: number | null;
  lcp: number | null;
  inp: number | null;
  cls: number | null;
  fcp: number | null;
  ttfb: number | null;
}

describe.each(DIALECTS)("engagement signals with scroll depth and web vitals on %s", (dialect) => {
  let stored: TestTally;
  let tally: Tally;
  let served: Served;
  let owner: ApiClient;
  let siteId: number;
  const url = (path: string) => `https://engaged.example${path}`;

  const signals = async (): Promise<StoredSignal[]> => {
    const rows = await stored.sql<StoredSignal>(
      `select d.value as page, e.engaged_ms, e.scroll_depth, e.lcp, e.inp, e.cls, e.fcp, e.ttfb
       from page_engagement e join dimensions d on d.id = e.page order by e.time, d.value, e.engaged_ms`,
    );
    // PostgreSQL answers bigint and double columns as they come; compare numbers.
    return rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null || key === "page" ? value : Number(value)])),
    ) as unknown as StoredSignal[];
  };

  beforeAll(async () => {
    stored = await createTestTally(dialect);
    tally = stored.tally;
    const account = await tally.accounts.create({ name: "engaged" });
    siteId = (await tally.websites.create(account.accountId, { domain: "engaged.example" })).id;
    served = await node.serve(tally);
    owner = apiClient(served, account.key);
  });

  afterAll(async () => {
    await served.close();
    await stored.dispose();
  });

  it("keeps each signal's page, engaged time, scroll depth and vitals; a signal without d or w keeps its time only", async () => {
    expect((await send(served, { u: url("/article") })).status).toBe(202);
    expect((await send(served, { u: url("/article"), e: 12_400, d: 40 })).status).toBe(202);
    const vitals = { lcp: 2100.4, inp: 180, cls: 0.123456, fcp: 900, ttfb: 310 };
    expect((await send(served, { u: url("/article"), e: 3_000, d: 85, w: vitals })).status).toBe(202);
    expect((await send(served, { u: url("/pricing") })).status).toBe(202);
    expect((await send(served, { u: url("/pricing"), e: 5_000 })).status).toBe(202);
    expect((await send(served, { u: url("/pricing"), e: 0, w: { lcp: 4500 } })).status).toBe(202);
    await tally.flush();
    const rows = await signals();
    expect(rows).toHaveLength(4);
    expect(rows).toEqual(
      expect.arrayContaining([
        { page: "/article", engaged_ms: 12_400, scroll_depth: 40, lcp: null, inp: null, cls: null, fcp: null, ttfb: null },
        { page: "/article", engaged_ms: 3_000, scroll_depth: 85, lcp: 2100, inp: 180, cls: 0.1235, fcp: 900, ttfb: 310 },
        { page: "/pricing", engaged_ms: 5_000, scroll_depth: null, lcp: null, inp: null, cls: null, fcp: null, ttfb: null },
        { page: "/pricing", engaged_ms: 0, scroll_depth: null, lcp: 4500, inp: null, cls: null, fcp: null, ttfb: null },
      ]),
    );
    // The visit's engaged seconds are the signals' sum, as before.
    const [visit] = await stored.sql<{ engaged: number }>("select sum(engaged) as engaged from visits");
    expect(Number(visit?.engaged)).toBe(12 + 3 + 5);
  });

  it("a signal with no visit to join (nobody seen) stores nothing", async () => {
    const before = (await signals()).length;
    expect((await send(served, { u: url("/lonely"), e: 4_000, d: 50 }, `${CHROME} stranger`)).status).toBe(202);
    await tally.flush();
    expect(await signals()).toHaveLength(before);
  });

  describe("out-of-range d and w are a 400 JSON error, and nothing is stored", () => {
    const page = url("/article");
    const cases: [string, object, RegExp | string][] = [
      ["d above 100", { u: page, e: 1000, d: 101 }, "Invalid hit: The scroll depth must be an integer percentage from 0 to 100."],
      ["d negative", { u: page, e: 1000, d: -1 }, "Invalid hit: The scroll depth must be an integer percentage from 0 to 100."],
      ["d not an integer", { u: page, e: 1000, d: 50.5 }, "Invalid hit: The scroll depth must be an integer percentage from 0 to 100."],
      ["d a string", { u: page, e: 1000, d: "50" }, /^Invalid hit: d: /],
      ["d without e", { u: page, d: 50 }, "Invalid hit: The scroll depth is sent with an engagement signal (e)."],
      ["w without e", { u: page, w: { lcp: 100 } }, "Invalid hit: The web vitals are sent with an engagement signal (e)."],
      ["w not an object", { u: page, e: 1000, w: [1, 2] }, /^Invalid hit: w: /],
      ["w with an unknown key", { u: page, e: 1000, w: { lcp: 100, fid: 20 } }, /^Invalid hit: w: /],
      [
        "a negative vital",
        { u: page, e: 1000, w: { inp: -5 } },
        "Invalid hit: The web vital inp must be a number from 0 to 600000 (milliseconds).",
      ],
      [
        "a vital too large",
        { u: page, e: 1000, w: { lcp: 600_001 } },
        "Invalid hit: The web vital lcp must be a number from 0 to 600000 (milliseconds).",
      ],
      ["CLS too large", { u: page, e: 1000, w: { cls: 10.5 } }, "Invalid hit: The web vital cls must be a number from 0 to 10."],
      ["a vital a string", { u: page, e: 1000, w: { ttfb: "300" } }, /^Invalid hit: w\.ttfb: /],
    ];

    let before: StoredSignal[];
    beforeAll(async () => {
      await tally.flush();
      before = await signals();
    });

    it.each(cases)("%s", async (_name, body, message) => {
      const response = await send(served, body);
      expectJson(response, 400);
      expect(response.body.message).toEqual(typeof message === "string" ? message : expect.stringMatching(message));
    });

    it("a non-finite vital sent as a huge number is refused", async () => {
      const response = await send(served, `{"u":"${page}","e":1000,"w":{"lcp":1e999}}`);
      expectJson(response, 400);
    });

    it("afterwards nothing more is stored", async () => {
      await tally.flush();
      expect(await signals()).toEqual(before);
    });
  });

  it("the library's collect API takes the same fields and refuses the same values", async () => {
    await expect(
      tally.collect({ url: url("/article"), ip: "203.0.113.9", userAgent: CHROME, engagedMs: 100, scrollDepth: 101 }),
    ).rejects.toMatchObject({ errors: { d: ["The scroll depth must be an integer percentage from 0 to 100."] } });
    await tally.collect({ url: url("/api-page"), ip: "203.0.113.9", userAgent: CHROME });
    await tally.collect({
      url: url("/api-page"),
      ip: "203.0.113.9",
      userAgent: CHROME,
      engagedMs: 700,
      scrollDepth: 100,
      vitals: { cls: 0 },
    });
    await tally.flush();
    expect((await signals()).filter((row) => row.page === "/api-page")).toEqual([
      { page: "/api-page", engaged_ms: 700, scroll_depth: 100, lcp: null, inp: null, cls: 0, fcp: null, ttfb: null },
    ]);
  });

  it("the statistics over HTTP: scroll_depth, time_on_page and vitals per page, with totals and a filter", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const ask = async (query: string) => {
      const response = await owner.get(`/api/v1/stats/${siteId}?from=${today}&to=${today}&sort_by=value&sort=asc&${query}`);
      expectJson(response, 200);
      return response.body as { data: Record<string, unknown>[]; total: number };
    };
    // Chrome's visit: /article deepest 85 of 40 and 85, engaged 12.4 + 3 s; /pricing 5 s. The library's visit: /api-page 100, 0.7 s.
    const scroll = await ask("name=scroll_depth");
    expect(scroll.data).toEqual([
      { value: "/api-page", count: 1, average: 100, median: 100 },
      { value: "/article", count: 1, average: 85, median: 85 },
    ]);
    // `total` is the range's figure: the mean of every visit's deepest scroll on a page.
    expect(scroll.total).toBe(92.5);
    const time = await ask("name=time_on_page");
    expect(time.data).toEqual([
      { value: "/api-page", count: 1, seconds: 0.7 },
      { value: "/article", count: 1, seconds: 15.4 },
      { value: "/pricing", count: 1, seconds: 5 },
    ]);
    expect(time.total).toBe(7);
    const vitals = await ask("name=vitals");
    const poorLcp = { count: 1, p75: 4500, good: 0, needs_improvement: 0, poor: 100 };
    expect(vitals.data.find((row) => row.value === "/pricing")).toEqual({
      value: "/pricing",
      count: 1,
      vitals: { lcp: poorLcp, inp: null, cls: null, fcp: null, ttfb: null },
    });
    const article = vitals.data.find((row) => row.value === "/article")!.vitals as Record<string, { p75: number; good: number }>;
    expect(article.lcp).toMatchObject({ p75: 2100, good: 100 });
    expect(article.cls).toMatchObject({ p75: 0.1235, good: 0, needs_improvement: 100 });
    // A filter keeps the visits that match it: only the library's visit saw /api-page.
    const filtered = await ask("name=time_on_page&filter=page:is:/api-page");
    expect(filtered.data).toEqual([{ value: "/api-page", count: 1, seconds: 0.7 }]);
    const bad = await owner.get(`/api/v1/stats/${siteId}?name=vitals&from=${today}&to=${today}&filter=nope:is:x`);
    expect(bad.status).toBeGreaterThanOrEqual(400);
  });
});
