// What a Plausible or Umami user tried and missed, in real Chromium on one server: a sign-out
// that can be read, pages without their query (personal data) by default, a tracking code
// built from what to measure with an install check, the sign-in pages and names in the
// reader's language, websites by name and a QR code for the team, no controls a viewer cannot
// use, property names from the data, the filter builder, saved segments, the live view with
// its map, the sessions explorer, an account that can be renamed, Direct / None as a filter.
import { createServer } from "node:http";
import type { Tally } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";
import express from "express";
import type { Page } from "playwright-core";
import { encode } from "uqr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import { listen, type Served } from "../support/transports.js";
import { addDays, dashboardPages, PHONE, screenshotPath, todayIn } from "./dashboard-pages.js";
import { generateTraffic, GEOIP_FIXTURE } from "./demo-data.js";
import { contrastOf } from "./page-checks.js";

warnIfSkipped("plausible-user-browser");

const PASSWORD = "correct horse battery staple";
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

describe.skipIf(skip)("what a Plausible or Umami user expects, in Chromium", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let server: Served;
  let origin = "";
  let key = "";
  let viewerKey = "";
  let accountId = 0;
  let siteId = 0;
  const sitePages = new Map<string, string>();
  const pages = dashboardPages();
  const base = () => `${origin}/analytics`;

  beforeAll(async () => {
    fixture = createTempTally({ geoip: GEOIP_FIXTURE });
    tally = fixture.tally;
    const account = await tally.accounts.create({ name: "default" });
    ({ accountId, key } = account);
    siteId = (await tally.websites.create(accountId, { domain: "demo.example", timezone: "UTC", privacy: 0 })).id;
    await generateTraffic(tally, { domain: "demo.example", days: 20, seed: 5 });
    await tally.team.users.add(accountId, { email: "owner@demo.example", password: PASSWORD, role: "owner" });
    const viewer = await tally.team.users.add(accountId, { email: "viewer@demo.example", password: PASSWORD, role: "viewer" });
    viewerKey = (await tally.team.users.createKey(viewer.id, { name: "browser", scope: "write" })).key;
    await tally.funnels.create(accountId, siteId, { name: "Signup", steps: ["/", "event:Signup"] });
    const app = express();
    app.use("/analytics", toNodeHandler(tally));
    app.use((request, response) => void response.type("html").send(sitePages.get(request.path) ?? "<!doctype html><p>Elsewhere</p>"));
    server = await listen(createServer(app), "");
    origin = server.base.replace("127.0.0.1", "localhost");
    await pages.launch();
  }, 120_000);

  afterAll(async () => {
    await pages.close();
    await server?.close();
    await fixture?.dispose();
  });

  const api = async <T>(path: string, init: RequestInit = {}) => {
    const response = await fetch(`${base()}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const signIn = async (page: Page, email = "owner@demo.example") => {
    await page.goto(`${base()}/`);
    await page.waitForURL(`${base()}/login`);
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForSelector(".website-link");
  };
  const loaded = (page: Page) =>
    page.waitForFunction(() => document.querySelectorAll("[aria-busy=true]").length === 0 && !!document.querySelector(".overview .chart"));

  it("1. Sign out is readable at rest and on hover, in both themes, and stays one line at 390 px", async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const page = await pages.open({ colorScheme, viewport: PHONE });
      await signIn(page);
      const button = ".topbar .sign-out button";
      expect(await contrastOf(page, button), `${colorScheme} at rest`).toBeGreaterThanOrEqual(4.5);
      await page.hover(button);
      expect(await contrastOf(page, button), `${colorScheme} on hover`).toBeGreaterThanOrEqual(4.5);
      const lines = await page.$eval(button, (element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      });
      expect(lines, colorScheme).toBe(1);
      // The language menu shows its language, not just an arrow.
      expect(await page.$eval(".topbar select.language", (select) => select.getBoundingClientRect().width)).toBeGreaterThan(80);
    }
  });

  it("2. A website added in the dashboard keeps no query but what it lists: a form's ?email= is no page, here or on its share page", async () => {
    const page = await pages.open({ signedInWith: key });
    await page.goto(`${base()}/#/new`);
    await page.fill('input[name="domain"]', "shop.example");
    await page.fill('input[name="keep_params"]', "q");
    await page.click('button[type="submit"]');
    await page.waitForSelector(".snippet");
    const id = Number(/websites\/(\d+)\/settings/.exec(page.url())?.[1]);
    const site = (await api<{ data: { exclude_params: string } }>(`/websites/${id}`)).body.data;
    expect(site.exclude_params).toBe("&\n!q");
    for (const path of ["/thanks?email=a%40b.c", "/search?q=shoes&email=x%40y.z"])
      await tally.collect({ url: `https://shop.example${path}`, ip: "198.51.100.9", userAgent: CHROME });
    // The API's own default stays: nothing excluded.
    const plain = (
      await api<{ data: { id: number; exclude_params: string } }>("/websites", {
        method: "POST",
        body: JSON.stringify({ domain: "api.example" }),
      })
    ).body.data;
    expect(plain.exclude_params).toBe("");
    await tally.flush();
    await api(`/websites/${id}`, { method: "PUT", body: JSON.stringify({ privacy: 0 }) });
    const today = todayIn("UTC");
    const rows = (await api<{ data: { value: string }[] }>(`/stats/${id}?name=page&from=${today}&to=${today}`)).body.data;
    expect(rows.map((row) => row.value).sort()).toEqual(["/search?q=shoes", "/thanks"]);
    const share = await pages.open();
    await share.goto(`${base()}/share/shop.example#range=today`);
    await share.waitForSelector('section[data-card~="page"] li[data-value]');
    expect((await share.textContent('section[data-card~="page"] .rows')) ?? "").not.toContain("email");
  });

  it("3. The tracking code is built from what to measure; the exact tag works, its first hit shows, dropped hits say why", async () => {
    const id = (await tally.websites.create(accountId, { domain: "localhost", exclude_bots: 0, exclude_ips: "203.0.113.7" })).id;
    const page = await pages.open({ signedInWith: key });
    await page.goto(`${base()}/#/websites/${id}/settings`);
    for (const capability of ["outbound", "scroll", "vitals"]) await page.check(`input[name="capability-${capability}"]`);
    const tag = (await page.textContent(".snippet .copy-field code")) ?? "";
    expect(tag).toBe(`<script defer src="${base()}/script.ext.js" data-extensions="scroll vitals" data-outbound></script>`);
    sitePages.set("/tagged", `<!doctype html><html><head>${tag}</head><body><p>Hello</p></body></html>`);
    const visitor = await pages.open();
    await visitor.goto(`${origin}/tagged`);
    await expect.poll(() => page.textContent(".install-check .arrival"), { timeout: 15_000 }).toMatch(/^Received: a hit on \/tagged at /);
    await visitor.evaluate(() => (window as unknown as { tally: { track(name: string): void } }).tally.track("Signup"));
    const today = todayIn("UTC");
    await expect
      .poll(
        async () =>
          (await api<{ data: { value: string }[] }>(`/stats/${id}?name=event&from=${today}&to=${today}`)).body.data.map((row) => row.value),
        { timeout: 10_000 },
      )
      .toEqual(["Signup"]);
    await tally.collect({ url: "http://localhost/office", ip: "203.0.113.7", userAgent: CHROME });
    await expect.poll(() => page.textContent(".install-check .dropped-hits"), { timeout: 10_000 }).toContain("an excluded IP address");
    // A page of the app run on another host (no website has it) is listed too, with its host.
    await expect(tally.collect({ url: "http://127.0.0.1:5173/signup", ip: "198.51.100.4", userAgent: CHROME })).rejects.toThrow();
    await expect
      .poll(() => page.textContent(".install-check .dropped-hits"), { timeout: 10_000 })
      .toContain("no website has the host 127.0.0.1:5173 /signup");
    await page.screenshot({ path: screenshotPath("tracking-code-builder.png"), fullPage: true });
    // The Engagement card names the extension script, whole.
    await page.goto(`${base()}/#/websites/${id}?range=today`);
    await page.click('section[data-card~="scroll_depth"] [data-name="scroll_depth"]');
    await expect.poll(() => page.textContent('section[data-card~="scroll_depth"] .rows')).toContain("script.ext.js");
  });

  it("4. Sign-in pages and names speak the reader's language: German from the browser, French by a link, countries and channels too", async () => {
    const page = await pages.open({ locale: "de-DE" });
    await page.goto(`${base()}/`);
    await page.waitForURL(`${base()}/login`);
    expect(await page.textContent("h1")).toBe("Bei Tally anmelden");
    expect(await page.getAttribute("html", "lang")).toBe("de");
    expect(await page.textContent('label[for="password"]')).toBe("Passwort");
    for (const path of ["signup", "forgot-password"]) {
      await page.goto(`${base()}/${path}`);
      expect(await page.getAttribute("html", "lang")).toBe("de");
      expect(await page.textContent("main")).toContain("Zurück zur Anmeldung");
    }
    await page.click("text=Français");
    expect(await page.textContent("h1")).toMatch(/Mot de passe oublié/);
    // The choice is kept: the dashboard speaks French too.
    await page.goto(`${base()}/login`);
    expect(await page.textContent("h1")).toBe("Se connecter à Tally");
    const german = await pages.open({ locale: "de-DE", signedInWith: key });
    await german.goto(`${base()}/#/websites/${siteId}?range=30d`);
    await loaded(german);
    await german.click('section[data-card~="country"] [data-name="country"]');
    await expect.poll(() => german.textContent('section[data-card~="country"] .rows')).toContain("Vereinigtes Königreich");
    await expect.poll(() => german.textContent('section[data-card~="channel"] .rows')).toMatch(/Direkt|Verweis/);
    await german.click('section[data-card~="browser"] [data-name="device"]');
    await expect.poll(() => german.textContent('section[data-card~="browser"] .rows')).toMatch(/Desktop|Mobilgerät/);
  });

  it("5. The team picks websites by name, and two-factor set-up shows a QR code of its link", async () => {
    const page = await pages.open();
    await signIn(page);
    await page.goto(`${base()}/#/team`);
    await page.waitForSelector(".team-page");
    await page.uncheck('input[name="all_websites"]');
    await page.check('label:has-text("demo.example") input');
    await page.fill('.team-page input[name="email"]', "client@demo.example");
    await page.click('.team-page form button[type="submit"]');
    await page.waitForSelector(".invited");
    await page.goto(`${base()}/#/account`);
    await page.click("button.set-up-two-factor");
    const uri = (await (await page.waitForSelector(".otpauth-link")).getAttribute("href")) ?? "";
    const { data } = encode(uri, { ecc: "M", border: 4 });
    let expected = "";
    data.forEach((row, y) => row.forEach((dark, x) => dark && (expected += `M${x} ${y}h1v1h-1z`)));
    expect(await page.getAttribute(".qr-code path", "d")).toBe(expected);
  });

  it("6. A viewer sees no control that would be refused: no funnel form or delete, no goal or note form, no sharing a segment", async () => {
    const page = await pages.open({ signedInWith: viewerKey });
    await page.goto(`${base()}/#/websites/${siteId}?range=30d&filter=browser:is:Chrome`);
    await loaded(page);
    await page.waitForSelector(".funnels li[data-value]");
    const shown = (selector: string) =>
      page.$$eval(selector, (elements) => elements.filter((element) => element.getClientRects().length > 0).length);
    for (const selector of [".funnels summary", ".funnels header button", ".goal-form", ".add-note", ".note-form", ".settings-link"])
      expect(await shown(selector), selector).toBe(0);
    await page.click(".segments summary");
    expect(await page.locator(".segment-form").count()).toBe(1);
    expect(await page.locator('input[name="shared"]').count()).toBe(0);
  });

  it("8 and 9. Property names come from the data; the filter builder filters on anything; a saved segment is shared and listed", async () => {
    const page = await pages.open({ signedInWith: key });
    await page.goto(`${base()}/#/websites/${siteId}?range=30d`);
    await loaded(page);
    await page.click('section[data-card="goals"] li[data-value="Signup"] .row-action');
    await expect
      .poll(() => page.$$eval(".properties datalist option", (options) => options.map((option) => option.getAttribute("value"))))
      .toContain("plan");
    // The builder: is not, on the browser; contains, on the page.
    await page.click(".add-filter");
    await page.selectOption('.filter-builder select[name="dimension"]', "browser");
    await page.selectOption('.filter-builder select[name="operator"]', "is_not");
    await page.fill('.filter-builder input[name="value"]', "Firefox");
    await page.click('.filter-builder button[type="submit"]');
    await page.click(".add-filter");
    await page.selectOption('.filter-builder select[name="dimension"]', "page");
    await page.selectOption('.filter-builder select[name="operator"]', "contains");
    await page.fill('.filter-builder input[name="value"]', "blog");
    await page.click('.filter-builder button[type="submit"]');
    await expect
      .poll(() => new URLSearchParams(new URL(page.url()).hash.split("?")[1]).getAll("filter"))
      .toEqual(["browser:is_not:Firefox", "page:contains:blog"]);
    await loaded(page);
    const today = todayIn("UTC");
    const from = addDays(today, -29);
    const totals = async (filters: string[]) =>
      (
        await api<{ data: { visitors: number } }>(
          `/stats/${siteId}/totals?from=${from}&to=${today}&${filters.map((f) => `filter=${encodeURIComponent(f)}`).join("&")}`,
        )
      ).body.data.visitors;
    const filtered = await totals(["browser:is_not:Firefox", "page:contains:blog"]);
    await expect.poll(() => page.getAttribute('[data-total="visitors"] strong', "data-count")).toBe(String(filtered));
    // The builder open over the filtered page, as the screenshot shows it.
    await page.click(".add-filter");
    await page.selectOption('.filter-builder select[name="dimension"]', "country");
    await page.screenshot({ path: screenshotPath("filter-builder.png") });
    await page.click(".add-filter");
    // Saved for the team; the loose filters become the segment.
    await page.click(".segments summary");
    await page.fill('.segment-form input[name="name"]', "Blog readers, no Firefox");
    await page.click('.segment-form button[type="submit"]');
    await page.waitForSelector(".segment-chip");
    expect(new URLSearchParams(new URL(page.url()).hash.split("?")[1]).getAll("filter")).toEqual([]);
    await expect.poll(() => page.getAttribute('[data-total="visitors"] strong', "data-count")).toBe(String(filtered));
    await page.screenshot({ path: screenshotPath("saved-segment.png") });
    const viewer = await pages.open({ signedInWith: viewerKey });
    await viewer.goto(`${base()}/#/websites/${siteId}?range=30d`);
    await loaded(viewer);
    await viewer.click(".segments summary");
    await viewer.click('.segment-row button:has-text("Blog readers, no Firefox")');
    await expect.poll(() => viewer.getAttribute('[data-total="visitors"] strong', "data-count")).toBe(String(filtered));
  });

  it("9. The live view: 30 minutes by minute, pages, sources, countries on a world map, updated without reloading; the sessions explorer", async () => {
    const page = await pages.open({ signedInWith: key });
    await page.goto(`${base()}/#/websites/${siteId}/live`);
    await page.waitForSelector(".live-chart .chart");
    expect(await page.$$eval(".live-chart .chart table tr", (rows) => rows.length - 1)).toBe(30);
    const live = (await api<{ data: { visitors: number; countries: { value: string }[] } }>(`/live/${siteId}`)).body.data;
    await expect.poll(() => page.getAttribute(".live-now", "data-count")).toBe(String(live.visitors));
    await page.waitForSelector(".world-map path.country");
    expect(await page.$$eval(".world-map path.country", (paths) => paths.length)).toBeGreaterThan(150);
    for (const { value } of live.countries)
      expect(Number(await page.getAttribute(`.world-map [data-country="${value.split(":")[0]}"]`, "data-visitors"))).toBeGreaterThan(0);
    // A new visitor shows without a reload.
    await tally.collect({ url: "https://demo.example/live-now", ip: "81.2.69.160", userAgent: CHROME });
    await expect.poll(() => page.textContent(".live-list .rows"), { timeout: 15_000 }).toContain("/live-now");
    await page.screenshot({ path: screenshotPath("live-view.png"), fullPage: true });
    // The sessions explorer: newest first; one opens with its pages in order.
    await page.goto(`${base()}/#/websites/${siteId}/sessions?range=today`);
    await page.waitForSelector("tbody[data-session]");
    await page.click("tbody[data-session] .session-open");
    await page.waitForSelector(".session-hits li");
    expect(await page.$$eval(".session-hits li", (items) => items.length)).toBeGreaterThan(0);
  });

  it("9. Several share links, each opening a private website's statistics until deleted; a public page embeds", async () => {
    const id = (await tally.websites.create(accountId, { domain: "private.example", timezone: "UTC" })).id;
    await tally.collect({ url: "https://private.example/", ip: "81.2.69.161", userAgent: CHROME });
    const page = await pages.open({ signedInWith: key });
    await page.goto(`${base()}/#/websites/${id}/settings`);
    for (const name of ["Investors", "Press"]) {
      await page.fill('input[name="link_name"]', name);
      await page.press('input[name="link_name"]', "Enter");
      await page.waitForSelector(`.share-link-row:has-text("${name}")`);
    }
    const url = (await page.textContent('.share-link-row:has-text("Investors") code')) ?? "";
    expect(url).toMatch(new RegExp(`^${base()}/share/private\\.example\\?link=[\\w-]{24}$`));
    const guest = await pages.open();
    await guest.goto(url);
    await guest.waitForSelector(".overview .chart");
    expect(await guest.textContent("h1")).toBe("private.example");
    await page.click('.share-link-row:has-text("Investors") button.danger');
    await page.waitForSelector('.share-link-row:has-text("Investors")', { state: "detached" });
    const late = await pages.open();
    expect((await late.goto(url))?.status()).toBe(404);
    // A public website's page in an iframe: its own page says so, and shows the statistics alone.
    const embedded = await pages.open();
    const answer = await embedded.goto(`${base()}/share/demo.example?embed=true`);
    expect(answer?.headers()["content-security-policy"]).toContain("frame-ancestors *");
    await embedded.waitForSelector(".overview .chart");
    expect(await embedded.isVisible(".share-bar")).toBe(false);
  });

  it("9. The Locations card has its map too", async () => {
    const page = await pages.open({ signedInWith: key });
    await page.goto(`${base()}/#/websites/${siteId}?range=30d`);
    await page.waitForSelector(".map-card .world-map path.country.level-5");
  });

  it("10. The account is renamed in the dashboard; Direct / None filters like any row", async () => {
    const page = await pages.open({ signedInWith: key });
    await page.goto(`${base()}/#/account`);
    await page.fill('input[name="name"]', "Demo shop");
    await page.click('form[aria-labelledby="account-name-title"] button[type="submit"]');
    await expect.poll(async () => (await api<{ data: { name: string } }>("/account")).body.data.name).toBe("Demo shop");
    expect(await page.textContent("h1")).toContain("Demo shop");
    await page.goto(`${base()}/#/websites/${siteId}?range=30d`);
    await loaded(page);
    await page.click('section[data-card~="referrer"] li.extra-row button.row-label');
    await expect.poll(() => new URLSearchParams(new URL(page.url()).hash.split("?")[1]).getAll("filter")).toEqual(["referrer:is:(none)"]);
    expect(await page.textContent(".filters .chip")).toContain("Referrer is Direct / None");
  });
});
