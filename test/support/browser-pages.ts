// What the tracker's browser tests share: the pages an embedded site serves, and today's
// statistics read back through the HTTP API (test/tracker/*-browser.test.ts).
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { launchChromium, skipWithoutChromium } from "./chromium.js";
import { stopEmbeddedSite, type EmbeddedSite } from "./embedded-site.js";

/** A page without the tracker. */
export const PLAIN_PAGE = '<!doctype html><html><head><meta charset="utf-8"></head><body>elsewhere</body></html>';

/** A page with a script tag (`src` under /analytics) plus extra attributes, head and body. */
export function scriptPage({ src = "script.ext.js", attrs = "", head = "", body = "" } = {}): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8">${head}` +
    `<script defer src="/analytics/${src}"${attrs ? ` ${attrs}` : ""}></script>` +
    `</head><body>${body}</body></html>`
  );
}

/** Today in UTC, `Y-m-d` (the embedded site's websites keep UTC). */
export const todayUtc = () => new Date().toISOString().slice(0, 10);

/** One statistic for today through the HTTP API, as {value: count}. */
export async function todaysStats(site: EmbeddedSite, name: string, extra: Record<string, string> = {}): Promise<Record<string, number>> {
  const query = new URLSearchParams({ name, from: todayUtc(), to: todayUtc(), per_page: "100", ...extra });
  const response = await fetch(`${site.origin}/analytics/api/v1/stats/${site.websiteId}?${query}`, {
    headers: { authorization: `Bearer ${site.key}`, accept: "application/json" },
  });
  const body = (await response.json()) as { data: { value: string; count: number }[] };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return Object.fromEntries(body.data.map((row) => [row.value, row.count]));
}

/** Polls until `expected` shows up (beacons are asynchronous), then asserts it exactly. */
export async function expectTodaysStats(
  site: EmbeddedSite,
  query: { name: string; expected: Record<string, number>; extra?: Record<string, string> },
): Promise<void> {
  await expect.poll(() => todaysStats(site, query.name, query.extra), { timeout: 5_000, interval: 50 }).toEqual(query.expected);
}

/** What chromiumPerTest gives each test: its site and browser context, and tabs whose errors fail it. */
export interface BrowserTest<S extends EmbeddedSite> {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly site: S;
  newPage(): Promise<Page>;
}

/**
 * One Chromium for the file; for each test a fresh site (`startSite`) and browser context,
 * both closed after it, and an error thrown in any tab opened by `newPage` fails the test.
 */
export function chromiumPerTest<S extends EmbeddedSite>(startSite: () => Promise<S>): BrowserTest<S> {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let site: S | undefined;
  let pageErrors: string[] = [];
  beforeAll(async () => {
    // Skipped tests (no Chromium, not CI) need none: describe.skipIf does not skip these hooks.
    if (!skipWithoutChromium) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    pageErrors = [];
    if (!browser) return;
    site = await startSite();
    context = await browser!.newContext({ viewport: { width: 1280, height: 720 } });
  });
  afterEach(async () => {
    await context?.close();
    if (site) await stopEmbeddedSite(site);
    expect(pageErrors, "page errors").toEqual([]);
  });
  return {
    get browser() {
      return browser!;
    },
    get context() {
      return context!;
    },
    get site() {
      return site!;
    },
    async newPage() {
      const tab = await context!.newPage();
      tab.on("pageerror", (error) => pageErrors.push(error.message));
      return tab;
    },
  };
}
