// Analytics inside the host app's product: a real Express app whose own sign-in (a cookie
// naming the customer) is Tally's `authenticate` hook, two customers each with a website,
// and a page of the app with <tally-totals>, <tally-chart> and <tally-top>, rendered by
// headless Chromium; each customer sees only their own site; axe-core in both themes.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createTally, type Tally } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { screenshotPath } from "../dashboard/dashboard-pages.js";

warnIfSkipped("components-browser");

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** The app's page for a customer: their site's statistics, in the app's own layout. */
const statsPage = (site: number) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your traffic</title>` +
  `<script src="/analytics/assets/components.js"></script></head><body><main><h1>Your traffic</h1>` +
  `<tally-totals api="/analytics/api/v1" site="${site}"></tally-totals>` +
  `<tally-chart api="/analytics/api/v1" site="${site}" name="pageviews" days="7"></tally-chart>` +
  `<tally-top api="/analytics/api/v1" site="${site}" name="page" limit="3"></tally-top></main></body></html>`;

describe.skipIf(skip)("web components in the host app's pages, in Chromium", () => {
  let browser: Browser;
  let tally: Tally;
  let server: Server;
  let origin: string;
  const customers = new Map<string, { accountId: number; site: number }>();

  beforeAll(async () => {
    tally = createTally({ database: ":memory:" });
    for (const [name, domain, pages] of [
      ["alice", "alice-shop.example", ["/", "/shoes", "/shoes"]],
      ["bob", "bob-books.example", ["/novels"]],
    ] as const) {
      const { accountId } = await tally.accounts.create({ name });
      const { id } = await tally.websites.create(accountId, { domain });
      customers.set(name, { accountId, site: id });
      for (const [i, page] of pages.entries())
        await tally.collect({ url: `https://${domain}${page}`, ip: `192.0.2.${i + 1}`, userAgent: UA });
    }
    const app = express();
    // The app's own sign-in: the customer's name in a cookie (a real app checks a session).
    const customerOf = (cookie: string | null) => customers.get(/(?:^|;\s*)customer=(\w+)/.exec(cookie ?? "")?.[1] ?? "");
    app.use(
      "/analytics",
      toNodeHandler(tally, { authenticate: (request) => customerOf(request.headers.get("cookie"))?.accountId ?? null }),
    );
    app.get("/traffic", (req, res) => {
      const customer = customerOf(req.get("cookie") ?? null);
      if (!customer) return void res.status(401).send("Sign in first.");
      res.type("html").send(statsPage(Number(req.query.site ?? customer.site)));
    });
    server = await new Promise((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await tally?.close();
  });

  async function open(customer: string, query = "", colorScheme: "light" | "dark" = "light"): Promise<Page> {
    const context = await browser.newContext({ colorScheme });
    await context.addCookies([{ name: "customer", value: customer, url: origin }]);
    const page = await context.newPage();
    await page.goto(`${origin}/traffic${query}`);
    await page.waitForFunction(() =>
      ["tally-totals", "tally-chart", "tally-top"].every((tag) =>
        document.querySelector(tag)?.shadowRoot?.querySelector("dl, svg, table, p"),
      ),
    );
    return page;
  }

  /** What an element shows: the text of its shadow root, its style sheet aside. */
  const shadowText = (page: Page, tag: string) =>
    page.evaluate(
      (name) =>
        [...document.querySelector(name)!.shadowRoot!.children]
          .filter((child) => child.tagName !== "STYLE")
          .map((child) => child.textContent)
          .join(""),
      tag,
    );

  it("shows each customer their own site's figures", async () => {
    const alice = await open("alice");
    expect(await shadowText(alice, "tally-totals")).toContain("Pageviews3");
    expect(await shadowText(alice, "tally-top")).toMatch(/\/shoes2\/1/);
    expect(
      await alice.evaluate(() => document.querySelector("tally-chart")!.shadowRoot!.querySelector("svg")!.getAttribute("aria-label")),
    ).toBe("pageviews by day: 3 in all");
    // The chart has its axes: round counts from 0 to a top above the highest (3 pageviews today) with
    // a gridline each, and the first, middle and last of the 7 days under the bars.
    const axes = await alice.evaluate(() => {
      const root = document.querySelector("tally-chart")!.shadowRoot!;
      return {
        y: [...root.querySelectorAll(".y span")].map((span) => span.textContent),
        x: [...root.querySelectorAll(".x span")].map((span) => span.textContent),
        gridlines: [...root.querySelectorAll("svg line")].map((line) => Number(line.getAttribute("y1"))),
        today: Number([...root.querySelectorAll("rect")].at(-1)!.getAttribute("height")),
        language: navigator.language,
      };
    });
    expect(axes.y).toEqual(["4", "3", "2", "1", "0"]);
    expect(axes.gridlines).toEqual([75, 50, 25, 0]);
    expect(axes.today).toBe(75);
    const date = (daysAgo: number) =>
      new Date(Date.now() - daysAgo * 86_400_000).toLocaleDateString(axes.language, { month: "short", day: "numeric", timeZone: "UTC" });
    expect(axes.x).toEqual([date(6), date(3), date(0)]);
    const bob = await open("bob");
    expect(await shadowText(bob, "tally-totals")).toContain("Pageviews1");
    expect(await shadowText(bob, "tally-top")).toContain("/novels");
    await alice.context().close();
    await bob.context().close();
  });

  it("shows another customer's site as no data: isolation through the API", async () => {
    const bob = await open("bob", `?site=${customers.get("alice")!.site}`);
    for (const tag of ["tally-totals", "tally-chart", "tally-top"]) expect(await shadowText(bob, tag)).toBe("No data.");
    await bob.context().close();
  });

  for (const scheme of ["light", "dark"] as const) {
    it(`passes axe-core in the ${scheme} theme`, async () => {
      const page = await open("alice", "", scheme);
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: { id: string; nodes: unknown[] }[] }> } })
          .axe;
        return (await axe.run(document)).violations.map((violation) => violation.id);
      });
      expect(violations).toEqual([]);
      await page.setViewportSize({ width: 720, height: 560 });
      await page.screenshot({ path: screenshotPath(`components-${scheme}.png`), fullPage: true });
      const background = await page.evaluate(() => getComputedStyle(document.querySelector("tally-totals")!).backgroundColor);
      expect(background).toBe(scheme === "dark" ? "rgb(17, 24, 39)" : "rgb(255, 255, 255)");
      await page.context().close();
    });
  }
});
