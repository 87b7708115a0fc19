// A new user's first ten minutes in the dashboard, in real headless Chromium:
// primary buttons on hover (axe-core's colour contrast, both themes), the toolbar at 1440
// and 390 px, Today by hour, Direct / None, guided empty states, comparisons against an
// empty period, menus and Escape, a bad filter named once, a skeleton and no 401 on first
// load, the website list's last 24 hours, the realtime dot, the dashboard's languages, and
// the compressed tracker as Chromium receives it. Tally runs without a GeoIP database here.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Tally } from "@tally-analytics/core";
import { trackerScript } from "@tally-analytics/tracker";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";
import { addDays, dashboardPages, serveTallyAndSite, PHONE, screenshotPath, todayIn } from "./dashboard-pages.js";
import { generateTraffic } from "./demo-data.js";

warnIfSkipped("first-minutes-browser");

interface Row {
  value: string;
  count: number;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const BENCH = JSON.parse(readFileSync(new URL("../../bench/results.json", import.meta.url), "utf8")) as {
  figures: { id: string; value: number }[];
};
const TIMEZONE = "Europe/Paris";
const WIDE = { width: 1440, height: 900 };
const LONG_DOMAIN = "a-rather-long-shop-name-for-the-toolbar.example";
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const HOUR_MS = 3_600_000;

describe.skipIf(skip)("a new user's first minutes in the dashboard, in Chromium", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let accountId = 0;
  let key = "";
  const ids = { shop: 0, direct: 0, fresh: 0, quiet: 0 };
  let server: Served;
  let origin = "";
  const pages = dashboardPages();
  /** Pages of a measured site, served beside Tally on the same origin. */
  let sitePages = new Map<string, string>();

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    ({ accountId, key } = await tally.accounts.create({ name: "Owner" }));
    ids.shop = (await tally.websites.create(accountId, { domain: LONG_DOMAIN, timezone: TIMEZONE })).id;
    ids.direct = (await tally.websites.create(accountId, { domain: "direct.example", timezone: TIMEZONE })).id;
    ids.fresh = (await tally.websites.create(accountId, { domain: "fresh.example", timezone: TIMEZONE, exclude_bots: 0 })).id;
    ids.quiet = (await tally.websites.create(accountId, { domain: "quiet.example", timezone: TIMEZONE })).id;
    await generateTraffic(tally, { domain: LONG_DOMAIN, days: 40, seed: 5 });
    await generateTraffic(tally, { domain: "quiet.example", days: 10, seed: 9, liveSessions: 0 });
    // Only direct visits, all in the last three days: the week before has none.
    const now = Date.now();
    for (let i = 0; i < 12; i++) {
      const timestamp = now - (1 + i * 5) * HOUR_MS;
      await tally.collect({
        url: `https://direct.example/${i % 3 === 0 ? "" : "pricing"}`,
        ip: `203.0.113.${i + 1}`,
        userAgent: CHROME,
        timestamp,
      });
      if (i % 2 === 0)
        await tally.collect({
          url: "https://direct.example/docs",
          ip: `203.0.113.${i + 1}`,
          userAgent: CHROME,
          timestamp: timestamp + 60_000,
        });
    }
    await tally.flush();

    ({ server, sitePages } = await serveTallyAndSite(tally));
    origin = server.base;
    await pages.launch();
  });

  afterAll(async () => {
    await pages.close();
    await server?.close();
    await fixture?.dispose();
  });

  const newPage = (
    options: {
      colorScheme?: "light" | "dark";
      viewport?: { width: number; height: number };
      signedIn?: boolean;
      bypassCSP?: boolean;
      locale?: string;
    } = {},
  ) => pages.open({ timezoneId: TIMEZONE, locale: "en-GB", ...options, ...(options.signedIn ? { signedInWith: key } : {}) });

  async function api<T>(path: string, query: Record<string, string> = {}): Promise<T> {
    const response = await fetch(`${origin}/analytics/api/v1${path}?${new URLSearchParams(query)}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return (await response.json()) as T;
  }
  const rows = async (id: number, query: Record<string, string>) =>
    (await api<{ data: Row[] }>(`/stats/${id}`, { per_page: "100", ...query })).data.map(({ value, count }) => ({ value, count }));
  const hourOf = (list: readonly Row[], hour: number) => list.find((row) => row.value === String(hour).padStart(2, "0"))?.count ?? 0;

  async function waitLoaded(page: Page): Promise<void> {
    await page.waitForSelector(".overview .chart");
    await page.waitForFunction(() => document.querySelectorAll("[aria-busy]").length === 0);
  }

  /** axe-core's colour-contrast check on one element as it looks now (hovered). */
  async function contrast(page: Page, selector: string): Promise<string[]> {
    if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
    return page.evaluate(async (target) => {
      const axe = (
        window as unknown as {
          axe: {
            run(
              context: Element,
              options: object,
            ): Promise<{ violations: { id: string; nodes: { failureSummary: string }[] }[]; passes: { id: string }[] }>;
          };
        }
      ).axe;
      const element = document.querySelector(target);
      if (!element) return [`${target} not found`];
      const result = await axe.run(element, { runOnly: ["color-contrast"] });
      if (!result.passes.some((rule) => rule.id === "color-contrast")) return [`${target}: color-contrast not checked`];
      return result.violations.flatMap((violation) => violation.nodes.map((node) => `${target}: ${node.failureSummary}`));
    }, selector);
  }

  it("primary buttons keep their colours on hover: axe-core finds enough contrast, in both themes", { timeout: 60_000 }, async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const signIn = await newPage({ colorScheme, bypassCSP: true });
      await signIn.goto(`${origin}/analytics/`);
      await signIn.hover('.sign-in button[type="submit"]');
      expect(await contrast(signIn, '.sign-in button[type="submit"]'), `${colorScheme} Sign in`).toEqual([]);

      const page = await newPage({ colorScheme, bypassCSP: true, signedIn: true });
      await page.goto(`${origin}/analytics/#/`);
      await page.hover("a.button");
      expect(await contrast(page, "a.button"), `${colorScheme} Add website`).toEqual([]);
      await page.goto(`${origin}/analytics/#/websites/${ids.shop}/settings`);
      await page.hover('form.settings button[type="submit"]');
      expect(await contrast(page, 'form.settings button[type="submit"]'), `${colorScheme} Save settings`).toEqual([]);
      await page.goto(`${origin}/analytics/#/websites/${ids.shop}?range=7d`);
      await waitLoaded(page);
      await page.hover('[data-range="7d"]');
      expect(await contrast(page, '[data-range="7d"]'), `${colorScheme} chosen range`).toEqual([]);
      await page.click('[data-range="custom"]');
      await page.hover('.custom-range button[type="submit"]');
      expect(await contrast(page, '.custom-range button[type="submit"]'), `${colorScheme} Apply`).toEqual([]);
    }
  });

  /** The boxes of the toolbar's parts, in page pixels. */
  const boxes = (page: Page) =>
    page.evaluate(() => {
      const box = (element: Element | null) => {
        const rect = element?.getBoundingClientRect();
        return rect ? { left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom, width: rect.width } : null;
      };
      return {
        toolbar: box(document.querySelector(".toolbar")),
        title: box(document.querySelector(".toolbar h1")),
        ranges: [...document.querySelectorAll(".segmented button")].map(box),
        compare: box(document.querySelector("select.compare")),
        exporting: box(document.querySelector(".export summary")),
      };
    });
  type Box = { left: number; right: number; top: number; bottom: number; width: number };
  const overlap = (a: Box, b: Box) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

  it("the toolbar keeps one row at 1440 px (a long domain is cut, Custom opens over the page) and two tidy rows of controls at 390 px", async () => {
    const wide = await newPage({ viewport: WIDE, signedIn: true });
    await wide.goto(`${origin}/analytics/#/websites/${ids.shop}?range=30d`);
    await waitLoaded(wide);
    const before = await boxes(wide);
    const controls = [...before.ranges, before.compare, before.exporting] as Box[];
    for (const control of controls) expect(Math.abs(control.top - before.compare!.top)).toBeLessThan(8);
    expect(before.title!.right).toBeLessThanOrEqual(before.ranges[0]!.left);
    expect(before.title!.bottom).toBeGreaterThan(before.compare!.top - 40);
    await wide.click('[data-range="custom"]');
    expect(await wide.isVisible(".custom-range")).toBe(true);
    expect(await boxes(wide)).toEqual(before);

    const phone = await newPage({ viewport: PHONE, signedIn: true, colorScheme: "dark" });
    await phone.goto(`${origin}/analytics/#/websites/${ids.shop}?range=30d&compare=previous_period`);
    await waitLoaded(phone);
    const small = await boxes(phone);
    const all = [small.title, ...small.ranges, small.compare, small.exporting] as Box[];
    for (const box of all) {
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(PHONE.width);
    }
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++) expect(overlap(all[i]!, all[j]!), `boxes ${i} and ${j} overlap`).toBe(false);
    // Row one: the five range buttons; row two: comparison and export, each half the width, the comparison readable.
    for (const range of small.ranges) expect(Math.abs(range!.top - small.ranges[0]!.top)).toBeLessThan(2);
    expect(Math.abs(small.compare!.top - small.exporting!.top)).toBeLessThan(4);
    expect(small.compare!.top).toBeGreaterThan(small.ranges[0]!.bottom - 1);
    expect(small.compare!.width).toBeGreaterThan(150);
    expect(await phone.$eval("select.compare", (select) => (select as HTMLSelectElement).selectedOptions[0]?.textContent)).toBe(
      "Previous period",
    );
    await phone.click('[data-range="custom"]');
    const popover = await phone.$eval(".custom-range", (form) => form.getBoundingClientRect().toJSON() as Box);
    expect(popover.left).toBeGreaterThanOrEqual(0);
    expect(popover.right).toBeLessThanOrEqual(PHONE.width);
    await phone.screenshot({ path: screenshotPath("dashboard-toolbar-phone.png") });
  });

  it("Today is 24 hourly bars of the chosen figure (the hours card steps aside)", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${ids.shop}?range=today`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const table = () => page.$$eval(".main-chart table tr", (trs) => trs.slice(1).map((tr) => Number(tr.querySelector("td")?.textContent)));
    for (const [metric, name] of [
      ["visitors", "visitors_hours"],
      ["pageviews", "pageviews_hours"],
    ] as const) {
      await page.click(`[data-total="${metric}"]`);
      const hours = await rows(ids.shop, { name, from: today, to: today });
      expect(hours.length).toBeGreaterThan(0);
      await expect.poll(table).toEqual(Array.from({ length: 24 }, (_, hour) => hourOf(hours, hour)));
      expect(await page.getAttribute(".main-chart .chart", "data-points")).toBe("24");
      expect(await page.$$eval(".main-chart rect.bar", (bars) => bars.length)).toBe(24);
      expect(await page.textContent(".main-chart caption")).toBe(`${metric === "visitors" ? "Visitors" : "Pageviews"} by hour`);
    }
    expect(await page.isHidden("section.hours")).toBe(true);
    // A figure without hours says so, and charts visitors by hour.
    await page.click('[data-total="bounce_rate"]');
    await expect
      .poll(() => page.textContent(".main-chart .hint"))
      .toBe("Hours are counted for visitors and pageviews, not for Bounce rate: this chart shows visitors.");
    expect(await page.getAttribute(".main-chart .chart", "data-points")).toBe("24");
    // Longer ranges: the hours card shows the chosen figure by hour of day.
    await page.click('[data-range="7d"]');
    await page.click('[data-total="pageviews"]');
    await expect.poll(() => page.textContent("section.hours h2")).toBe("Pageviews by hour of day");
    const week = await rows(ids.shop, { name: "pageviews_hours", from: addDays(today, -6), to: today });
    await expect
      .poll(() => page.$$eval(".hours-chart table tr", (trs) => trs.slice(1).map((tr) => Number(tr.querySelector("td")?.textContent))))
      .toEqual(Array.from({ length: 24 }, (_, hour) => hourOf(week, hour)));
  });

  it("direct visits show as Direct / None: a site with only direct visits is not 'No data'", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${ids.direct}?range=7d`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const visits = (await api<{ data: { visits: number } }>(`/stats/${ids.direct}/totals`, { from: addDays(today, -6), to: today })).data
      .visits;
    expect(visits).toBeGreaterThan(0);
    expect(await rows(ids.direct, { name: "referrer", from: addDays(today, -6), to: today })).toEqual([]);
    const sources = 'section[data-card~="referrer"] .rows';
    await expect
      .poll(() => page.$$eval(`${sources} > li`, (items) => items.map((item) => [item.textContent, (item as HTMLElement).dataset.count])))
      .toEqual([[`Direct / None${visits}`, String(visits)]]);
  });

  it("guides a website without data: its tracking code and a live wait, then its statistics; Locations says how to get them, Goals how to send one", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${ids.fresh}`);
    await page.waitForSelector(".waiting-page .snippet");
    expect(await page.textContent(".waiting-page h2")).toBe("No pageviews yet");
    expect(await page.textContent(".snippet code")).toBe(`<script defer src="${origin}/analytics/script.js"></script>`);
    expect(await page.textContent(".arrival")).toBe("Waiting for the first pageview…");
    expect(await page.$(".overview, .totals")).toBeNull();
    await page.screenshot({ path: screenshotPath("dashboard-first-pageview.png") });

    // A first pageview arrives at /collect, as the tracker sends it: the status turns green, then the statistics open.
    const sent = await fetch(`${origin}/analytics/collect`, {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": CHROME },
      body: JSON.stringify({ u: "https://fresh.example/", s: "1440x900", l: "en-GB" }),
    });
    expect(sent.status).toBe(202);
    await expect.poll(() => page.textContent(".arrival"), { timeout: 15_000 }).toBe("First pageview received.");
    await page.waitForSelector(".overview .chart", { timeout: 15_000 });
    await waitLoaded(page);
    expect(await page.getAttribute('[data-total="pageviews"] strong', "data-count")).toBe("1");
    // No GeoIP database: Locations says what would place visitors, and where to get one, whole (never cut).
    await expect.poll(() => page.textContent('section[data-card~="country"] .rows')).toContain("GeoIP database");
    const hint = await page.$eval('section[data-card~="country"] .geo-hint', (element) => ({
      text: element.textContent ?? "",
      cut: element.scrollWidth > element.clientWidth + 1 || getComputedStyle(element).textOverflow === "ellipsis",
    }));
    expect(hint.text).toContain("GEOIP_DB");
    expect(hint.text).toMatch(/GeoLite2.*DB-IP/);
    expect(hint.cut).toBe(false);
    await page.click('section[data-card~="country"] [data-name="city"]');
    await expect.poll(() => page.textContent('section[data-card~="country"] .rows')).toContain("city database");
    // No events: Goals shows how to send one.
    expect(await page.textContent('section[data-card="goals"] .rows pre')).toBe('tally.track("Signup", { plan: "pro" })');
  });

  it("against a period without visits, changes read — and rates are not plotted as 0 %", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${ids.direct}?range=7d&compare=previous_period&metric=bounce_rate`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const compared = await api<{ previous: { visits: number } }>(`/stats/${ids.direct}/totals`, {
      from: addDays(today, -6),
      to: today,
      compare: "previous_period",
    });
    expect(compared.previous.visits).toBe(0);
    expect(await page.$$eval(".total .change", (items) => items.map((item) => item.textContent))).toEqual(["—", "—", "—", "—", "—", "—"]);
    expect(await page.$$eval(".total .change.bad, .total .change.good", (items) => items.length)).toBe(0);
    expect(await page.getAttribute(".total .change", "title")).toBe("The compared period had no visits: nothing to compare with.");
    // Bounce rate by day: days without visits (and the whole compared week) have no figure.
    const bounce = await rows(ids.direct, { name: "bounce_rate", from: addDays(today, -6), to: today });
    const days = Array.from({ length: 7 }, (_, i) => addDays(today, i - 6));
    const cells = await page.$$eval(".main-chart table tr", (trs) =>
      trs.slice(1).map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
    );
    expect(cells).toEqual(days.map((day) => [String(bounce.find((row) => row.value === day)?.count ?? "—"), "—"]));
    expect(cells.some(([value]) => value === "—")).toBe(true);
    expect(await page.$$eval(".main-chart rect.bar", (bars) => bars.length)).toBe(bounce.length);
  });

  it("menus close with Escape (focus back on their button) and with a click elsewhere", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${ids.shop}?range=7d`);
    await waitLoaded(page);
    await page.click(".export summary");
    expect(await page.isVisible(".export .menu-items")).toBe(true);
    await page.keyboard.press("Escape");
    expect(await page.isVisible(".export .menu-items")).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.matches(".export summary"))).toBe(true);
    await page.click(".export summary");
    await page.mouse.click(5, 400);
    expect(await page.isVisible(".export .menu-items")).toBe(false);
    await page.click('[data-range="custom"]');
    expect(await page.isVisible(".custom-range")).toBe(true);
    await page.keyboard.press("Escape");
    expect(await page.isVisible(".custom-range")).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-range"))).toBe("custom");
    await page.click('[data-range="custom"]');
    await page.mouse.click(5, 400);
    expect(await page.isVisible(".custom-range")).toBe(false);
  });

  it("a bad filter in a shared URL is named once, and can be removed", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${ids.shop}?range=7d&filter=planet:is:Mars`);
    await page.waitForSelector(".problem");
    await page.waitForFunction(() => document.querySelectorAll("[aria-busy]").length === 0);
    expect(await page.$$eval(".problem p", (items) => items.length)).toBe(1);
    expect(await page.textContent(".problem p")).toContain("The filter “planet is Mars” is not valid and was not applied:");
    const text = (await page.textContent("main")) ?? "";
    expect(text).not.toContain("The given data was invalid.");
    await page.click('.problem button:has-text("Remove it")');
    await waitLoaded(page);
    expect(await page.$(".problem")).toBeNull();
    expect(new URL(page.url()).hash).not.toContain("filter=");
    expect(Number(await page.getAttribute('[data-total="visitors"] strong', "data-count"))).toBeGreaterThan(0);
  });

  it("first load: a skeleton, not an empty page; and no 401 is asked for to find out whether one is signed in", async () => {
    const statuses: number[] = [];
    const signedOut = await newPage();
    signedOut.on("response", (response) => statuses.push(response.status()));
    await signedOut.goto(`${origin}/analytics/`);
    await signedOut.waitForURL(`${origin}/analytics/login`);
    expect(statuses).not.toContain(401);
    expect(await signedOut.textContent(".sign-in label")).toBe("E-mail");

    // The answers wait until the test has looked: first the website's own figures (its
    // page is grey blocks meanwhile), then the lists (the tiles are filled, charts and cards grey).
    const page = await newPage({ signedIn: true });
    const gate = () => {
      let open = () => {};
      const promise = new Promise<void>((resolve) => (open = resolve));
      return { promise, resolve: () => open() };
    };
    const gates = { totals: gate(), lists: gate() };
    await page.route(/\/api\/v1\/stats\/\d+/, async (route) => {
      await (route.request().url().includes("/totals?") ? gates.totals : gates.lists).promise;
      await route.continue();
    });
    await page.goto(`${origin}/analytics/#/websites/${ids.shop}?range=7d`);
    await page.waitForSelector("main.loading .skeleton");
    expect(await page.$(".error:not(:empty)")).toBeNull();
    gates.totals.resolve();
    await page.waitForSelector(".overview");
    await expect.poll(() => page.$$eval(".totals .skeleton", (items) => items.length), { timeout: 10_000 }).toBe(0);
    expect(await page.isVisible(".main-chart .chart-skeleton")).toBe(true);
    expect(await page.$$eval("section.breakdown .skeleton-row", (items) => items.length)).toBeGreaterThan(10);
    expect(await page.$(".error:not(:empty)")).toBeNull();
    await page.screenshot({ path: screenshotPath("dashboard-loading.png") });
    gates.lists.resolve();
    await waitLoaded(page);
    expect(await page.$$(".skeleton")).toHaveLength(0);
  });

  it("the website list shows each website's last 24 hours: a sparkline and its visitors", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/`);
    await page.waitForSelector(".website-link");
    const expected = async (id: number) => {
      const today = todayIn(TIMEZONE);
      const [yesterday, now] = await Promise.all(
        [addDays(today, -1), today].map((day) => rows(id, { name: "visitors_hours", from: day, to: day })),
      );
      const hour = Number(new Intl.DateTimeFormat("en", { timeZone: TIMEZONE, hour: "2-digit", hourCycle: "h23" }).format(new Date()));
      return [
        ...Array.from({ length: 23 - hour }, (_, i) => hourOf(yesterday!, hour + 1 + i)),
        ...Array.from({ length: hour + 1 }, (_, i) => hourOf(now!, i)),
      ];
    };
    for (const id of [ids.shop, ids.direct]) {
      const hours = await expected(id);
      expect(hours).toHaveLength(24);
      const figures = `[data-website="${id}"] .site-figures`;
      await expect.poll(() => page.getAttribute(figures, "data-hours")).toBe(hours.join(","));
      const sum = hours.reduce((a, b) => a + b, 0);
      expect(await page.getAttribute(figures, "data-visitors")).toBe(String(sum));
      expect(await page.textContent(`${figures} .site-visitors`)).toBe(`${sum} ${sum === 1 ? "visitor" : "visitors"} in 24 h`);
      expect(await page.$$(`${figures} svg.sparkline polyline`)).toHaveLength(1);
    }
  });

  it("the realtime dot is grey at 0 visitors and green with some", async () => {
    const page = await newPage({ signedIn: true });
    const dot = () =>
      page.$eval(".realtime", (element) => [(element as HTMLElement).dataset.count, getComputedStyle(element, "::before").backgroundColor]);
    await page.goto(`${origin}/analytics/#/websites/${ids.quiet}?range=7d`);
    await expect.poll(() => page.textContent(".realtime"), { timeout: 10_000 }).toBe("0 visitors now");
    const grey = await page.evaluate(() => {
      const probe = document.createElement("span");
      probe.style.setProperty("color", "var(--prev)");
      document.body.append(probe);
      return getComputedStyle(probe).color;
    });
    expect(await dot()).toEqual(["0", grey]);
    await page.goto(`${origin}/analytics/#/websites/${ids.shop}?range=7d`);
    await expect.poll(() => page.textContent(".realtime"), { timeout: 10_000 }).toBe("3 visitors now");
    expect(await dot()).toEqual(["3", "rgb(34, 197, 94)"]);
  });

  it("speaks German, French and Spanish: chosen from the browser's language, switched in the header", async () => {
    const page = await newPage({ locale: "de-DE" });
    const languageFiles: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/assets/messages-")) languageFiles.push(new URL(request.url()).pathname);
    });
    // The sign-in page (server-rendered) speaks the browser's language, and so does the key form it links to.
    await page.goto(`${origin}/analytics/`);
    await page.waitForURL(`${origin}/analytics/login`);
    expect(await page.textContent(".sign-in h1")).toBe("Bei Tally anmelden");
    expect(await page.getAttribute("html", "lang")).toBe("de");
    await page.click("text=Stattdessen einen API-Schlüssel verwenden");
    await expect.poll(() => page.textContent(".sign-in h1")).toBe("Bei Tally anmelden");
    await page.fill('input[name="key"]', key);
    await page.click('button[type="submit"]');
    await page.waitForSelector(".website-link");
    expect(await page.textContent(".toolbar h1")).toBe("Websites");
    expect(await page.textContent("a.button")).toBe("Website hinzufügen");
    expect(await page.inputValue(".topbar select.language")).toBe("de");
    await page.goto(`${origin}/analytics/#/websites/${ids.shop}?range=7d`);
    await waitLoaded(page);
    expect(await page.textContent('[data-range="7d"]')).toBe("7 Tage");
    expect(await page.textContent('[data-total="pageviews"] span')).toBe("Seitenaufrufe");
    await page.screenshot({ path: screenshotPath("dashboard-german.png") });

    // The switch in the header: French from now on, in this browser.
    await page.selectOption(".topbar select.language", "fr");
    await page.waitForLoadState("load");
    await waitLoaded(page);
    expect(await page.textContent('[data-range="7d"]')).toBe("7 jours");
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    await page.selectOption(".topbar select.language", "es");
    await page.waitForLoadState("load");
    await waitLoaded(page);
    expect(await page.textContent('[data-total="visitors"] span')).toBe("Visitantes");
    // Each language's file once per page load (moving within the dashboard loads nothing).
    expect(languageFiles.map((path) => path.replace("/analytics/assets/", ""))).toEqual([
      "messages-de.json",
      "messages-fr.json",
      "messages-es.json",
    ]);
    // English needs no file: it is in the script.
    await page.selectOption(".topbar select.language", "en");
    await page.waitForLoadState("load");
    await waitLoaded(page);
    expect(await page.textContent('[data-range="7d"]')).toBe("7 days");
    expect(languageFiles).toHaveLength(3);
  });

  it("/script.js reaches Chromium compressed: at most the bench's gzip figure, plus headers", async () => {
    sitePages.set("/measured", `<!doctype html><title>Measured</title><script src="/analytics/script.js"></script>`);
    const page = await newPage();
    await page.goto(`${origin}/measured`);
    const entry = await page.evaluate(() => {
      const timing = performance
        .getEntriesByType("resource")
        .find((item) => item.name.endsWith("/analytics/script.js")) as PerformanceResourceTiming;
      return { transfer: timing.transferSize, encoded: timing.encodedBodySize, decoded: timing.decodedBodySize };
    });
    const gzip = BENCH.figures.find((figure) => figure.id === "tracker.gzip")!.value;
    expect(entry.decoded).toBe(Buffer.byteLength(trackerScript));
    expect(entry.encoded).toBeLessThanOrEqual(gzip);
    // Headers: status line, type, caching, ETag, encoding, Vary, CORS, length, date and keep-alive.
    expect(entry.transfer - entry.encoded).toBeGreaterThan(0);
    expect(entry.transfer).toBeLessThanOrEqual(gzip + 600);
  });
});
