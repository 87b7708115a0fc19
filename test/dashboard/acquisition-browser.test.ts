// Channels and named sources end to end, in real headless Chromium: pages of a
// measured site loaded with the referrers of real sources and with UTM tags that reach
// every channel, counted by the built tracker; the dashboard's Acquisition card shows
// what the API answers and filters by a click on a channel or a source.
import type { Tally } from "@tally-analytics/core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";
import { dashboardPages, serveTallyAndSite, todayIn } from "./dashboard-pages.js";

warnIfSkipped("acquisition-browser");

interface Row {
  value: string;
  count: number;
}

/** [referrer, query of the landing page, channel, source]: one visit each. */
const VISITS: readonly (readonly [string, string, string, string])[] = [
  ["https://www.google.com/search?q=tally", "", "Organic Search", "Google"],
  ["https://www.google.de/", "?gclid=Cj0KCQ", "Paid Search", "Google"],
  ["https://duckduckgo.com/", "", "Organic Search", "DuckDuckGo"],
  ["https://www.bing.com/search?q=tally", "?utm_source=bing&utm_medium=cpc", "Paid Search", "Bing"],
  ["https://t.co/x1y2z3", "", "Organic Social", "Twitter"],
  ["https://news.ycombinator.com/item?id=1", "", "Organic Social", "Hacker News"],
  ["https://www.reddit.com/r/selfhosted/", "", "Organic Social", "Reddit"],
  ["https://l.facebook.com/l.php?u=x", "?utm_medium=paid_social", "Paid Social", "Facebook"],
  ["https://www.youtube.com/watch?v=1", "", "Organic Video", "Youtube"],
  ["https://m.youtube.com/", "?utm_source=yt-ads", "Paid Video", "Youtube"],
  ["https://chatgpt.com/", "", "AI Assistants", "ChatGPT"],
  ["https://www.perplexity.ai/", "", "AI Assistants", "Perplexity"],
  ["https://www.amazon.com/dp/1", "", "Organic Shopping", "Amazon"],
  ["https://en.wikipedia.org/wiki/Web_analytics", "", "Referral", "Wikipedia"],
  ["https://blog.example.org/post", "", "Referral", "blog.example.org"],
  ["", "", "Direct", ""],
  ["", "?utm_source=newsletter&utm_medium=email&utm_campaign=november", "Email", "newsletter"],
  ["", "?utm_source=partner&utm_medium=ppc&utm_campaign=shopping", "Paid Shopping", "partner"],
  ["", "?utm_source=google&utm_medium=cpc&utm_campaign=cross-network-q4", "Cross-network", "Google"],
  ["", "?utm_source=adserver&utm_medium=banner", "Display", "adserver"],
  ["", "?utm_source=partner&utm_medium=ppc&utm_campaign=retarget", "Paid Other", "partner"],
  ["", "?utm_source=blogger&utm_medium=affiliate", "Affiliates", "blogger"],
  ["", "?utm_source=podcast&utm_medium=audio", "Audio", "podcast"],
  ["", "?utm_source=sms&utm_campaign=texts", "SMS", "sms"],
  ["", "?utm_source=app&utm_medium=web-push", "Mobile Push Notifications", "app"],
];

const countsOf = (rows: readonly (readonly [string, string, string, string])[], field: 2 | 3): Row[] => {
  const counts = new Map<string, number>();
  for (const visit of rows) if (visit[field] !== "") counts.set(visit[field], (counts.get(visit[field]) ?? 0) + 1);
  return [...counts].map(([value, count]) => ({ value, count }));
};
const byValue = (rows: readonly Row[]) => [...rows].sort((a, b) => (a.value < b.value ? -1 : 1));

describe.skipIf(skip)("channels and sources in Chromium", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let key = "";
  let siteId = 0;
  let server: Served;
  const pages = dashboardPages();
  const timezone = "UTC";

  const rows = async (name: string, filter?: string): Promise<Row[]> => {
    const today = todayIn(timezone);
    const query = new URLSearchParams({ name, from: today, to: today, per_page: "100", ...(filter ? { filter } : {}) });
    const response = await fetch(`${server.base}/analytics/api/v1/stats/${siteId}?${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return ((await response.json()) as { data: Row[] }).data.map(({ value, count }) => ({ value, count }));
  };
  const cardRows = (page: Page) =>
    page.$$eval('section[data-card="channel source"] .rows li[data-value]:not(.extra-row)', (items) =>
      items.map((item) => ({ value: item.getAttribute("data-value")!, count: Number(item.getAttribute("data-count")) })),
    );

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    const account = await tally.accounts.create({ name: "Owner" });
    key = account.key;
    siteId = (await tally.websites.create(account.accountId, { domain: "127.0.0.1", timezone })).id;
    let sitePages: Map<string, string>;
    ({ server, sitePages } = await serveTallyAndSite(tally));
    sitePages.set("/landing", `<!doctype html><title>Landing</title><script src="/analytics/script.js"></script>`);
    await pages.launch();
    // One browser context a visit, each its own visitor (the Chrome build in its user agent).
    for (const [index, [referrer, query]] of VISITS.entries()) {
      const page = await pages.open({
        userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.${index} Safari/537.36`,
      });
      const sent = page.waitForResponse((response) => response.url().endsWith("/analytics/collect"));
      await page.goto(`${server.base}/landing${query}`, referrer === "" ? {} : { referer: referrer });
      expect((await sent).status()).toBe(202);
    }
    await tally.flush();
  }, 120_000);

  afterAll(async () => {
    await pages.close();
    await server?.close();
    await fixture?.dispose();
  });

  it("counts every visit under the channel and source the rules give", async () => {
    expect(byValue(await rows("channel"))).toEqual(byValue(countsOf(VISITS, 2)));
    expect(byValue(await rows("source"))).toEqual(byValue(countsOf(VISITS, 3)));
    expect(new Set(VISITS.map(([, , channel]) => channel)).size).toBe(19);
    expect(new Set(VISITS.filter(([referrer]) => referrer !== "").map(([, , , source]) => source)).size).toBeGreaterThanOrEqual(10);
  });

  it("shows the Acquisition card and filters by clicking a channel, then a source", async () => {
    const page = await pages.open({ signedInWith: key, timezoneId: timezone });
    await page.goto(`${server.base}/analytics/#/websites/${siteId}?range=today`);
    // The card's first page: the API's order (most visits first), ten rows.
    await expect.poll(() => cardRows(page)).toEqual((await rows("channel")).slice(0, 10));

    await page.click('section[data-card="channel source"] li[data-value="Organic Search"] .row-label');
    await expect.poll(() => decodeURIComponent(page.url())).toContain("filter=channel:is:Organic");
    await expect.poll(() => cardRows(page)).toEqual([{ value: "Organic Search", count: 2 }]);

    await page.click('section[data-card="channel source"] [role="tab"][data-name="source"]');
    const searchSources = byValue(await rows("source", "channel:is:Organic Search"));
    expect(searchSources).toEqual([
      { value: "DuckDuckGo", count: 1 },
      { value: "Google", count: 1 },
    ]);
    await expect.poll(() => cardRows(page).then(byValue)).toEqual(searchSources);

    await page.click('section[data-card="channel source"] li[data-value="Google"] .row-label');
    await expect.poll(() => decodeURIComponent(page.url())).toContain("filter=source:is:Google");
    await expect.poll(() => cardRows(page)).toEqual([{ value: "Google", count: 1 }]);
    expect(await page.$$eval(".chip", (chips) => chips.length)).toBe(2);
  });
});
