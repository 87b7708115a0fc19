// Every page of the dashboard, the sign-in pages and a share page, in real Chromium: axe-core
// finds no serious or critical problem and every button and link has enough contrast (4.5:1)
// at rest and on hover, in the light and the dark theme, on a desktop and a 390-px phone; and
// in German, French and Spanish no English text of the dashboard is left on any page.
import { createServer } from "node:http";
import type { Tally } from "@tally-analytics/core";
import { dashboardAssets } from "@tally-analytics/dashboard";
import { toNodeHandler } from "@tally-analytics/server/node";
import express from "express";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import { listen, type Served } from "../support/transports.js";
import { dashboardPages, DESKTOP, PHONE } from "./dashboard-pages.js";
import { generateTraffic, GEOIP_FIXTURE } from "./demo-data.js";
import { axeProblems, lowContrast } from "./page-checks.js";

warnIfSkipped("every-page-browser");

const PASSWORD = "correct horse battery staple";

interface View {
  name: string;
  path: string;
  /** Signed in with the account's key. */
  signedIn: boolean;
  ready: string;
}

describe.skipIf(skip)("every page, every theme, every size, every language", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let server: Served;
  let key = "";
  let views: View[] = [];
  const pages = dashboardPages();

  beforeAll(async () => {
    fixture = createTempTally({ geoip: GEOIP_FIXTURE });
    tally = fixture.tally;
    const account = await tally.accounts.create({ name: "Demo" });
    key = account.key;
    const id = (await tally.websites.create(account.accountId, { domain: "demo.example", timezone: "UTC", privacy: 0 })).id;
    await generateTraffic(tally, { domain: "demo.example", days: 10, seed: 9 });
    await tally.team.users.add(account.accountId, { email: "owner@demo.example", password: PASSWORD, role: "owner" });
    await tally.funnels.create(account.accountId, id, { name: "Signup", steps: ["/", "event:Signup"] });
    await tally.annotations.create(account.accountId, id, { date: new Date().toISOString().slice(0, 10), text: "Launch" });
    const app = express();
    app.use("/analytics", toNodeHandler(tally));
    server = await listen(createServer(app), "/analytics");
    const stats = `#/websites/${id}?range=7d&compare=previous_period&filter=browser:is:Chrome`;
    views = [
      { name: "sign-in", path: "/login", signedIn: false, ready: "form" },
      { name: "first user", path: "/signup", signedIn: false, ready: "form" },
      { name: "forgotten password", path: "/forgot-password", signedIn: false, ready: "h1" },
      { name: "key form", path: "/#/key", signedIn: false, ready: 'input[name="key"]' },
      { name: "share page", path: "/share/demo.example#range=7d", signedIn: false, ready: ".overview .chart" },
      { name: "websites", path: "/#/", signedIn: true, ready: ".website-link" },
      { name: "statistics", path: `/${stats}`, signedIn: true, ready: ".overview .chart" },
      { name: "live view", path: `/#/websites/${id}/live`, signedIn: true, ready: ".world-map" },
      { name: "sessions", path: `/#/websites/${id}/sessions?range=7d`, signedIn: true, ready: "tbody[data-session]" },
      { name: "settings", path: `/#/websites/${id}/settings`, signedIn: true, ready: "form.settings" },
      { name: "new website", path: "/#/new", signedIn: true, ready: 'input[name="domain"]' },
      { name: "account", path: "/#/account", signedIn: true, ready: 'input[name="email"]' },
      { name: "team", path: "/#/team", signedIn: true, ready: ".team-page .members" },
    ];
    await pages.launch();
  }, 120_000);

  afterAll(async () => {
    await pages.close();
    await server?.close();
    await fixture?.dispose();
  });

  /** A page opened and drawn: every answer in (nothing busy), the fonts laid out. */
  async function visit(page: Page, view: View): Promise<void> {
    await page.goto(`${server.base}${view.path}`);
    // Generous: a shared machine may be slow, and a wait that times out says which page it was.
    await page.waitForSelector(view.ready, { timeout: 20_000 }).catch((error: Error) => {
      throw new Error(`${view.name}: ${error.message}`);
    });
    await page.waitForFunction(() => document.querySelectorAll("[aria-busy=true]").length === 0, null, { timeout: 15_000 });
  }

  it(
    "axe-core and the contrast of every button and link, at rest and on hover: light and dark, desktop and phone",
    { timeout: 240_000 },
    async () => {
      const problems: string[] = [];
      for (const colorScheme of ["light", "dark"] as const)
        for (const viewport of [DESKTOP, PHONE]) {
          const signedOut = await pages.open({ colorScheme, viewport, bypassCSP: true });
          const signedIn = await pages.open({ colorScheme, viewport, bypassCSP: true, signedInWith: key });
          for (const view of views) {
            const page = view.signedIn ? signedIn : signedOut;
            const where = `${view.name} (${colorScheme}, ${viewport.width} px)`;
            await visit(page, view);
            for (const problem of [...(await axeProblems(page)), ...(await lowContrast(page))]) problems.push(`${where}: ${problem}`);
            // On hover: one element of each kind (tag and class), as the pointer leaves it on.
            const kinds = await page.$$eval("button, a[href], summary", (elements) => {
              const seen = new Set<string>();
              return elements.flatMap((element, index) => {
                const kind = `${element.tagName}.${element.className}`;
                const box = element.getBoundingClientRect();
                if (seen.has(kind) || box.width === 0 || element.closest("[hidden]") || (element as HTMLButtonElement).disabled) return [];
                seen.add(kind);
                return [index];
              });
            });
            for (const index of kinds) {
              const element = page.locator("button, a[href], summary").nth(index);
              if (!(await element.isVisible())) continue;
              await element.hover({ timeout: 2_000 }).catch(() => {});
              for (const problem of await lowContrast(page)) problems.push(`${where}, hovering: ${problem}`);
            }
            await page.mouse.move(0, 0);
          }
        }
      expect([...new Set(problems)]).toEqual([]);
    },
  );

  it("in German, French and Spanish no page shows a text of the English dashboard or sign-in pages", { timeout: 120_000 }, async () => {
    const english = new Set(
      [
        ...Object.values(JSON.parse(dashboardAssets["messages-en.json"].body) as Record<string, string>),
        ...Object.values((JSON.parse(dashboardAssets["sign-in-messages.json"].body) as Record<string, Record<string, string>>).en!),
      ].filter((text) => !text.includes("{") && /[a-z]{3}/.test(text)),
    );
    const tables = JSON.parse(dashboardAssets["sign-in-messages.json"].body) as Record<string, Record<string, string>>;
    const left: string[] = [];
    for (const locale of ["de", "fr", "es"] as const) {
      // A text that reads the same in the language (Export, Medium, Desktop) is not left over.
      const same = new Set([
        ...Object.values(JSON.parse(dashboardAssets[`messages-${locale}.json`].body) as Record<string, string>),
        ...Object.values(tables[locale]!),
      ]);
      const signedOut = await pages.open({ locale });
      const signedIn = await pages.open({ locale, signedInWith: key });
      for (const view of views) {
        const page = view.signedIn ? signedIn : signedOut;
        await visit(page, view);
        const texts = await page.evaluate(() => {
          const found: string[] = [];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent?.trim();
            if (text && !node.parentElement?.closest("code, pre, script, style")) found.push(text);
          }
          for (const element of document.querySelectorAll("[aria-label], [title], [placeholder]"))
            for (const name of ["aria-label", "title", "placeholder"]) {
              const value = element.getAttribute(name);
              if (value) found.push(value);
            }
          return found;
        });
        for (const text of texts) if (english.has(text) && !same.has(text)) left.push(`${locale} ${view.name}: "${text}"`);
      }
    }
    expect([...new Set(left)]).toEqual([]);
  });
});
