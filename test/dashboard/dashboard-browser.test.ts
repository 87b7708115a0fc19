// The built dashboard in real headless Chromium, embedded under /analytics in Express
// (sign-in, ranges, charts, breakdowns, realtime) and a share page in Fastify; every
// number on the page is compared with what the API answers. Saves screenshots (see SCREENSHOTS in dashboard-pages.ts).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Tally } from "@tally-analytics/core";
import { tallyPlugin } from "@tally-analytics/server/fastify";
import { toNodeHandler } from "@tally-analytics/server/node";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import { listen, type Served } from "../support/transports.js";
import { addDays, dashboardPages, DESKTOP, PHONE, screenshotPath, todayIn } from "./dashboard-pages.js";
import { generateTraffic, GEOIP_FIXTURE } from "./demo-data.js";

warnIfSkipped("dashboard-browser");

interface Row {
  value: string;
  count: number;
}
interface ListBody {
  data: Row[];
  meta: { last_page: number; total: number };
}

const TIMEZONE = "Europe/Paris";

function addMonthsToStart(day: string, months: number): string {
  const date = new Date(`${day.slice(0, 7)}-01T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.toISOString().slice(0, 10);
}

describe.skipIf(skip)("dashboard in Chromium", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let key = "";
  let siteId = 0;
  let server: Served;
  let fastify: FastifyInstance;
  let origin = "";
  let fastifyOrigin = "";
  const pages = dashboardPages();

  beforeAll(async () => {
    fixture = createTempTally({ geoip: GEOIP_FIXTURE });
    tally = fixture.tally;
    const account = await tally.accounts.create({ name: "Demo" });
    key = account.key;
    siteId = (await tally.websites.create(account.accountId, { domain: "demo.example", timezone: TIMEZONE, privacy: 0 })).id;
    await tally.websites.create(account.accountId, { domain: "docs.example", privacy: 2, password: "open sesame", timezone: TIMEZONE });
    await tally.websites.create(account.accountId, { domain: "internal.example", privacy: 1 });
    await generateTraffic(tally, { domain: "demo.example" });
    await generateTraffic(tally, { domain: "docs.example", days: 40, seed: 11 });

    // Express host app: its own login (a cookie) doubles as Tally's authenticate hook.
    const app = express();
    const hook = (request: Request) => ((request.headers.get("cookie") ?? "").includes("host_session=demo") ? account.accountId : null);
    app.use("/analytics", toNodeHandler(tally, { authenticate: hook }));
    server = await listen(createServer(app), "");
    origin = server.base;

    fastify = Fastify();
    await fastify.register(tallyPlugin, { tally, prefix: "/analytics" });
    await fastify.listen({ port: 0, host: "127.0.0.1" });
    fastifyOrigin = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`;

    await pages.launch();
  });

  afterAll(async () => {
    await pages.close();
    await server?.close();
    await fastify?.close();
    await fixture?.dispose();
  });

  const newPage = (options: { colorScheme?: "light" | "dark"; viewport?: { width: number; height: number }; signedIn?: boolean } = {}) =>
    pages.open({ ...options, ...(options.signedIn ? { signedInWith: key } : {}) });

  /** Every row of a statistic through the account API. */
  async function apiRows(name: string, from: string, to: string, extra: Record<string, string> = {}): Promise<Row[]> {
    const rows: Row[] = [];
    for (let page = 1; ; page++) {
      const query = new URLSearchParams({ name, from, to, per_page: "100", page: String(page), ...extra });
      const response = await fetch(`${origin}/analytics/api/v1/stats/${siteId}?${query}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await response.json()) as ListBody;
      rows.push(...body.data);
      if (page >= body.meta.last_page) return rows;
    }
  }
  async function apiPage(name: string, from: string, to: string, extra: Record<string, string>): Promise<Row[]> {
    const query = new URLSearchParams({ name, from, to, ...extra });
    const response = await fetch(`${origin}/analytics/api/v1/stats/${siteId}?${query}`, { headers: { authorization: `Bearer ${key}` } });
    // What a card shows of each row (goals also have events and a conversion rate).
    return ((await response.json()) as ListBody).data.map(({ value, count }) => ({ value, count }));
  }
  const sum = (rows: readonly Row[]) => rows.reduce((total, row) => total + row.count, 0);

  /** What the page shows: totals, chart sizes, and the hidden data tables behind the charts (the hours card only while shown). */
  async function shown(page: Page) {
    return page.evaluate(() => {
      const count = (selector: string) => Number(document.querySelector<HTMLElement>(selector)?.dataset.count ?? Number.NaN);
      const label = document.querySelector<HTMLElement>(".range-label");
      const table = (selector: string) =>
        [...document.querySelectorAll(`${selector} table tr`)]
          .slice(1)
          .map((row) => [...row.querySelectorAll("td")].map((cell) => Number(cell.textContent)));
      return {
        from: label?.dataset.from,
        to: label?.dataset.to,
        visitors: count('[data-total="visitors"] strong'),
        pageviews: count('[data-total="pageviews"] strong'),
        points: Number(document.querySelector<HTMLElement>(".overview .chart")?.dataset.points ?? Number.NaN),
        bars: document.querySelectorAll(".overview .chart rect.bar").length,
        hours: table(".hours:not([hidden]) .hours-chart"),
        hourly: document.querySelector(".overview .chart")?.querySelector("caption")?.textContent?.endsWith("by hour")
          ? table(".main-chart")
          : null,
      };
    });
  }

  /**
   * What the page must show for a range: the visitors chart by day (by month past 93 days;
   * by hour, 24 bars, for a single day, when the hours card is not shown), and the visitors
   * by hour of day.
   */
  async function expectedView(from: string, to: string) {
    const [visitors, pageviews, visitorHours] = await Promise.all(
      ["visitors", "pageviews", "visitors_hours"].map((name) => apiRows(name, from, to)),
    );
    const days = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
    const months = new Set(Array.from({ length: days }, (_, i) => addDays(from, i).slice(0, 7))).size;
    const hour = (rows: Row[] | undefined, h: number) => rows?.find((row) => row.value === String(h).padStart(2, "0"))?.count ?? 0;
    const hours = Array.from({ length: 24 }, (_, h) => [hour(visitorHours, h)]);
    const points = days === 1 ? 24 : days > 93 ? months : days;
    return {
      from,
      to,
      visitors: sum(visitors ?? []),
      pageviews: sum(pageviews ?? []),
      points,
      bars: points > 31 ? 0 : points,
      hours: days === 1 ? [] : hours,
      hourly: days === 1 ? hours : null,
    };
  }

  /** The rows of the statistic a card shows (not the ones it adds, such as Direct / None). */
  async function cardRows(page: Page, card: string): Promise<Row[]> {
    return page.$$eval(`section[data-card^="${card}"] .rows li[data-value]:not(.extra-row)`, (items) =>
      items.map((item) => ({ value: (item as HTMLElement).dataset.value ?? "", count: Number((item as HTMLElement).dataset.count) })),
    );
  }

  async function waitLoaded(page: Page): Promise<void> {
    await page.waitForSelector(".overview .chart");
    await page.waitForFunction(
      () => document.querySelectorAll("[aria-busy]").length === 0 && document.querySelectorAll(".rows li").length >= 6,
    );
  }

  it("signs in with an API key, kept in sessionStorage for the tab", async () => {
    const page = await newPage();
    const response = await page.goto(`${origin}/analytics`);
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
    // Signed out, the dashboard opens on the e-mail sign-in; the key form is its link "Use an API key instead".
    await page.waitForURL(`${origin}/analytics/login`);
    await page.click("text=Use an API key instead");
    await page.fill('input[name="key"]', "tly_not-a-key");
    await page.click('button[type="submit"]');
    await expect.poll(() => page.textContent(".sign-in .error")).toBe("That key is not valid.");
    await page.fill('input[name="key"]', key);
    await page.click('button[type="submit"]');
    await page.waitForSelector(".website-link");
    expect(await page.$$eval(".website-link", (links) => links.map((link) => link.textContent))).toEqual([
      "demo.example",
      "docs.example",
      "internal.example",
    ]);
    // Share links for the public and the password website, not the private one.
    expect(await page.$$eval(".share-link", (links) => links.map((link) => (link as HTMLAnchorElement).href))).toEqual([
      `${origin}/analytics/share/demo.example`,
      `${origin}/analytics/share/docs.example`,
    ]);
    expect(await page.evaluate(() => sessionStorage.getItem("tally.key"))).toBe(key);
    await page.reload();
    await page.waitForSelector(".website-link");
    await page.click("text=Sign out");
    await page.waitForURL(`${origin}/analytics/login`);
    expect(await page.evaluate(() => sessionStorage.getItem("tally.key"))).toBeNull();
  });

  it("uses the host app's login through the authenticate hook: no key asked", async () => {
    const page = await newPage();
    await page.context().addCookies([{ name: "host_session", value: "demo", url: origin }]);
    await page.goto(`${origin}/analytics/`);
    await page.waitForSelector(".website-link");
    expect(await page.$("text=Sign out")).toBeNull();
    await page.click("text=demo.example");
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    expect(await shown(page)).toEqual(await expectedView(addDays(today, -29), today));
  });

  it("shows the API's numbers for every preset range and a custom one", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${siteId}`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const presets = { today: today, "7d": addDays(today, -6), "30d": addDays(today, -29), "12mo": addMonthsToStart(today, -11) };
    for (const [range, from] of Object.entries(presets)) {
      await page.click(`[data-range="${range}"]`);
      const expected = await expectedView(from, today);
      expect(expected.visitors).toBeGreaterThan(0);
      await expect.poll(() => shown(page), { timeout: 10_000 }).toEqual(expected);
      expect(page.url()).toContain(`range=${range}`);
    }

    await page.click('[data-range="custom"]');
    const from = addDays(today, -75);
    const to = addDays(today, -45);
    await page.fill('.custom-range input[name="from"]', from);
    await page.fill('.custom-range input[name="to"]', to);
    await page.click('.custom-range button[type="submit"]');
    await expect.poll(() => shown(page), { timeout: 10_000 }).toEqual(await expectedView(from, to));
    // The range lives in the URL: a reload shows the same.
    await page.reload();
    await waitLoaded(page);
    expect(await shown(page)).toEqual(await expectedView(from, to));
  });

  it("breakdown cards list, search and page through the same API", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${siteId}?range=12mo`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const from = addMonthsToStart(today, -11);
    const first = (name: string, extra: Record<string, string> = {}) => apiPage(name, from, today, { per_page: "10", ...extra });

    for (const name of ["page", "referrer", "country", "browser", "resolution", "goals"]) {
      const expected = await first(name);
      expect(expected.length).toBeGreaterThan(0);
      await expect.poll(() => cardRows(page, name)).toEqual(expected);
    }

    // Search, then page through the Pages card.
    await page.fill('section[data-card^="page"] input[type="search"]', "DOCS");
    await expect.poll(() => cardRows(page, "page")).toEqual(await first("page", { search: "DOCS" }));
    await page.fill('section[data-card^="page"] input[type="search"]', "");
    await expect.poll(() => cardRows(page, "page")).toEqual(await first("page"));
    await page.click('section[data-card^="page"] [aria-label="Next page"]');
    await expect.poll(() => cardRows(page, "page")).toEqual(await first("page", { page: "2" }));
    const total = (await apiRows("page", from, today)).length;
    expect(await page.textContent('section[data-card^="page"] .paging-status')).toBe(`11–${Math.min(20, total)} of ${total}`);

    // Direct / None beside the referrers: the range's visits minus the visits of every referrer.
    const totals = (await (
      await fetch(`${origin}/analytics/api/v1/stats/${siteId}/totals?from=${from}&to=${today}`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).json()) as { data: { visits: number } };
    const direct = totals.data.visits - sum(await apiRows("referrer", from, today));
    expect(direct).toBeGreaterThan(0);
    expect(await page.getAttribute('section[data-card^="referrer"] li.extra-row[data-value="(direct)"]', "data-count")).toBe(
      String(direct),
    );
    expect(await page.textContent('section[data-card^="referrer"] li.extra-row .row-label')).toBe("Direct / None");

    // Country codes read as a badge before the name.
    expect(await page.textContent('section[data-card^="country"] li[data-value="JP:Japan"] .row-label')).toBe("JPJapan");

    // Tabs switch statistics within a card.
    for (const [card, tab] of [
      ["page", "landing_page"],
      ["page", "exit_page"],
      ["country", "city"],
      ["country", "continent"],
      ["browser", "os"],
      ["browser", "device"],
      ["referrer", "campaign"],
      ["referrer", "utm_source"],
      ["resolution", "language"],
    ] as const) {
      await page.click(`section[data-card^="${card}"] [role="tab"][data-name="${tab}"]`);
      await expect.poll(() => cardRows(page, card)).toEqual(await first(tab));
    }
  });

  it("shows realtime visitors (last 5 minutes) as the API counts them", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${siteId}`);
    const response = await fetch(`${origin}/analytics/api/v1/realtime/${siteId}`, { headers: { authorization: `Bearer ${key}` } });
    const { data } = (await response.json()) as { data: { visitors: number } };
    expect(data.visitors).toBe(3);
    await expect
      .poll(() => page.$eval(".realtime", (el) => [(el as HTMLElement).dataset.count, el.textContent]))
      .toEqual(["3", "3 visitors now"]);
  });

  it("a password share page in Fastify: form, wrong password, then read-only stats", async () => {
    const page = await newPage();
    await page.goto(`${fastifyOrigin}/analytics/share/docs.example`);
    await page.fill('input[name="password"]', "nope");
    await page.click('button[type="submit"]');
    // The password is checked at its full cost: seconds on a busy machine.
    await expect.poll(() => page.textContent(".sign-in .error"), { timeout: 15_000 }).toBe("Wrong password.");
    await page.screenshot({ path: screenshotPath("share-password.png") });
    await page.fill('input[name="password"]', "open sesame");
    await page.click('button[type="submit"]');
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const docsId = siteId + 1;
    const expectedVisitors = await fetch(
      `${origin}/analytics/api/v1/stats/${docsId}?name=visitors&from=${addDays(today, -29)}&to=${today}&per_page=100`,
      {
        headers: { authorization: `Bearer ${key}` },
      },
    );
    const visitors = sum(((await expectedVisitors.json()) as ListBody).data);
    await expect.poll(async () => (await shown(page)).visitors).toBe(visitors);
    // Read-only: no sign-out, no website list, no management links; the cookie is HttpOnly.
    expect(await page.$$(".topbar, .website-link, .share-link")).toHaveLength(0);
    expect(await page.evaluate(() => document.cookie)).toBe("");
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: "tally_share", path: "/analytics/share/docs.example", httpOnly: true, sameSite: "Lax" });
    // A reload keeps access; a private website's page is a 404 with nothing in it.
    await page.reload();
    await waitLoaded(page);
    const hidden = await page.goto(`${fastifyOrigin}/analytics/share/internal.example`);
    expect(hidden?.status()).toBe(404);
    await expect.poll(() => page.textContent("h1")).toBe("Not found");
  });

  it("saves screenshots: light and dark, desktop and phone", async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      for (const [device, viewport] of [
        ["desktop", DESKTOP],
        ["phone", PHONE],
      ] as const) {
        const page = await newPage({ colorScheme, viewport, signedIn: true });
        await page.goto(`${origin}/analytics/#/websites/${siteId}?range=30d`);
        await waitLoaded(page);
        await page.screenshot({ path: screenshotPath(`dashboard-${colorScheme}-${device}.png`), fullPage: device === "desktop" });
      }
    }
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/`);
    await page.waitForSelector(".website-link");
    await page.screenshot({ path: screenshotPath("websites-light-desktop.png") });
  });
});
