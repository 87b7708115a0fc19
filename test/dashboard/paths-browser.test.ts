// The funnel and journey cards of the built dashboard in real headless Chromium: a
// funnel's bars, conversion and drop-off are the API's; a funnel defined through the
// card's form is stored and shown; a journey's columns are the API's nodes.
import type { Tally } from "@tally-analytics/core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";
import { addDays, dashboardPages, serveTallyAndSite, todayIn } from "./dashboard-pages.js";
import { generateTraffic } from "./demo-data.js";

warnIfSkipped("paths-browser");

const TIMEZONE = "Europe/Paris";

describe.skipIf(skip)("funnels and journeys in the dashboard, in Chromium", () => {
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
    await generateTraffic(tally, { domain: "paths.example", days: 40 });
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

    await page.click(".funnels summary");
    await page.fill('.funnel-form input[name="name"]', "Pricing");
    await page.fill('.funnel-form textarea[name="steps"]', "page:/pricing\nevent:Signup");
    await page.click('.funnel-form button[type="submit"]');
    await expect.poll(async () => (await tally.funnels.list(accountId, siteId)).map((f) => f.name)).toEqual(["Blog to signup", "Pricing"]);
    const created = (await tally.funnels.list(accountId, siteId))[1]!;
    const counted = await tally.stats.funnel(accountId, siteId, { funnel: created.id, ...range });
    await expect.poll(() => rowsOf(page, ".funnels")).toEqual(counted.data.map((row) => [`${row.step}. ${row.label}`, row.visitors]));

    // A bad definition is the API's 422, shown under the form.
    await page.fill('.funnel-form input[name="name"]', "Short");
    await page.fill('.funnel-form textarea[name="steps"]', "page:/");
    await page.click('.funnel-form button[type="submit"]');
    await expect.poll(() => page.textContent(".funnels .field-error")).toContain("2 to 8 steps");
  });

  it("shows a journey's steps as columns of the API's nodes", async () => {
    const page = await openSite();
    await page.fill('.journey input[name="start"]', "/pricing");
    await page.selectOption('.journey select[name="depth"]', "2");
    await page.click('.journey button[type="submit"]');
    const expected = await tally.stats.journey(accountId, siteId, { from_page: "/pricing", depth: 2, ...range });
    expect(expected.data.some((node) => node.step === 2)).toBe(true);
    await expect.poll(() => rowsOf(page, ".journey .flow")).toEqual(expected.data.map((node) => [node.value, node.visitors]));
    expect(await page.$$eval(".journey .flow ol", (lists) => lists.length)).toBe(3);
  });
});
