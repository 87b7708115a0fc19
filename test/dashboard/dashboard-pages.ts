// Browser pages for the dashboard tests: one Chromium, one context a page (its own
// storage and theme), signed in with a key when asked, all closed together.
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { Tally } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";
import express from "express";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.js";
import { listen, type Served } from "../support/transports.js";

/**
 * Where the tests save screenshots: under test-results/ on every run; UPDATE_SCREENSHOTS=1
 * refreshes the copies the docs show (docs/screenshots/), so ordinary runs leave the tree clean.
 */
export const SCREENSHOTS = new URL(
  process.env.UPDATE_SCREENSHOTS === "1" ? "../../docs/screenshots/" : "../../test-results/screenshots/",
  import.meta.url,
);
export const screenshotPath = (name: string): string => new URL(name, SCREENSHOTS).pathname;

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface DashboardPageOptions extends Pick<
  BrowserContextOptions,
  "timezoneId" | "locale" | "bypassCSP" | "permissions" | "userAgent"
> {
  colorScheme?: "light" | "dark";
  viewport?: { width: number; height: number };
  /** An API key put in sessionStorage before the page loads, as the sign-in form does. */
  signedInWith?: string;
  /** Called with each uncaught page error. @default rethrows it */
  onPageError?(error: Error): void;
}

export function dashboardPages() {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  return {
    async launch(): Promise<void> {
      browser = await launchChromium();
      mkdirSync(SCREENSHOTS, { recursive: true });
    },
    async open({
      colorScheme = "light",
      viewport = DESKTOP,
      signedInWith,
      onPageError,
      ...rest
    }: DashboardPageOptions = {}): Promise<Page> {
      if (!browser) throw new Error("launch() first");
      const context = await browser.newContext({ viewport, colorScheme, deviceScaleFactor: 1, ...rest });
      contexts.push(context);
      if (signedInWith) await context.addInitScript((key) => sessionStorage.setItem("tally.key", key), signedInWith);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      page.on(
        "pageerror",
        onPageError ??
          ((error) => {
            throw error;
          }),
      );
      return page;
    },
    async close(): Promise<void> {
      for (const context of contexts.splice(0)) await context.close();
      await browser?.close();
    },
  };
}

/** Today's date in a time zone, `Y-m-d` (as the dashboard's "today"). */
export function todayIn(timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
}

export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/**
 * Tally under /analytics in Express, and on every other path a page of a measured site
 * (`sitePages`, by path: one with the tracking code, or a plain one), on one origin.
 */
export async function serveTallyAndSite(tally: Tally): Promise<{ server: Served; sitePages: Map<string, string> }> {
  const sitePages = new Map<string, string>();
  const app = express();
  app.use("/analytics", toNodeHandler(tally));
  app.use((request, response) => {
    response.type("html").set("cache-control", "no-store");
    response.send(sitePages.get(request.path) ?? "<!doctype html><title>Elsewhere</title><p>No tracker here.</p>");
  });
  return { server: await listen(createServer(app), ""), sitePages };
}
