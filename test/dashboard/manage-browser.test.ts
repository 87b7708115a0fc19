// Managing websites through the dashboard's real UI in headless Chromium (clicks and
// typing, never the API): add a website, copy its tracking code, see the first pageview
// and a page's engaged time arrive; filter by clicking rows and check every figure against
// the API with the same filters; comparison; privacy 2 and its share page; account
// reports; export; deletion; axe-core in both themes; a 390-px phone. Saves screenshots
// (UPDATE_SCREENSHOTS=1 refreshes docs/screenshots/).
import { readFileSync } from "node:fs";
import type { Tally } from "@tally-analytics/core";
import type { TotalFigures as Figures } from "@tally-analytics/client";
import { strFromU8, unzipSync } from "fflate";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";
import { addDays, dashboardPages, serveTallyAndSite, PHONE, screenshotPath, todayIn } from "./dashboard-pages.js";
import { generateTraffic, GEOIP_FIXTURE } from "./demo-data.js";
import { axeProblems } from "./page-checks.js";

warnIfSkipped("manage-browser");

interface Row {
  value: string;
  count: number;
}

const TIMEZONE = "Europe/Paris";
const FIGURES = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration"] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
function daysFrom(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

describe.skipIf(skip)("managing websites in the dashboard, in Chromium", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let accountId = 0;
  let key = "";
  let demoId = 0;
  let server: Served;
  let origin = ""; // Tally, under /analytics
  let siteOrigin = ""; // the measured site: the same server as http://localhost:port
  const pages = dashboardPages();
  /** The measured site's pages by path. */
  let sitePages = new Map<string, string>();
  let pageErrors: string[] = [];

  beforeAll(async () => {
    fixture = createTempTally({ geoip: GEOIP_FIXTURE });
    tally = fixture.tally;
    ({ accountId, key } = await tally.accounts.create({ name: "Demo" }));
    // It counts its subdomains: the Hostnames tab has docs.demo.example and blog.demo.example beside it.
    demoId = (await tally.websites.create(accountId, { domain: "demo.example", timezone: TIMEZONE, include_subdomains: 1 })).id;
    await generateTraffic(tally, { domain: "demo.example", subdomains: ["docs", "blog"] });

    ({ server, sitePages } = await serveTallyAndSite(tally));
    origin = server.base;
    siteOrigin = origin.replace("127.0.0.1", "localhost");
    await pages.launch();
  });

  afterAll(async () => {
    await pages.close();
    await server?.close();
    await fixture?.dispose();
  });

  /** A page in its own context, in Paris; `bypassCSP` for axe-core, whose script the page's policy would refuse. */
  const newPage = (
    options: { colorScheme?: "light" | "dark"; viewport?: { width: number; height: number }; signedIn?: boolean; bypassCSP?: boolean } = {},
  ) =>
    pages.open({
      ...options,
      timezoneId: TIMEZONE,
      locale: "en-GB",
      permissions: ["clipboard-read", "clipboard-write"],
      onPageError: (error) => pageErrors.push(error.message),
      ...(options.signedIn ? { signedInWith: key } : {}),
    });

  /** An API answer (to compare with what the page shows). */
  async function api<T>(
    path: string,
    query: Record<string, string | string[]> = {},
    init: RequestInit = {},
  ): Promise<{ status: number; body: T }> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) for (const item of [value].flat()) params.append(name, item);
    const response = await fetch(`${origin}/analytics/api/v1${path}${params.size ? `?${params}` : ""}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
    });
    return { status: response.status, body: (await response.json()) as T };
  }
  const statRows = async (id: number, query: Record<string, string | string[]>) =>
    (await api<{ data: (Row & Record<string, unknown>)[] }>(`/stats/${id}`, query)).body.data.map(({ value, count }) => ({ value, count }));
  async function allStatRows(id: number, query: Record<string, string | string[]>): Promise<Row[]> {
    const rows: Row[] = [];
    for (let page = 1; ; page++) {
      const { body } = await api<{ data: Row[]; meta: { last_page: number } }>(`/stats/${id}`, {
        ...query,
        per_page: "100",
        page: String(page),
      });
      rows.push(...body.data.map(({ value, count }) => ({ value, count })));
      if (page >= body.meta.last_page) return rows;
    }
  }
  const totals = async (id: number, query: Record<string, string | string[]>) =>
    (await api<{ data: Figures; previous?: Figures; comparison?: { from: string; to: string } }>(`/stats/${id}/totals`, query)).body;

  async function waitLoaded(page: Page): Promise<void> {
    await page.waitForSelector(".overview .chart");
    await page.waitForFunction(
      () => document.querySelectorAll("[aria-busy]").length === 0 && document.querySelectorAll(".rows li").length >= 6,
    );
  }

  /** What the page shows: the top figures, the main chart's table, the hours chart's table. */
  async function shown(page: Page) {
    return page.evaluate(
      (figures) => {
        const table = (selector: string) =>
          [...document.querySelectorAll(`${selector} table tr`)]
            .slice(1)
            .map((row) => [...row.querySelectorAll("td")].map((cell) => Number(cell.textContent)));
        return {
          totals: Object.fromEntries(
            figures.map((name) => [name, Number(document.querySelector<HTMLElement>(`[data-total="${name}"] strong`)?.dataset.count)]),
          ),
          previous: Object.fromEntries(
            figures.map((name) => [name, Number(document.querySelector<HTMLElement>(`[data-total="${name}"] .change`)?.dataset.previous)]),
          ),
          chart: table(".main-chart"),
          hours: table(".hours:not([hidden]) .hours-chart"),
        };
      },
      [...FIGURES],
    );
  }

  /** The rows of the statistic a card shows (not Direct / None, which it adds). */
  async function cardRows(page: Page, card: string): Promise<Row[]> {
    return page.$$eval(`section[data-card~="${card}"] .rows > li[data-value]:not(.extra-row)`, (items) =>
      items.map((item) => ({ value: (item as HTMLElement).dataset.value ?? "", count: Number((item as HTMLElement).dataset.count) })),
    );
  }
  const chips = (page: Page) => page.$$eval(".chip", (buttons) => buttons.map((button) => button.getAttribute("aria-label")));
  const urlFilters = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split("?")[1] ?? "").getAll("filter");

  /** Every figure on the page equals the API's answer with the same range and filters. */
  async function expectEveryFigure(page: Page, from: string, to: string, filter: string[]): Promise<void> {
    const query = { from, to, filter };
    const figures = (await totals(demoId, query)).data;
    const dayVisitors = await allStatRows(demoId, { ...query, name: "visitors" });
    const months = [...new Set(daysFrom(from, to).map((day) => day.slice(0, 7)))];
    const byMonth = months.map((month) => [
      dayVisitors.filter((row) => row.value.startsWith(month)).reduce((sum, row) => sum + row.count, 0),
    ]);
    const hourOf = (rows: Row[], hour: number) => rows.find((row) => row.value === String(hour).padStart(2, "0"))?.count ?? 0;
    const visitorHours = await allStatRows(demoId, { ...query, name: "visitors_hours" });
    const hours = Array.from({ length: 24 }, (_, hour) => [hourOf(visitorHours, hour)]);
    await expect
      .poll(async () => {
        const { totals: tiles, chart, hours: hourTable } = await shown(page);
        return { tiles, chart, hours: hourTable };
      })
      .toEqual({ tiles: figures, chart: byMonth, hours });
    expect(figures.visitors).toBeGreaterThan(0);

    // Every tab of every card, first page.
    const cards = await page.$$eval("section.breakdown[data-card]", (sections) =>
      sections.map((section) => (section as HTMLElement).dataset.card ?? ""),
    );
    expect(cards.length).toBeGreaterThanOrEqual(6);
    let checked = 0;
    for (const card of cards) {
      const [first, ...others] = card.split(" ");
      for (const name of [first!, ...others]) {
        if (others.length > 0) await page.click(`section[data-card="${card}"] [role="tab"][data-name="${name}"]`);
        const expected = await statRows(demoId, { ...query, name, per_page: "10" });
        await expect.poll(() => cardRows(page, first!), { message: `card ${name}` }).toEqual(expected);
        if (name === "goals")
          await expect.poll(() => page.$$eval(`section[data-card="goals"] .row-extra`, (cells) => cells.length)).toBe(expected.length);
        checked++;
      }
      if (others.length > 0) await page.click(`section[data-card="${card}"] [role="tab"][data-name="${first}"]`);
    }
    expect(checked).toBe(27); // 4 page tabs (hostnames), 2 acquisition, 6 sources, 4 locations, 5 devices and versions, 2 screens and languages, 3 engagement, goals
  }

  it("adds a website, copies its tracking code, sees the first pageview arrive, then the engaged time of a page read for 3 s", async () => {
    pageErrors = [];
    const page = await newPage();
    await page.goto(`${origin}/analytics/#/key`);
    await page.fill('input[name="key"]', key);
    await page.click('button[type="submit"]');
    await page.click("text=Add website");
    await page.waitForSelector('input[name="domain"]');
    // The time zone defaults to the browser's.
    expect(await page.inputValue('input[name="timezone"]')).toBe(TIMEZONE);

    // A refusal of the API shows beside its field.
    await page.fill('input[name="domain"]', "not a domain");
    await page.click('button[type="submit"]');
    const refused = await api<{ errors: Record<string, string[]> }>(
      "/websites",
      {},
      { method: "POST", body: JSON.stringify({ domain: "not a domain" }) },
    );
    expect(refused.status).toBe(422);
    await expect.poll(() => page.textContent('[data-error-for="domain"]')).toBe(refused.body.errors.domain?.join(" "));
    expect(await page.getAttribute('input[name="domain"]', "aria-invalid")).toBe("true");
    await page.fill('input[name="timezone"]', "Mars/Olympus");
    await page.fill('input[name="domain"]', "http://LOCALHOST/");
    await page.click('button[type="submit"]');
    await expect.poll(() => page.textContent('[data-error-for="timezone"]')).toMatch(/time ?zone/i);
    expect(await page.textContent('[data-error-for="domain"]')).toBe("");
    await page.fill('input[name="timezone"]', TIMEZONE);
    await page.click('button[type="submit"]');

    // Its settings page opens on the tracking code, waiting.
    await page.waitForSelector(".snippet");
    const id = Number(/#\/websites\/(\d+)\/settings$/.exec(page.url())?.[1]);
    const created = await api<{ data: { domain: string; timezone: string } }>(`/websites/${id}`);
    expect(created.body.data).toMatchObject({ domain: "localhost", timezone: TIMEZONE });
    const snippet = `<script defer src="${origin}/analytics/script.js"></script>`;
    expect(await page.textContent(".snippet code")).toBe(snippet);
    await page.click('.snippet button:has-text("Copy")');
    await expect.poll(() => page.textContent(".snippet .code-line + [role=status]")).toBe("Copied.");
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(snippet);
    expect(await page.textContent(".arrival")).toBe("Waiting for the first pageview…");
    await page.screenshot({ path: screenshotPath("website-settings.png"), fullPage: true });

    // Headless Chromium says it is one ("HeadlessChrome"): let bots in, in the settings.
    // (A user agent override would not do: Chromium sends the beacons of a page being left
    // with its own.)
    expect(await page.isChecked('input[name="exclude_bots"]')).toBe(true);
    await page.uncheck('input[name="exclude_bots"]');
    await page.click('form.settings button[type="submit"]');
    await expect.poll(() => page.textContent("form.settings .form-status")).toBe("Saved.");
    expect((await api<{ data: { exclude_bots: number; page_names: string } }>(`/websites/${id}`)).body.data).toMatchObject({
      exclude_bots: 0,
      page_names: "path",
    });
    // Pages by route template (docs/guide/inside-your-app.md): a checkbox, off by default, saved as `route`.
    expect(await page.isChecked('input[name="page_names"]')).toBe(false);
    await page.check('input[name="page_names"]');
    await page.click('form.settings button[type="submit"]');
    await expect.poll(async () => (await api<{ data: { page_names: string } }>(`/websites/${id}`)).body.data.page_names).toBe("route");
    await page.uncheck('input[name="page_names"]');
    await page.click('form.settings button[type="submit"]');
    await expect.poll(async () => (await api<{ data: { page_names: string } }>(`/websites/${id}`)).body.data.page_names).toBe("path");
    // Counting its subdomains: a box, off by default.
    const subdomains = async () => (await api<{ data: { include_subdomains: number } }>(`/websites/${id}`)).body.data.include_subdomains;
    expect(await page.isChecked('input[name="include_subdomains"]')).toBe(false);
    await page.check('input[name="include_subdomains"]');
    await page.click('form.settings button[type="submit"]');
    await expect.poll(subdomains).toBe(1);
    await page.uncheck('input[name="include_subdomains"]');
    await page.click('form.settings button[type="submit"]');
    await expect.poll(subdomains).toBe(0);

    // A visitor opens a page carrying the copied code: the status turns green.
    sitePages.set(
      "/hello",
      `<!doctype html><html><head><meta charset="utf-8"><title>Hello</title>${copied}</head><body><h1>Hello</h1></body></html>`,
    );
    const visitor = await newPage();
    await visitor.goto(`${siteOrigin}/hello`);
    const opened = Date.now();
    await expect.poll(() => page.textContent(".arrival"), { timeout: 15_000 }).toBe("First pageview received.");
    expect(await page.getAttribute(".arrival", "class")).toContain("received");

    // The page stays visible for 3 s, then is hidden and left: its engaged time lands.
    await sleep(3_000 - (Date.now() - opened));
    await visitor.goto(`${origin}/elsewhere`);
    await page.click("text=‹ Statistics");
    await page.click('[data-range="today"]');
    const today = todayIn(TIMEZONE);
    await expect
      .poll(async () => (await totals(id, { from: today, to: today })).data.visit_duration, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(3);
    const figures = (await totals(id, { from: today, to: today })).data;
    expect(figures).toMatchObject({ visitors: 1, visits: 1, pageviews: 1, bounce_rate: 100 });
    expect(figures.visit_duration).toBeLessThan(15);
    await page.click('[data-range="7d"]');
    await page.click('[data-range="today"]');
    await expect.poll(async () => (await shown(page)).totals).toEqual(figures);
    expect(await page.textContent('[data-total="visit_duration"] strong')).toBe(`${figures.visit_duration}s`);
    expect(pageErrors).toEqual([]);
  });

  it("filters by clicking a country, then a page: chips, the URL, and every card, chart and total follow the API", async () => {
    pageErrors = [];
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${demoId}?range=12mo`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const from = (await page.getAttribute(".range-label", "data-from")) ?? "";
    expect(from).toBe(
      `${Number(today.slice(0, 4)) - (today.slice(5, 7) === "12" ? 0 : 1)}-${String((Number(today.slice(5, 7)) % 12) + 1).padStart(2, "0")}-01`,
    );

    const [country] = await statRows(demoId, { name: "country", from, to: today, per_page: "10" });
    await page.click(`section[data-card~="country"] li[data-value="${country!.value}"] button`);
    await expect.poll(() => chips(page)).toEqual([`Remove filter: Country is ${country!.value.split(":")[1]}`]);
    expect(urlFilters(page)).toEqual([`country:is:${country!.value}`]);
    const countryOnly = [`country:is:${country!.value}`];
    const pagesInCountry = await statRows(demoId, { name: "page", from, to: today, filter: countryOnly, per_page: "10" });
    await expect.poll(() => cardRows(page, "page")).toEqual(pagesInCountry);

    const chosen = pagesInCountry[1]!.value;
    await page.click(`section[data-card~="page"] li[data-value="${chosen}"] button`);
    await expect
      .poll(() => chips(page))
      .toEqual([`Remove filter: Country is ${country!.value.split(":")[1]}`, `Remove filter: Page is ${chosen}`]);
    const both = [...countryOnly, `page:is:${chosen}`];
    expect(urlFilters(page)).toEqual(both);
    await expectEveryFigure(page, from, today, both);
    await page.evaluate(() => scrollTo(0, 0));
    await page.mouse.move(0, 0);
    await page.screenshot({ path: screenshotPath("dashboard-filtered.png") });

    // The URL holds them: a reload shows the same; the back button removes the page filter.
    await page.reload();
    await waitLoaded(page);
    expect((await chips(page)).length).toBe(2);
    await page.goBack();
    await expect.poll(() => chips(page)).toEqual([`Remove filter: Country is ${country!.value.split(":")[1]}`]);
    await expect.poll(() => cardRows(page, "page")).toEqual(pagesInCountry);
    // A chip is a button: Tab to it and press Enter to remove it.
    await page.focus(".chip");
    await page.keyboard.press("Enter");
    await expect.poll(() => chips(page)).toEqual([]);
    expect(urlFilters(page)).toEqual([]);
    await expect.poll(async () => (await shown(page)).totals).toEqual((await totals(demoId, { from, to: today })).data);
    expect(pageErrors).toEqual([]);
  });

  it("goal rows filter like other rows; their properties open in place, and those rows filter too", async () => {
    // A revenue goal: its row shows the total in each currency, never converted.
    const buyer = {
      url: "https://demo.example/checkout",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    };
    await tally.record("Purchase", { ...buyer, ip: "198.51.100.80", revenue: { amount: 29.9, currency: "EUR" } });
    await tally.record("Purchase", { ...buyer, ip: "198.51.100.81", revenue: { amount: "1250", currency: "USD" } });
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${demoId}?range=12mo`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const from = (await page.getAttribute(".range-label", "data-from"))!;
    const goals = (
      await api<{ data: { value: string; count: number; conversion_rate: number }[] }>(`/stats/${demoId}`, {
        name: "goals",
        from,
        to: today,
      })
    ).body.data;
    const signup = goals.find((goal) => goal.value === "Signup")!;
    const row = `section[data-card="goals"] .rows > li[data-value="Signup"]`;
    expect(await page.textContent(`${row} .row-extra`)).toBe(`${signup.conversion_rate}%`);
    const purchase = goals.find((goal) => goal.value === "Purchase")!;
    const purchaseRow = `section[data-card="goals"] .rows > li[data-value="Purchase"] .row-extra`;
    expect(await page.textContent(purchaseRow)).toBe(`${purchase.conversion_rate}% · €29.90 · $1,250.00`);

    // Its properties open under the row (nothing opens far down the page), with the tracker's
    // own property offered for its event; a name typed once is offered next time.
    await page.click(`${row} .row-action`);
    expect(await page.getAttribute(`${row} .row-action`, "aria-expanded")).toBe("true");
    await page.fill(`${row} .row-detail input[name="property"]`, "plan");
    await page.press(`${row} .row-detail input[name="property"]`, "Enter");
    const plans = await statRows(demoId, { name: "event_property", event: "Signup", property: "plan", from, to: today, per_page: "10" });
    expect(plans.map((plan) => plan.value).sort()).toEqual(["free", "pro"]);
    const propertyRows = () =>
      page.$$eval(`${row} .property-rows li[data-value]`, (items) =>
        items.map((item) => ({ value: (item as HTMLElement).dataset.value ?? "", count: Number((item as HTMLElement).dataset.count) })),
      );
    await expect.poll(propertyRows).toEqual(plans);
    const outbound = `section[data-card="goals"] .rows > li[data-value="Outbound Link: Click"]`;
    await page.click(`${outbound} .row-action`);
    expect(await page.inputValue(`${outbound} .row-detail input[name="property"]`)).toBe("url");
    await expect.poll(() => page.$$eval(`${outbound} .property-rows li[data-value]`, (items) => items.length)).toBeGreaterThan(0);

    // A property value filters like any row.
    await page.click(`${row} .property-rows li[data-value="pro"] button`);
    await expect.poll(() => urlFilters(page)).toEqual(["prop:plan:is:pro"]);
    await expect.poll(() => chips(page)).toEqual(["Remove filter: Property plan is pro"]);
    await expect
      .poll(async () => (await shown(page)).totals)
      .toEqual((await totals(demoId, { from, to: today, filter: "prop:plan:is:pro" })).data);

    // The goal's own row filters on the event, as any other row filters on its value.
    await page.click(`${row} .row-label`);
    await expect.poll(() => urlFilters(page)).toEqual(["prop:plan:is:pro", "event:is:Signup"]);
    await expect.poll(() => chips(page)).toEqual(["Remove filter: Property plan is pro", "Remove filter: Goal is Signup"]);
    await expect
      .poll(async () => (await shown(page)).totals)
      .toEqual((await totals(demoId, { from, to: today, filter: ["prop:plan:is:pro", "event:is:Signup"] })).data);
  });

  it("page goals are the team's: added in the dashboard, stored for the website (another browser sees them), counted beside the events", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${demoId}?range=30d`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const from = addDays(today, -29);
    const addGoal = async (value: string) => {
      await page.fill('.goal-form input[name="goal"]', value);
      await page.press('.goal-form input[name="goal"]', "Enter");
    };
    await addGoal("blog/*");
    await expect.poll(() => page.textContent(".page-goals [role=alert]")).toBe("A page goal's page path starts with /.");
    for (const goal of ["/blog/*", "/pricing"]) {
      await addGoal(goal);
      await page.waitForSelector(`.goal-chips .chip[aria-label="Remove the goal Visit ${goal}"]`);
    }
    const stored = await api<{ data: { page_path: string }[] }>(`/websites/${demoId}/goals`);
    expect(stored.body.data.map((goal) => goal.page_path)).toEqual(["/blog/*", "/pricing"]);
    // The goals statistic counts the website's page goals itself: no goal in the URL.
    const expected = await statRows(demoId, { name: "goals", from, to: today, per_page: "10" });
    expect(expected.map((row) => row.value)).toEqual(expect.arrayContaining(["Visit /blog/*", "Visit /pricing", "Signup"]));
    await expect.poll(() => cardRows(page, "goals")).toEqual(expected);
    expect(new URLSearchParams(new URL(page.url()).hash.split("?")[1]).getAll("goal")).toEqual([]);
    // A page goal naming one page filters on it; a pattern has no filter of its own.
    expect(await page.$('section[data-card="goals"] li[data-value="Visit /blog/*"] span.row-label')).not.toBeNull();
    await page.click('section[data-card="goals"] li[data-value="Visit /pricing"] button.row-label');
    await expect.poll(() => urlFilters(page)).toEqual(["page:is:/pricing"]);
    // Another browser (nothing in its storage) sees the same goals, and removes them.
    const other = await newPage({ signedIn: true });
    await other.goto(`${origin}/analytics/#/websites/${demoId}?range=30d`);
    await waitLoaded(other);
    await expect
      .poll(() => other.$$eval(".goal-chips .chip", (buttons) => buttons.map((button) => button.getAttribute("aria-label"))))
      .toEqual(["Remove the goal Visit /blog/*", "Remove the goal Visit /pricing"]);
    await other.click('.goal-chips .chip[aria-label="Remove the goal Visit /blog/*"]');
    await other.waitForSelector('.goal-chips .chip[aria-label="Remove the goal Visit /blog/*"]', { state: "detached" });
    await other.click('.goal-chips .chip[aria-label="Remove the goal Visit /pricing"]');
    await expect.poll(async () => (await api<{ data: unknown[] }>(`/websites/${demoId}/goals`)).body.data).toEqual([]);
    await expect.poll(() => cardRows(other, "goals")).toEqual(await statRows(demoId, { name: "goals", from, to: today, per_page: "10" }));
  });

  it("compares with the previous period and the year before, and charts any figure with the other range over it", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${demoId}?range=30d`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const from = addDays(today, -29);
    const zeroFilled = (rows: Row[], days: string[]) => days.map((day) => rows.find((row) => row.value === day)?.count ?? 0);

    for (const compare of ["previous_period", "year"] as const) {
      await page.selectOption('select[name="compare"]', compare);
      await expect.poll(() => new URL(page.url()).hash).toContain(`compare=${compare}`);
      const expected = await totals(demoId, { from, to: today, compare });
      const before = expected.comparison!;
      const [now, then] = await Promise.all([
        allStatRows(demoId, { name: "visitors", from, to: today }),
        allStatRows(demoId, { name: "visitors", ...before }),
      ]);
      const chart = zeroFilled(now, daysFrom(from, today)).map((count, i) => [
        count,
        zeroFilled(then, daysFrom(before.from, before.to))[i] ?? 0,
      ]);
      await expect
        .poll(async () => {
          const view = await shown(page);
          return { totals: view.totals, previous: view.previous, chart: view.chart };
        })
        .toEqual({ totals: expected.data, previous: expected.previous, chart });
      // Each tile says how it moved: an arrow and a percentage (points for the bounce rate).
      const changes = await page.$$eval(".total .change", (items) => items.map((item) => item.textContent ?? ""));
      expect(changes).toHaveLength(6);
      for (const text of changes) expect(text).toMatch(/^([↑↓] \d+(\.\d)?( pp|%)|0%|0 pp|–|new)$/);
      const visitorsChange = Math.round(((expected.data.visitors - expected.previous!.visitors) / expected.previous!.visitors) * 100);
      expect(changes[0]).toBe(`${visitorsChange > 0 ? "↑ " : visitorsChange < 0 ? "↓ " : ""}${Math.abs(visitorsChange)}%`);
    }

    // Another figure on the chart: the bounce rate by day, with the year before over it.
    await page.click('[data-total="bounce_rate"]');
    await expect.poll(() => new URL(page.url()).hash).toContain("metric=bounce_rate");
    await expect.poll(() => page.getAttribute('[data-total="bounce_rate"]', "aria-pressed")).toBe("true");
    const before = (await totals(demoId, { from, to: today, compare: "year" })).comparison!;
    const [now, then] = await Promise.all([
      allStatRows(demoId, { name: "bounce_rate", from, to: today }),
      allStatRows(demoId, { name: "bounce_rate", ...before }),
    ]);
    const expected = zeroFilled(now, daysFrom(from, today)).map((count, i) => [
      count,
      zeroFilled(then, daysFrom(before.from, before.to))[i] ?? 0,
    ]);
    await expect.poll(async () => (await shown(page)).chart).toEqual(expected);
    await page.selectOption('select[name="compare"]', "previous_period");
    await page.click('[data-total="visitors"]');
    await waitLoaded(page);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: screenshotPath("dashboard-comparison.png") });

    await page.selectOption('select[name="compare"]', "");
    await expect.poll(async () => (await shown(page)).previous.visitors).toBeNaN();
    expect(new URL(page.url()).hash).not.toContain("compare=");
  });

  it("changes the privacy to 2 with a password (a refusal first), turns reports on; the share page opens with the password and filters too", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${demoId}`);
    await page.click(".heading >> text=Settings");
    await page.waitForSelector("form.settings");
    expect(await page.isHidden('input[name="password"]')).toBe(true);
    await page.click('label[for="privacy-2"]');
    expect(await page.isVisible('input[name="password"]')).toBe(true);
    await page.check('input[name="email"]');
    await page.click('form.settings button[type="submit"]');
    // Said in the page's words, not the API's ("required when privacy is 2").
    await expect
      .poll(() => page.textContent('[data-error-for="password"]'))
      .toBe("Choose a password: visitors of the share page will be asked for it.");
    expect((await api<{ data: { privacy: number } }>(`/websites/${demoId}`)).body.data.privacy).toBe(1); // nothing changed
    expect(await page.$(".share-url code")).toBeNull();
    await page.fill('input[name="password"]', "open sesame");
    await page.fill('textarea[name="exclude_ips"]', "10.0.0.0/8\nnot-an-ip");
    await page.click('form.settings button[type="submit"]');
    await expect.poll(() => page.textContent('[data-error-for="exclude_ips"]')).toContain("not-an-ip");
    await page.fill('textarea[name="exclude_ips"]', "10.0.0.0/8");
    await page.click('form.settings button[type="submit"]');
    // The password is hashed at its full cost first: seconds on a busy machine.
    await expect.poll(() => page.textContent("form.settings .form-status"), { timeout: 15_000 }).toBe("Saved.");
    // The share page's address appears on saving, with Copy.
    const shareUrl = `${origin}/analytics/share/demo.example`;
    await expect.poll(() => page.textContent(".share-url code")).toBe(shareUrl);
    expect(await page.textContent(".share-url .hint")).toBe("Anyone with this link and the password sees the statistics:");
    await page.click('.share-url button:has-text("Copy")');
    await expect.poll(() => page.textContent(".share-url .copy-status")).toBe("Copied.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shareUrl);
    const saved = (await api<{ data: Record<string, unknown> }>(`/websites/${demoId}`)).body.data;
    expect(saved).toMatchObject({ privacy: 2, password: true, email: 1, exclude_ips: "10.0.0.0/8", timezone: TIMEZONE });
    expect(await page.inputValue('input[name="password"]')).toBe("");

    const share = await newPage();
    await share.goto(`${origin}/analytics/share/demo.example`);
    await share.fill('input[name="password"]', "open sesame");
    await share.click('button[type="submit"]');
    await waitLoaded(share);
    expect(await share.$$(".topbar, .settings-link, .export, .snippet")).toHaveLength(0);
    const today = todayIn(TIMEZONE);
    const from = addDays(today, -29);
    const [browserRow] = await statRows(demoId, { name: "browser", from, to: today, per_page: "10" });
    await share.click(`section[data-card~="browser"] li[data-value="${browserRow!.value}"] button`);
    await expect.poll(() => chips(share)).toEqual([`Remove filter: Browser is ${browserRow!.value}`]);
    const filter = `browser:is:${browserRow!.value}`;
    await expect.poll(async () => (await shown(share)).totals).toEqual((await totals(demoId, { from, to: today, filter })).data);
    await expect
      .poll(() => cardRows(share, "page"))
      .toEqual(await statRows(demoId, { name: "page", from, to: today, filter, per_page: "10" }));
    await expect
      .poll(() => cardRows(share, "country"))
      .toEqual(await statRows(demoId, { name: "country", from, to: today, filter, per_page: "10" }));
  });

  it("sets where the account's reports go and how often (a refusal first)", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/`);
    await page.click(".topbar .account");
    await page.fill('input[name="email"]', "not an address");
    await page.click('form[aria-labelledby="reports-title"] button[type="submit"]');
    const refused = await api<{ errors: Record<string, string[]> }>(
      "/account",
      {},
      { method: "PUT", body: JSON.stringify({ email: "not an address" }) },
    );
    expect(refused.status).toBe(422);
    await expect.poll(() => page.textContent('[data-error-for="email"]')).toBe(refused.body.errors.email?.join(" "));
    await page.fill('input[name="email"]', "owner@example.com");
    await page.selectOption('select[name="report_period"]', "month");
    await page.click('form[aria-labelledby="reports-title"] button[type="submit"]');
    await expect
      .poll(() => page.textContent('form[aria-labelledby="reports-title"] .form-status'))
      .toBe("Saved: reports go to owner@example.com every month.");
    expect((await api<{ data: unknown }>("/account")).body.data).toMatchObject({ email: "owner@example.com", report_period: "month" });
    await page.reload();
    expect(await page.inputValue('input[name="email"]')).toBe("owner@example.com");
    await page.fill('input[name="email"]', "");
    await page.click('form[aria-labelledby="reports-title"] button[type="submit"]');
    await expect.poll(() => page.textContent('form[aria-labelledby="reports-title"] .form-status')).toBe("Saved: no reports.");
    expect((await api<{ data: unknown }>("/account")).body.data).toMatchObject({ email: null });
  });

  it("Export downloads the range's zip from the API, as CSV and in Plausible's layout", async () => {
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${demoId}?range=7d`);
    await waitLoaded(page);
    const today = todayIn(TIMEZONE);
    const url = `${origin}/analytics/api/v1/websites/${demoId}/export?format=csv&from=${addDays(today, -6)}&to=${today}`;
    await page.click(".export summary");
    for (const format of ["csv", "plausible"]) {
      const asked = url.replace("format=csv", `format=${format}`);
      const answer = await fetch(asked, { headers: { authorization: `Bearer ${key}` } });
      const named = /filename="([^"]+)"/.exec(answer.headers.get("content-disposition") ?? "")?.[1];
      const expected = unzipSync(new Uint8Array(await answer.arrayBuffer()));
      const download = page.waitForEvent("download");
      const sent = page.waitForRequest((r) => r.url() === asked);
      await page.click(`[data-export="${format}"]`);
      expect((await sent).headers().authorization).toBe(`Bearer ${key}`);
      const file = await download;
      // The file the API names, holding the files it answers (a zip's own times may differ by a second).
      expect(file.suggestedFilename()).toBe(named);
      const files = unzipSync(new Uint8Array(readFileSync(await file.path())));
      expect(Object.keys(files).length).toBeGreaterThan(5);
      expect(Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, strFromU8(bytes)]))).toEqual(
        Object.fromEntries(Object.entries(expected).map(([name, bytes]) => [name, strFromU8(bytes)])),
      );
      await expect.poll(() => page.textContent(".export [role=status]")).toBe("Downloaded.");
    }
  });

  it("deletes a website after the domain is typed again", async () => {
    const doomed = await tally.websites.create(accountId, { domain: "delete-me.example" });
    const page = await newPage({ signedIn: true });
    await page.goto(`${origin}/analytics/#/websites/${doomed.id}/settings`);
    await page.click("text=Delete website…");
    await page.fill('input[name="confirm"]', "delete-me");
    await page.click(".confirm-delete button[type=submit]");
    await expect.poll(() => page.textContent('[data-error-for="confirm"]')).toBe("That is not delete-me.example.");
    expect((await api(`/websites/${doomed.id}`)).status).toBe(200);
    await page.fill('input[name="confirm"]', "delete-me.example");
    await page.click(".confirm-delete button[type=submit]");
    await page.waitForURL(/#\/$/);
    await page.waitForSelector(".website-link");
    expect(await page.$$eval(".website-link", (links) => links.map((link) => link.textContent))).not.toContain("delete-me.example");
    expect((await api(`/websites/${doomed.id}`)).status).toBe(404);
  });

  /** Serious or critical axe-core violations on the page as it is. */
  it("axe-core finds no serious or critical violations, in the light and the dark theme", { timeout: 90_000 }, async () => {
    const share = await tally.websites.create(accountId, { domain: "public.example", privacy: 0, timezone: TIMEZONE });
    await generateTraffic(tally, { domain: "public.example", days: 20, seed: 3, liveSessions: 0 });
    for (const colorScheme of ["light", "dark"] as const) {
      const signedOut = await newPage({ colorScheme, bypassCSP: true });
      await signedOut.goto(`${origin}/analytics/`);
      await signedOut.waitForURL(`${origin}/analytics/login`);
      expect(await axeProblems(signedOut), `${colorScheme} sign-in`).toEqual([]);
      await signedOut.goto(`${origin}/analytics/#/key`);
      await signedOut.waitForSelector('input[name="key"]');
      expect(await axeProblems(signedOut), `${colorScheme} key form`).toEqual([]);
      await signedOut.goto(`${origin}/analytics/share/${share.domain}#range=7d&compare=previous_period&filter=browser:is:Chrome`);
      await waitLoaded(signedOut);
      expect(await axeProblems(signedOut), `${colorScheme} share page`).toEqual([]);

      const page = await newPage({ colorScheme, bypassCSP: true, signedIn: true });
      const views: [string, string, () => Promise<unknown>][] = [
        ["website list", "#/", () => page.waitForSelector(".website-link")],
        ["statistics", `#/websites/${demoId}?range=30d&compare=previous_period&filter=country:is:GB`, () => waitLoaded(page)],
        ["settings", `#/websites/${demoId}/settings`, () => page.waitForSelector("form.settings")],
        ["new website", "#/new", () => page.waitForSelector('input[name="domain"]')],
        ["account", "#/account", () => page.waitForSelector('input[name="email"]')],
      ];
      for (const [name, hash, ready] of views) {
        await page.goto(`${origin}/analytics/${hash}`);
        await ready();
        expect(await axeProblems(page), `${colorScheme} ${name}`).toEqual([]);
      }
      // A goal's properties open, the custom range and the export menu open.
      await page.goto(`${origin}/analytics/#/websites/${demoId}?range=12mo`);
      await waitLoaded(page);
      await page.click(`section[data-card="goals"] li[data-value="Signup"] .row-action`);
      await page.click('[data-range="custom"]');
      await page.click(".export summary");
      expect(await axeProblems(page), `${colorScheme} properties and export menu`).toEqual([]);
    }
  });

  it("works on a 390-px-wide phone: nothing wider than the screen", async () => {
    const page = await newPage({ viewport: PHONE, signedIn: true, colorScheme: "dark" });
    const views: [string, string, () => Promise<unknown>][] = [
      ["website list", "#/", () => page.waitForSelector(".website-link")],
      [
        "filtered statistics",
        `#/websites/${demoId}?range=30d&compare=previous_period&filter=country:is:GB&filter=page:is:/pricing`,
        () => waitLoaded(page),
      ],
      ["settings", `#/websites/${demoId}/settings`, () => page.waitForSelector("form.settings")],
      ["account", "#/account", () => page.waitForSelector('input[name="email"]')],
    ];
    for (const [name, hash, ready] of views) {
      await page.goto(`${origin}/analytics/${hash}`);
      await ready();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, name).toBeLessThanOrEqual(PHONE.width);
      if (name === "filtered statistics") await page.screenshot({ path: screenshotPath("dashboard-filtered-phone.png") });
    }
  });
});
