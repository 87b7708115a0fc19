// The HTML part of a report as the SMTP server received it, rendered by real headless
// Chromium with scripts off and the network closed: it asks for nothing remote, fits a
// phone without sideways scrolling, and is saved as the screenshot of docs/reports.md.
import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTraffic } from "../dashboard/demo-data.js";
import { launchChromium, skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { reportsFixture, SEND_TIME, type ReportsFixture } from "./fixture.js";

warnIfSkipped("report-email-browser");

// Every run saves it under test-results/; UPDATE_SCREENSHOTS=1 refreshes the copy docs/reports.md shows.
const SCREENSHOTS = new URL(
  process.env.UPDATE_SCREENSHOTS === "1" ? "../../docs/screenshots/" : "../../test-results/screenshots/",
  import.meta.url,
);

describe.skipIf(skip)("the HTML e-mail in Chromium", () => {
  let fixture: ReportsFixture;
  let browser: Browser;
  let html = "";

  beforeAll(async () => {
    fixture = await reportsFixture("sqlite");
    const demo = await fixture.account("demo", { timezone: "Europe/Paris" });
    await fixture.tally.websites.create(demo.id, { domain: "docs.demo.example", email: 1, timezone: "Europe/Paris" });
    await generateTraffic(fixture.tally, { domain: "demo.example", days: 30, now: SEND_TIME, seed: 3, sessionsPerDay: 40 });
    await generateTraffic(fixture.tally, { domain: "docs.demo.example", days: 30, now: SEND_TIME, seed: 8, sessionsPerDay: 15 });
    await fixture.tally.reports.runDue(SEND_TIME);
    html = (await fixture.smtp.waitFor(1))[0]?.html || "";
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.dispose();
  });

  async function render(width: number) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled: false, deviceScaleFactor: 1 });
    const requested: string[] = [];
    await context.route("**/*", (route) => {
      requested.push(route.request().url());
      return route.abort();
    });
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: "load" });
    return { context, page, requested };
  }

  it("renders with nothing remote, every website and figure visible, and is saved for the docs", async () => {
    const { context, page, requested } = await render(720);
    expect(requested).toEqual([]);
    const text = await page.evaluate(() => document.body.innerText);
    for (const expected of [
      "WEEKLY REPORT",
      "Nov 9 – 15, 2026",
      "demo.example",
      "docs.demo.example",
      "Visitors",
      "Bounce rate",
      "Visit duration",
      "Top pages",
      "Top referrers",
      "Top events",
      "Open the dashboard",
      "Unsubscribe from all of them",
    ]) {
      expect(text).toContain(expected);
    }
    await page.screenshot({ path: new URL("email-report.png", SCREENSHOTS).pathname, fullPage: true });
    await context.close();
  });

  it("fits a phone screen without scrolling sideways", async () => {
    const { context, page } = await render(375);
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await page.screenshot({ path: new URL("email-report-phone.png", SCREENSHOTS).pathname, fullPage: true });
    await context.close();
  });
});
