// The live view, the sessions explorer and property names through HTTP: the last 30 minutes
// minute by minute with their pages, sources and countries as the hits say; the hits the
// website's rules dropped, with why, and those of unknown hosts near its domain; the range's sessions newest first, filtered and paged,
// and one session's hits in order (`(none)`: the visits without a value); an event's property names from the data. The fetch
// handler, both dialects, and SQLite with ClickHouse embedded through chDB (which then answers them).
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, expectInvalid, expectJson, type ApiClient } from "../support/api-client.js";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { GEOIP_FIXTURE } from "../dashboard/demo-data.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const handler = transports.find((transport) => transport.name === "fetch handler")!;
const MINUTE = 60_000;

/** Each dialect, and SQLite with ClickHouse through chDB. */
const STORES = [
  ...DIALECTS.map((dialect) => ({ name: dialect, dialect, clickhouse: false })),
  { name: "ClickHouse (chDB)", dialect: "sqlite" as const, clickhouse: true },
];

describe.each(STORES)("live view and sessions on $name", ({ dialect, clickhouse }) => {
  let stored: TestTally;
  let tally: Tally;
  let served: Served;
  let owner: ApiClient;
  let id = 0;
  const now = Date.now();
  const today = new Date(now).toISOString().slice(0, 10);
  // The range starts yesterday: 45 minutes ago may be yesterday (UTC, the website's zone).
  const yesterday = new Date(now - 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    stored = await createTestTally(dialect, { retentionIntervalMs: 0, geoip: GEOIP_FIXTURE }, { clickhouse });
    tally = stored.tally;
    const { accountId, key } = await tally.accounts.create();
    id = (await tally.websites.create(accountId, { domain: "live.example", exclude_ips: "203.0.113.9" })).id;
    const visit = async (person: number, minutesAgo: number, pages: string[], referrer = "") => {
      for (const [index, page] of pages.entries())
        await tally.collect({
          url: `https://live.example${page}`,
          ip: `81.2.69.${140 + person}`,
          userAgent: CHROME,
          referrer: index === 0 ? referrer : "",
          timestamp: now - minutesAgo * MINUTE + index * 1000,
        });
    };
    await visit(0, 2, ["/", "/pricing"], "https://news.example/");
    await visit(1, 2, ["/pricing"]);
    await visit(2, 12, ["/blog"], "https://news.example/");
    await visit(3, 45, ["/old"]);
    await tally.collect({
      url: "https://live.example/pricing",
      ip: "81.2.69.140",
      userAgent: CHROME,
      event: "Signup",
      props: { plan: "pro", seats: 3 },
      timestamp: now - 2 * MINUTE + 5000,
    });
    // Dropped: a bot, and an excluded address.
    await tally.collect({ url: "https://live.example/crawled?x=1", ip: "81.2.69.150", userAgent: BOT, timestamp: now });
    await tally.collect({ url: "https://live.example/office", ip: "203.0.113.9", userAgent: CHROME, timestamp: now });
    // Dropped for hosts no website has: a subdomain of the website's, another site, a developer's machine.
    for (const url of ["https://shop.live.example/cart?id=1", "https://elsewhere.example/x", "http://localhost:3000/dev"])
      await expect(tally.collect({ url, ip: "81.2.69.150", userAgent: CHROME, timestamp: now })).rejects.toThrow(/No website/);
    await tally.flush();
    served = await handler.serve(tally);
    owner = apiClient(served, key);
  });

  afterAll(async () => {
    await served?.close();
    await stored?.dispose();
  });

  it("the live view: the last 30 minutes by minute, their pages, sources and countries, the latest hit and the dropped hits", async () => {
    const answer = await owner.get(`/api/v1/live/${id}`);
    expectJson(answer, 200);
    const live = answer.body.data as {
      visitors: number;
      minutes: { minute: string; visitors: number; pageviews: number }[];
      pages: { value: string; visitors: number }[];
      sources: { value: string; visitors: number }[];
      countries: { value: string; visitors: number }[];
      last_hit: { at: string; page: string } | null;
      dropped: { reason: string; host: string; page: string }[];
    };
    expect(live.visitors).toBe(2);
    expect(live.minutes).toHaveLength(30);
    expect(live.minutes.reduce((sum, minute) => sum + minute.pageviews, 0)).toBe(4);
    // The pageviews of the minute `ago` minutes before the hits were sent, and the next (a hit a second later may fall into it).
    const around = (ago: number) => {
      const at = live.minutes.findIndex((minute) => minute.minute === new Date(now - ago * MINUTE).toISOString().slice(11, 16));
      return live.minutes.slice(at, at + 2).reduce((sum, minute) => sum + minute.pageviews, 0);
    };
    expect(around(2)).toBe(3);
    expect(around(12)).toBe(1);
    expect(live.pages).toEqual([
      { value: "/pricing", visitors: 2 },
      { value: "/", visitors: 1 },
      { value: "/blog", visitors: 1 },
    ]);
    expect(live.sources.map((row) => row.visitors).reduce((a, b) => a + b, 0)).toBe(3);
    expect(live.sources).toContainEqual({ value: "news.example", visitors: 2 });
    expect(live.countries.reduce((sum, row) => sum + row.visitors, 0)).toBe(3);
    expect(live.last_hit?.page).toBe("/pricing");
    const ruled = live.dropped.filter((drop) => drop.reason !== "unknown-website");
    expect(ruled.map(({ reason, host, page }) => [reason, host, page])).toEqual([
      ["excluded-ip", "live.example", "/office"],
      ["bot", "live.example", "/crawled"],
    ]);
    // Those of unknown hosts that concern this website (not elsewhere.example), newest first.
    const unknown = live.dropped.filter((drop) => drop.reason === "unknown-website");
    expect(unknown.map(({ host, page }) => [host, page])).toEqual([
      ["localhost:3000", "/dev"],
      ["shop.live.example", "/cart"],
    ]);
  });

  it("sessions: newest first, paged, filtered; one session's pageviews and events in order with their properties", async () => {
    const page = await owner.get(`/api/v1/stats/${id}/sessions?from=${yesterday}&to=${today}&per_page=10`);
    expectJson(page, 200);
    const sessions = page.body.data as {
      id: number;
      entry_page: string;
      exit_page: string;
      pageviews: number;
      events: number;
      referrer: string;
    }[];
    // Two visits started in the same second: the later one written first.
    expect(sessions.map((session) => session.entry_page)).toEqual(["/pricing", "/", "/blog", "/old"]);
    expect(page.body.meta).toEqual({ current_page: 1, per_page: 10, has_more: false });
    const signedUp = sessions[1]!;
    expect(signedUp).toMatchObject({ entry_page: "/", exit_page: "/pricing", pageviews: 2, events: 1, referrer: "news.example" });

    const filtered = await owner.get(`/api/v1/stats/${id}/sessions?from=${yesterday}&to=${today}&filter=referrer:is:news.example`);
    expect((filtered.body.data as { entry_page: string }[]).map((session) => session.entry_page)).toEqual(["/", "/blog"]);
    // Direct / None: the visits without a referrer, in the sessions as in the totals.
    const direct = await owner.get(`/api/v1/stats/${id}/sessions?from=${yesterday}&to=${today}&filter=referrer:is:(none)`);
    expect((direct.body.data as { entry_page: string }[]).map((session) => session.entry_page)).toEqual(["/pricing", "/old"]);
    const totals = await owner.get(`/api/v1/stats/${id}/totals?from=${yesterday}&to=${today}&filter=referrer:is:(none)`);
    expect((totals.body.data as { visits: number }).visits).toBe(2);
    const referred = await owner.get(`/api/v1/stats/${id}/totals?from=${yesterday}&to=${today}&filter=referrer:is_not:(none)`);
    expect((referred.body.data as { visits: number }).visits).toBe(2);
    const paged = await owner.get(`/api/v1/stats/${id}/sessions?from=${yesterday}&to=${today}&per_page=10&page=2`);
    expect(paged.body.data).toEqual([]);

    const detail = await owner.get(`/api/v1/stats/${id}/sessions/${signedUp.id}`);
    expectJson(detail, 200);
    const { hits } = detail.body.data as { hits: { type: string; page: string; event: string | null; props: Record<string, string> }[] };
    expect(hits.map(({ type, page, event, props }) => [type, page, event, props])).toEqual([
      ["pageview", "/", null, {}],
      ["pageview", "/pricing", null, {}],
      ["event", "/pricing", "Signup", { plan: "pro", seats: "3" }],
    ]);
    expectJson(await owner.get(`/api/v1/stats/${id}/sessions/999999`), 404);
    expectInvalid(await owner.get(`/api/v1/stats/${id}/sessions?from=${today}`), { to: ["The to field is required."] });
  });

  it("an event's property names, most used first, from the data", async () => {
    const names = await owner.get(`/api/v1/stats/${id}/properties?event=Signup&from=${yesterday}&to=${today}`);
    expectJson(names, 200);
    expect((names.body.data as string[]).sort()).toEqual(["plan", "seats"]);
    const none = await owner.get(`/api/v1/stats/${id}/properties?event=Upgrade&from=${yesterday}&to=${today}`);
    expect(none.body.data).toEqual([]);
  });
});
