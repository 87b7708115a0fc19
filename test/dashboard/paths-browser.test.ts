// The funnel, journey and engagement cards of the built dashboard in real headless Chromium:
// a funnel's bars, conversion and drop-off are the API's; a funnel defined through the
// card's form is stored and shown; a journey's columns are the API's nodes; each page's scroll
// depth, time on page (with the comparison's) and web vitals (coloured) are the API's.
import type { Tally } from "@tally-analytics/core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";
import { addDays, dashboardPages, screenshotPath, serveTallyAndSite, todayIn } from "./dashboard-pages.js";
import { generateTraffic } from "./demo-data.js";

warnIfSkipped("paths-browser");

const TIMEZONE = "Europe/Paris";

/** web.dev's thresholds (docs/statistics.md, "Engagement"): good up to the first, poor above the second. */
const THRESHOLDS = { lcp: [2500, 4000], inp: [200, 500], cls: [0.1, 0.25], fcp: [1800, 3000], ttfb: [800, 1800] } as const;

describe.skipIf(skip)("funnels, journeys and engagement in the dashboard, in Chromium", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let server: Served;
  let key = "";
  let accountId = 0;
  let siteId = 0;
  const pages = dashboardPages();
  const today = todayIn(TIMEZONE);
  const range = { from: addDays(today, -29), to: today };

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    const account = await tally.accounts.create({ name: "Paths" });
    [key, accountId] = [account.key, account.accountId];
    siteId = (await tally.websites.create(accountId, { domain: "paths.example", timezone: TIMEZONE })).id;
    await generateTraffic(tally, { domain: "paths.example", days: 70, engagement: true });
    await tally.funnels.create(accountId, siteId, { name: "Blog to signup", steps: ["page:/", "page:/blog/*", "event:Signup"] });
    ({ server } = await serveTallyAndSite(tally));
    await pages.launch();
  });

  afterAll(async () => {
    await pages.close();
    await server?.close();
    await fixture?.dispose();
  });

  /** The rows of a list as (label, count) pairs. */
  const rowsOf = (page: Page, selector: string) =>
    page.$$eval(`${selector} li[data-count]`, (items) =>
      items.map((item) => [item.getAttribute("data-value"), Number(item.getAttribute("data-count"))]),
    );

  async function openSite(): Promise<Page> {
    const page = await pages.open({ signedInWith: key, timezoneId: TIMEZONE });
    await page.goto(`${server.base}/analytics/#/websites/${siteId}?range=30d`);
    await page.waitForSelector(".funnels .funnel-rows li[data-count]");
    return page;
  }

  it("shows the funnel's steps, conversion and drop-off as the API counts them; defines another", async () => {
    const page = await openSite();
    const [funnel] = await tally.funnels.list(accountId, siteId);
    const expected = await tally.stats.funnel(accountId, siteId, { funnel: funnel!.id, ...range });
    expect(expected.data[0]!.visitors).toBeGreaterThan(0);
    expect(expected.data[2]!.drop_off).toBeGreaterThan(0);
    expect(await rowsOf(page, ".funnels")).toEqual(expected.data.map((row) => [`${row.step}. ${row.label}`, row.visitors]));
    const extras = await page.$$eval(".funnels .row-extra", (items) => items.map((item) => item.textContent));
    expect(extras[2]).toContain(`${expected.data[2]!.drop_off}`);

    // Steps are picked, not typed in a syntax: a page (a path alone) or an event, each in its row.
    await page.click(".funnels summary");
    await page.fill('.funnel-form input[name="name"]', "Pricing");
    await page.fill('.funnel-form .step-row:nth-child(1) input[name="step"]', "/pricing");
    await page.selectOption('.funnel-form .step-row:nth-child(2) select[name="step_type"]', "event");
    await page.fill('.funnel-form .step-row:nth-child(2) input[name="step"]', "Signup");
    await page.click('.funnel-form button[type="submit"]');
    await expect.poll(async () => (await tally.funnels.list(accountId, siteId)).map((f) => f.name)).toEqual(["Blog to signup", "Pricing"]);
    const created = (await tally.funnels.list(accountId, siteId))[1]!;
    const counted = await tally.stats.funnel(accountId, siteId, { funnel: created.id, ...range });
    await expect.poll(() => rowsOf(page, ".funnels")).toEqual(counted.data.map((row) => [`${row.step}. ${row.label}`, row.visitors]));

    // A bad definition is the API's 422, shown under the form, each message once.
    await page.fill('.funnel-form input[name="name"]', "Short");
    await page.fill('.funnel-form .step-row:nth-child(1) input[name="step"]', "/");
    await page.click('.funnel-form button[type="submit"]');
    await expect.poll(() => page.textContent(".funnels .field-error")).toBe("A funnel has 2 to 8 steps.");
  });

  it("shows a journey's steps as columns of the API's nodes", async () => {
    const page = await openSite();
    await page.fill('.journey input[name="step"]', "/pricing");
    await page.selectOption('.journey select[name="depth"]', "2");
    await page.click('.journey button[type="submit"]');
    const expected = await tally.stats.journey(accountId, siteId, { from_page: "/pricing", depth: 2, ...range });
    expect(expected.data.some((node) => node.step === 2)).toBe(true);
    await expect.poll(() => rowsOf(page, ".journey .flow")).toEqual(expected.data.map((node) => [node.value, node.visitors]));
    expect(await page.$$eval(".journey .flow ol", (lists) => lists.length)).toBe(3);
    // The journey takes the card row's whole width, every step in view: no sideways scroll.
    const sizes = await page.$eval(".journey", (card) => {
      const flow = card.querySelector<HTMLElement>(".flow")!;
      return {
        card: card.getBoundingClientRect().width,
        row: card.parentElement!.getBoundingClientRect().width,
        scroll: flow.scrollWidth,
        width: flow.clientWidth,
      };
    });
    expect(sizes.card).toBeCloseTo(sizes.row, 0);
    expect(sizes.scroll).toBeLessThanOrEqual(sizes.width);
  });

  it("shows each page's scroll depth, time on page and web vitals as the API counts them, with the comparison's", async () => {
    const page = await pages.open({ signedInWith: key, timezoneId: TIMEZONE });
    await page.goto(`${server.base}/analytics/#/websites/${siteId}?range=30d&compare=previous_period`);
    const card = '[data-card="scroll_depth time_on_page vitals"]';
    const query = { ...range, per_page: "10", compare: "previous_period" as const };
    const shown = () =>
      page.$$eval(`${card} li[data-count]`, (items) =>
        items.map((item) => {
          const figure = item.querySelector<HTMLElement>("[data-figure]");
          const vitals = [...item.querySelectorAll<HTMLElement>("[data-vital]")].map((vital) => [
            vital.dataset.vital,
            Number(vital.dataset.p75),
            vital.className,
          ]);
          return [item.dataset.value, Number(item.dataset.count), figure ? [figure.dataset.figure, figure.dataset.previous] : vitals];
        }),
      );
    for (const [name, key] of [
      ["scroll_depth", "average"],
      ["time_on_page", "seconds"],
    ] as const) {
      await page.click(`${card} [data-name="${name}"]`);
      const expected = await tally.stats.query(accountId, siteId, { name, ...query });
      expect(expected.data.length).toBeGreaterThan(3);
      expect(expected.data.some((row) => row.previous_figure !== undefined)).toBe(true);
      await expect
        .poll(shown)
        .toEqual(expected.data.map((row) => [row.value, row.count, [String(row[key]), String(row.previous_figure ?? "")]]));
      await page.locator(card).screenshot({ path: screenshotPath(`dashboard-${name}.png`) });
    }
    await page.click(`${card} [data-name="vitals"]`);
    const vitals = await tally.stats.query(accountId, siteId, { name: "vitals", ...query });
    const rating = (vital: keyof typeof THRESHOLDS, p75: number) =>
      p75 <= THRESHOLDS[vital][0] ? "good" : p75 > THRESHOLDS[vital][1] ? "poor" : "fair";
    const expected = vitals.data.map((row) => [
      row.value,
      row.count,
      Object.entries(row.vitals!).flatMap(([vital, figures]) =>
        figures === null ? [] : [[vital, figures.p75, `vital ${rating(vital as keyof typeof THRESHOLDS, figures.p75)}`]],
      ),
    ]);
    await expect.poll(shown).toEqual(expected);
    await page.locator(card).screenshot({ path: screenshotPath("dashboard-vitals.png") });
    // Every colour shows up in the generated spread of values.
    expect(new Set(expected.flatMap((row) => (row[2] as string[][]).map((vital) => vital[2])))).toEqual(
      new Set(["vital good", "vital fair", "vital poor"]),
    );

    // A range without signals says how to get them.
    await page.goto(`${server.base}/analytics/#/websites/${siteId}?range=custom&from=2001-01-01&to=2001-01-02`);
    await expect.poll(() => page.textContent(`${card} .empty`)).toContain('data-extensions="scroll vitals"');
  });
});
