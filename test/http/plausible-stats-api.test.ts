// Plausible's Stats API v2 (`POST /api/v2/query`): the queries of Plausible's own documentation
// (fixtures/plausible-queries.json; the test website is `dummy.site`) are answered in Plausible's
// shape, and every number is the one Tally's v1 statistics give for the same days and filters.
// Most are verbatim: the request bodies of its examples, and the query each example response
// prints (`query`: whole-day dates or date-times); those marked `composed` put a row of its
// tables (operators, logical operations, date ranges, order_by) into its intro query. What Tally
// cannot answer is a 400 naming it; a saved segment stands for its filters. Both dialects.
import type { Tally } from "@tally-analytics/core";
import { PLAUSIBLE_DIMENSIONS } from "@tally-analytics/core/internal";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, jsonBody, type ApiClient } from "../support/api-client.js";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";

interface Fixture {
  id: string;
  source: string;
  body: Record<string, unknown> & { metrics: string[]; dimensions?: string[]; date_range: unknown };
  /** The same filters as v1 `filter` parameters. */
  v1_filter?: string[];
  /** Refused: the 400's message names this. */
  refused?: string;
  /** Not a query the documentation prints: one of its tables' rows in its intro query. */
  composed?: boolean;
}

const FIXTURES = JSON.parse(readFileSync(new URL("./fixtures/plausible-queries.json", import.meta.url), "utf8")) as Fixture[];
const REFUSED = FIXTURES.filter((fixture) => fixture.refused !== undefined);
/** A date_range within days (`24h`, date-times that are not whole days): checked on their own. */
const withinDays = ({ body: { date_range: range } }: Fixture) =>
  range === "24h" || (Array.isArray(range) && !/T00:00:00/.test(String(range[0])) && !/T23:59:59/.test(String(range[1])));
const ANSWERED = FIXTURES.filter((fixture) => fixture.refused === undefined && !withinDays(fixture));
const VERBATIM = ANSWERED.filter((fixture) => fixture.composed !== true);

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const PLACES = [
  ["DE", "Berlin", "DE-BE"],
  ["EE", "Tallinn", "EE-37"],
  ["US", "San Francisco", "US-CA"],
  ["PL", "Warsaw", "PL-14"],
] as const;
const UTM = ["?utm_medium=social&utm_source=twitter", "?utm_medium=email&utm_source=newsletter", ""];
const LANDING = ["/", "/blog/hello", "/docs/start", "/login"];

/** Days of 2024 and 2025 in the documentation's date ranges, each with the host its referred people come from. */
const PAST_DAYS: Record<string, string> = {
  "2024-01-01": "news.example", // date-range-datetime: 10:00 to 13:59:59 UTC finds the one of 10:21
  "2024-01-10": "news.example",
  "2024-06-20": "news.example",
  "2024-08-05": "news.example",
  "2024-08-20": "news.example", // the examples of 2024-08-14 to 2024-08-20
  "2024-09-10": "news.example", // 2024-09-04 to 2024-09-10, and 2024-09-10 to 2024-09-16 (pagination)
  "2025-01-15": "news.example", // behavioral-filters of 2025-01-10 to 2025-01-16
  "2025-03-01": "opensource.com", // filtering-by-segment's source, 2025-02-27 to 2025-03-05
};

/** Twelve people a day over the last ten days (and four on each of PAST_DAYS), as imports name them. */
async function generate(tally: Tally, now: number): Promise<void> {
  const days = [
    // Yesterday's referred people come from filtering-by-segment's source, so its 7d finds some.
    ...Array.from(
      { length: 10 },
      (_, ago) => [Date.parse(`${dayOf(now - ago * DAY_MS)}T00:00:00Z`), ago === 1 ? "opensource.com" : "news.example"] as const,
    ),
    ...Object.entries(PAST_DAYS).map(([day, host]) => [Date.parse(`${day}T00:00:00Z`), host] as const),
  ];
  for (const [index, [start, host]] of days.entries()) {
    const people = index < 10 ? 12 : 4;
    for (let p = 0; p < people; p++) {
      // Today's people in the last 48 minutes, none before midnight (a visit across it counts on both days by hour).
      const at =
        start === Date.parse(`${dayOf(now)}T00:00:00Z`)
          ? Math.max(start + (p + 1) * 1000, now - (p + 1) * 240_000)
          : start + 8 * 3_600_000 + p * 47 * 60_000;
      const [country, city, region] = PLACES[p % 4]!;
      const visitor = {
        ip: "",
        visitorKey: `person-${p}`,
        known: {
          browser: ["Chrome", "Firefox", "Safari"][p % 3]!,
          os: ["GNU/Linux", "Mac", "Windows", "iOS"][p % 4]!,
          device: p % 2 ? "mobile" : "desktop",
          country,
          city,
          region,
        },
      };
      const campaign = p % 5 === 0 ? `${UTM[p % 3] ? "&" : "?"}utm_campaign=Referral` : "";
      const landing = LANDING[(p + index) % 4]!;
      await tally.collect({
        ...visitor,
        // The website counts its subdomains: a few people land on its blog's host.
        url: `https://${p % 6 === 1 ? "blog." : ""}dummy.site${landing}${UTM[p % 3]}${campaign}`,
        timestamp: at,
        referrer: p % 3 === 2 ? `https://${host}/` : "",
      });
      // Engagement signals (time on page, scroll depth but from every third person) on the landing page and /pricing.
      const signal = (url: string, timestamp: number, seed: number) =>
        tally.collect({
          ...visitor,
          url,
          timestamp,
          engagedMs: 1_000 + seed * 1_537,
          scrollDepth: p % 3 === 1 ? null : (seed * 37) % 101,
        });
      await signal(`https://dummy.site${landing}`, at + 10_000, p + index);
      if (p % 2 === 0) {
        await tally.collect({ ...visitor, url: "https://dummy.site/pricing", timestamp: at + 20_000 });
        await signal("https://dummy.site/pricing", at + 25_000, 2 * p + index + 1);
      }
      // A profile page (operator-matches' `^/user/\d+$`) and a support chat (behavioral-filters-2024).
      if (p % 4 === 1) await tally.collect({ ...visitor, url: `https://dummy.site/user/${p}`, timestamp: at + 30_000 });
      if (p % 4 === 3) {
        await tally.collect({ ...visitor, url: "https://dummy.site/pricing", timestamp: at + 35_000, event: "Open Support Chat" });
      }
      // Purchases with revenue, in dollars and in euros (revenue-metrics, revenue-warning).
      if (p % 2 === 0) {
        const [event, currency] = p % 4 === 0 ? ["PurchaseUSD", "USD"] : ["PurchaseEUR", "EUR"];
        const revenue = {
          amount: `${10 + p + index}.${String(index * 7 + p)
            .padStart(2, "0")
            .slice(-2)}`,
          currency,
        };
        await tally.collect({ ...visitor, url: "https://dummy.site/pricing", timestamp: at + 45_000, event, revenue });
      }
      if (p % 3 === 0) {
        const props = { is_customer: p % 2 === 0 ? "true" : "false" };
        await tally.collect({ ...visitor, url: "https://dummy.site/pricing", timestamp: at + 40_000, event: "Signup", props });
      }
    }
  }
  await tally.flush();
}

interface V1Row {
  value: string;
  count: number;
}

describe.each(DIALECTS)("Plausible's Stats API v2 on %s", (dialect) => {
  let stored: TestTally;
  let served: Served;
  let owner: ApiClient;
  let id = 0;
  let accountId = "";
  const now = Date.now();

  beforeAll(async () => {
    stored = await createTestTally(dialect, { retentionIntervalMs: 0 });
    const created = await stored.tally.accounts.create();
    accountId = created.accountId;
    const { key } = created;
    id = (await stored.tally.websites.create(accountId, { domain: "dummy.site", include_subdomains: 1 })).id;
    await generate(stored.tally, now);
    // Saved segment 2, as Plausible's filtering-by-segment example response expands it (segment 1 is another).
    await stored.tally.savedSegments.create({ accountId }, id, { name: "Everyone", filters: ["page:contains:/"] });
    const segment = await stored.tally.savedSegments.create({ accountId }, id, {
      name: "Open source readers who did not sign up",
      filters: ["event:is_not:Signup", "source:is:opensource.com"],
    });
    expect(segment.id).toBe(2);
    served = await transports[0]!.serve(stored.tally);
    owner = apiClient(served, key);
  }, 120_000);

  afterAll(async () => {
    await served?.close();
    await stored?.dispose();
  });

  const query = async (body: unknown) => {
    const response = await owner.post("/api/v2/query", jsonBody(body));
    return { status: response.status, body: response.body as unknown as Record<string, unknown> };
  };

  /** Every row of a v1 statistic (`GET /api/v1/stats/{id}`). */
  async function v1(name: string, range: { from: string; to: string }, filters: readonly string[] = [], extra = ""): Promise<V1Row[]> {
    const filter = filters.map((text) => `&filter=${encodeURIComponent(text)}`).join("");
    const response = await owner.get(`/api/v1/stats/${id}?name=${name}&from=${range.from}&to=${range.to}&per_page=100${filter}${extra}`);
    expect(response.status, response.text).toBe(200);
    return response.body.data as V1Row[];
  }

  async function v1Totals(range: { from: string; to: string }, filters: readonly string[] = []): Promise<Record<string, number>> {
    const filter = filters.map((text) => `&filter=${encodeURIComponent(text)}`).join("");
    const response = await owner.get(`/api/v1/stats/${id}/totals?from=${range.from}&to=${range.to}${filter}`);
    expect(response.status, response.text).toBe(200);
    return response.body.data as unknown as Record<string, number>;
  }

  /** Plausible's `events`: pageviews and custom events (only the goal's events under a goal filter). */
  async function v1Events(range: { from: string; to: string }, filters: readonly string[], goalOnly = false): Promise<number> {
    const events = (await v1("event", range, filters)).reduce((sum, row) => sum + row.count, 0);
    return events + (goalOnly ? 0 : (await v1Totals(range, filters)).pageviews!);
  }

  /** The figures v1 gives for one scope, by Plausible metric name. */
  async function v1Figures(range: { from: string; to: string }, filters: readonly string[], metrics: readonly string[]) {
    const totals = await v1Totals(range, filters);
    return Promise.all(metrics.map(async (metric) => (metric === "events" ? v1Events(range, filters) : totals[metric])));
  }

  type Answer = { results: { dimensions: string[]; metrics: number[] }[]; meta: Record<string, unknown>; query: Record<string, unknown> };
  type GoalRevenue = { currency: string; total_revenue: number; average_revenue: number };

  /** A revenue metric as the v1 goals' revenue gives it: one currency's figure, or null without revenue or with several currencies. */
  function revenueFigure(metric: string, revenue: GoalRevenue[] | undefined) {
    if (revenue?.length !== 1) return null;
    const [only] = revenue as [GoalRevenue];
    const value = metric === "total_revenue" ? only.total_revenue : only.average_revenue;
    const long = new Intl.NumberFormat("en-US", { style: "currency", currency: only.currency }).format(value);
    return { currency: only.currency, value, long, short: expect.any(String) };
  }

  /** Revenue fixtures: each goal's revenue as v1's goals give it, null and a warning where its currencies are several. */
  async function checkRevenue(fixture: Fixture, answer: Answer, range: { from: string; to: string }): Promise<void> {
    const goals = (await v1("goals", range, fixture.v1_filter ?? [])) as (V1Row & { revenue?: GoalRevenue[] })[];
    const metrics = fixture.body.metrics;
    if ((fixture.body.dimensions ?? []).length === 0) {
      const currencies = goals.flatMap((row) => row.revenue ?? []).map((each) => each.currency);
      expect(new Set(currencies).size, "the goals filtered on carry two currencies").toBe(2);
      expect(answer.results).toEqual([{ dimensions: [], metrics: metrics.map(() => null) }]);
      expect(answer.meta.metric_warnings).toEqual(
        Object.fromEntries(metrics.map((metric) => [metric, { code: "no_single_revenue_currency", warning: expect.any(String) }])),
      );
      return;
    }
    expect(answer.results.map((row) => row.dimensions[0])).toEqual(
      [...goals]
        .sort((a, b) => (b.revenue?.[0]?.total_revenue ?? 0) - (a.revenue?.[0]?.total_revenue ?? 0) || a.value.localeCompare(b.value))
        .map((row) => row.value),
    );
    for (const row of answer.results) {
      const goal = goals.find((each) => each.value === row.dimensions[0])!;
      expect(row.metrics).toEqual(metrics.map((metric) => revenueFigure(metric, goal.revenue)));
    }
    expect(
      goals
        .filter((row) => row.revenue)
        .map((row) => row.value)
        .sort(),
    ).toEqual(["PurchaseEUR", "PurchaseUSD"]);
    expect(answer.meta.metric_warnings).toBeUndefined();
  }

  /** The answer's shape, as Plausible gives it. */
  function checkShape(fixture: Fixture, answer: Answer): { from: string; to: string } {
    expect(Object.keys(answer).sort()).toEqual(["meta", "query", "results"]);
    for (const row of answer.results) {
      expect(Object.keys(row).sort()).toEqual(["dimensions", "metrics"]);
      expect(row.dimensions).toHaveLength(fixture.body.dimensions?.length ?? 0);
      expect(row.metrics).toHaveLength(fixture.body.metrics.length);
      row.metrics.forEach((value, index) => {
        // A revenue metric: null, or one currency's figure in Plausible's shape.
        if (fixture.body.metrics[index]!.endsWith("_revenue")) {
          if (value !== null) expect(Object.keys(value).sort()).toEqual(["currency", "long", "short", "value"]);
        } else expect(typeof value).toBe("number");
      });
    }
    expect(answer.query.site_id).toBe("dummy.site");
    expect(answer.query.metrics).toEqual(fixture.body.metrics);
    expect(answer.query.dimensions).toEqual(fixture.body.dimensions ?? []);
    // A saved segment is echoed as its filters, as Plausible's own example response prints them.
    const echo = fixture.id === "filtering-by-segment" ? FIXTURES.find((other) => other.id === "filtering-by-segment-echo")! : fixture;
    expect(answer.query.filters).toEqual(echo.body.filters ?? []);
    const [from, to] = answer.query.date_range as [string, string];
    expect(from).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\+00:00$/);
    expect(to).toMatch(/^\d{4}-\d{2}-\d{2}T23:59:59\+00:00$/);
    return { from: from.slice(0, 10), to: to.slice(0, 10) };
  }

  it("answers visit:region with the ISO code and visit:region_name with the name, as v1 counts region", async () => {
    const body = { site_id: "dummy.site", metrics: ["visitors", "pageviews"], date_range: "7d" };
    const byCode = await query({ ...body, dimensions: ["visit:region"] });
    const byName = await query({ ...body, dimensions: ["visit:region_name"] });
    expect(byCode.status, JSON.stringify(byCode.body)).toBe(200);
    expect(byName.status).toBe(200);
    const range = checkShape(
      { id: "region", body: { ...body, dimensions: ["visit:region"] } } as Fixture,
      byCode.body as unknown as Answer,
    );
    const regions = await v1("region", range);
    expect(regions.length).toBe(4);
    const expected = await Promise.all(
      regions.map(async (row) => ({
        value: row.value,
        metrics: await v1Figures(range, [`region:is:${row.value.split(":")[0]}`], body.metrics),
      })),
    );
    const sorted = (rows: { dimensions: string[]; metrics: number[] }[]) =>
      [...rows].sort((a, b) => a.dimensions[0]!.localeCompare(b.dimensions[0]!));
    const answerOf = (part: 0 | 1) => sorted(expected.map(({ value, metrics }) => ({ dimensions: [value.split(":")[part]!], metrics })));
    expect(sorted((byCode.body as unknown as Answer).results)).toEqual(answerOf(0));
    expect(sorted((byName.body as unknown as Answer).results)).toEqual(answerOf(1));
    const filtered = await query({ ...body, filters: [["is", "visit:region", ["US-CA"]]] });
    expect((filtered.body as unknown as Answer).results[0]!.metrics).toEqual(
      expected.find((row) => row.value.startsWith("US-CA:"))!.metrics,
    );
  });

  it("answers event:hostname as v1 counts hostname: the subdomains of a website that counts them", async () => {
    const body = { site_id: "dummy.site", metrics: ["visitors", "pageviews"], date_range: "7d" };
    const byHost = await query({ ...body, dimensions: ["event:hostname"] });
    expect(byHost.status, JSON.stringify(byHost.body)).toBe(200);
    const range = checkShape(
      { id: "hostname", body: { ...body, dimensions: ["event:hostname"] } } as Fixture,
      byHost.body as unknown as Answer,
    );
    const hosts = await v1("hostname", range);
    expect(hosts.map((row) => row.value).sort()).toEqual(["blog.dummy.site", "dummy.site"]);
    const expected = await Promise.all(
      hosts.map(async (row) => ({ dimensions: [row.value], metrics: await v1Figures(range, [`hostname:is:${row.value}`], body.metrics) })),
    );
    const sorted = (rows: { dimensions: string[]; metrics: number[] }[]) =>
      [...rows].sort((a, b) => a.dimensions[0]!.localeCompare(b.dimensions[0]!));
    expect(sorted((byHost.body as unknown as Answer).results)).toEqual(sorted(expected));
    for (const row of hosts) expect(expected.find((e) => e.dimensions[0] === row.value)!.metrics[1]).toBe(row.count);
    const filtered = await query({ ...body, filters: [["is", "event:hostname", ["blog.dummy.site"]]] });
    expect((filtered.body as unknown as Answer).results[0]!.metrics).toEqual(
      expected.find((row) => row.dimensions[0] === "blog.dummy.site")!.metrics,
    );
  });

  it("has at least 25 documented queries Tally answers, verbatim", () => {
    expect(VERBATIM.length).toBeGreaterThanOrEqual(25);
  });

  it.each(ANSWERED.map((fixture) => [fixture.id, fixture] as const))("answers %s as v1 counts it", async (_, fixture) => {
    const { status, body } = await query(fixture.body);
    expect(status, JSON.stringify(body)).toBe(200);
    const answer = body as unknown as Answer;
    const range = checkShape(fixture, answer);
    const dimensions = fixture.body.dimensions ?? [];
    const filters = fixture.v1_filter ?? [];
    expect(answer.results.length, "every documented query finds rows in the generated data").toBeGreaterThan(0);
    if (fixture.body.metrics.some((metric) => metric.endsWith("_revenue"))) return checkRevenue(fixture, answer, range);

    if (dimensions.length === 0) {
      expect(answer.results).toHaveLength(1);
      expect(answer.results[0]!.metrics[0], "every documented query counts visitors in the generated data").toBeGreaterThan(0);
      expect(answer.results[0]!.metrics).toEqual(await v1Figures(range, filters, fixture.body.metrics));
    } else if (dimensions[0] === "time:day") {
      for (const row of answer.results) {
        const day = { from: row.dimensions[0]!, to: row.dimensions[0]! };
        const rowFilters = dimensions[1] ? [...filters, `prop:is_customer:is:${row.dimensions[1]}`] : filters;
        expect(row.metrics).toEqual(await v1Figures(day, rowFilters, fixture.body.metrics));
      }
      // Days ascending, then the property descending (custom-properties' order_by).
      const keys = answer.results.map((row) => row.dimensions.join(" "));
      expect(keys).toEqual([...keys].sort((a, b) => (a.slice(0, 10) === b.slice(0, 10) ? b.localeCompare(a) : a.localeCompare(b))));
    } else if (dimensions[0] === "time:hour") {
      const hours = await v1("visitors_hours", range);
      expect(answer.results).toEqual(
        // Hours in time order (v1 lists them by count).
        hours
          .filter((row) => row.count > 0)
          .sort((a, b) => a.value.localeCompare(b.value))
          .map((row) => ({ dimensions: [`${range.from} ${row.value}:00:00`], metrics: [row.count] })),
      );
      expect(answer.meta.time_labels).toEqual(
        Array.from({ length: 24 }, (_, hour) => `${range.from} ${String(hour).padStart(2, "0")}:00:00`),
      );
    } else if (dimensions[0] === "visit:country_name") {
      const countries = await v1("country", range, filters);
      const names = new Map(countries.map((row) => [row.value.split(":")[1]!, row.value]));
      const cities = dimensions[1] ? await v1("city", range, filters) : [];
      const expected = await Promise.all(
        answer.results.map(async (row) => {
          const rowFilters = [`country:is:${names.get(row.dimensions[0]!)}`];
          if (row.dimensions[1]) rowFilters.push(`city:is:${cities.find((city) => city.value.endsWith(`:${row.dimensions[1]}`))!.value}`);
          return v1Figures(range, [...filters, ...rowFilters], fixture.body.metrics);
        }),
      );
      expect(answer.results.map((row) => row.metrics)).toEqual(expected);
      if (!dimensions[1]) {
        // One row per country v1 lists, each its visitors, ordered visitors desc then name asc.
        expect(answer.results.map((row) => [row.dimensions[0], row.metrics[0]])).toEqual(
          countries
            .map((row) => [row.value.split(":")[1], row.count])
            .sort((a, b) => (b[1] as number) - (a[1] as number) || String(a[0]).localeCompare(String(b[0]))),
        );
      } else expect(answer.results).toHaveLength(cities.length);
    } else if (dimensions[0] === "visit:utm_medium") {
      const rows: { dimensions: string[]; metrics: number[] }[] = [];
      for (const medium of await v1("utm_medium", range)) {
        for (const source of await v1("utm_source", range, [`utm_medium:is:${medium.value}`])) {
          const rowFilters = [`utm_medium:is:${medium.value}`, `utm_source:is:${source.value}`];
          rows.push({ dimensions: [medium.value, source.value], metrics: await v1Figures(range, rowFilters, fixture.body.metrics) });
        }
      }
      rows.sort((a, b) => b.metrics[0]! - a.metrics[0]! || a.dimensions.join().localeCompare(b.dimensions.join()));
      const { offset = 0, limit = 10_000 } = (fixture.body.pagination ?? {}) as { offset?: number; limit?: number };
      expect(answer.results).toEqual(rows.slice(offset, offset + limit));
      if ((fixture.body.include as { total_rows?: boolean } | undefined)?.total_rows) expect(answer.meta.total_rows).toBe(rows.length);
    } else if (dimensions.length === 1 && PLAUSIBLE_DIMENSIONS[dimensions[0]!]?.part === undefined) {
      // A breakdown by one visit dimension Tally keeps as it shows it: v1's rows, each counted under its value.
      const { statistic, filter } = PLAUSIBLE_DIMENSIONS[dimensions[0]!]!;
      const listed = await v1(statistic, range, filters);
      expect(answer.results.map((row) => row.dimensions[0]).sort()).toEqual(listed.map((row) => row.value).sort());
      for (const row of answer.results) {
        expect(row.metrics).toEqual(await v1Figures(range, [...filters, `${filter}:is:${row.dimensions[0]}`], fixture.body.metrics));
      }
    } else throw new Error(`no check for ${fixture.id}`);
  });

  it("matches regular expressions as RE2 does, in linear time, and refuses what RE2 refuses", async () => {
    const range = { from: dayOf(now - 9 * DAY_MS), to: dayOf(now) };
    const byPattern = await v1Totals(range, ["page:matches:^/user/\\d+$"]);
    expect(byPattern.visitors).toBeGreaterThan(0);
    expect(byPattern).toEqual(await v1Totals(range, ["page:contains:/user/"]));
    expect((await v1Totals(range, ["page:matches_not:^/user/\\d+$"])).visitors).toBe(
      (await v1Totals(range, ["page:contains_not:/user/"])).visitors,
    );
    // A pattern that backtracks exponentially in JavaScript's engine: linear in RE2.
    const started = performance.now();
    const { status } = await query({
      site_id: "dummy.site",
      metrics: ["visitors"],
      date_range: "7d",
      filters: [["matches", "event:page", ["^(/+)+$x"]]],
    });
    expect(status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5_000);
    const refused = await query({
      site_id: "dummy.site",
      metrics: ["visitors"],
      date_range: "7d",
      filters: [["matches", "event:page", ["(a)\\1"]]],
    });
    expect(refused.status).toBe(400);
    expect(String(refused.body.error)).toContain("not a regular expression");
  });

  it("reckons named date ranges as Plausible does", async () => {
    const today = dayOf(now);
    const ranges: Record<string, [string, string]> = {
      day: [today, today],
      "7d": [dayOf(now - 6 * DAY_MS), today],
      "28d": [dayOf(now - 28 * DAY_MS), today],
      "30d": [dayOf(now - 30 * DAY_MS), today],
      month: [`${today.slice(0, 7)}-01`, dayOf(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)), 0))],
      year: [`${today.slice(0, 4)}-01-01`, `${today.slice(0, 4)}-12-31`],
      all: ["2024-01-01", today],
    };
    for (const [name, [from, to]] of Object.entries(ranges)) {
      const { body } = await query({ site_id: "dummy.site", metrics: ["visitors"], date_range: name });
      expect((body.query as { date_range: string[] }).date_range, name).toEqual([`${from}T00:00:00+00:00`, `${to}T23:59:59+00:00`]);
    }
  });

  it("refuses none of the documented queries", () => {
    expect(REFUSED.map((fixture) => fixture.id)).toEqual([]);
  });

  it("answers revenue broken down by a visit dimension as v1's goals count it under each value; null by hour is a 400", async () => {
    const range = { from: dayOf(now - 6 * DAY_MS), to: dayOf(now) };
    const body = {
      site_id: "dummy.site",
      metrics: ["total_revenue", "average_revenue", "visitors"],
      date_range: "7d",
      dimensions: ["visit:country"],
      filters: [["is", "event:goal", ["PurchaseUSD", "PurchaseEUR"]]],
    };
    const { status, body: answer } = await query(body);
    expect(status, JSON.stringify(answer)).toBe(200);
    const results = (answer as unknown as Answer).results;
    // Dollars and euros together, yet each country's purchases are in one currency: a figure per row.
    expect(results.length).toBe(2);
    for (const row of results) {
      const goals = (await v1("goals", range, ["event:is:PurchaseUSD|PurchaseEUR", `country:is:${row.dimensions[0]}`])) as (V1Row & {
        revenue?: GoalRevenue[];
      })[];
      const revenue = goals.flatMap((goal) => goal.revenue ?? []);
      expect(row.metrics.slice(0, 2)).toEqual(["total_revenue", "average_revenue"].map((metric) => revenueFigure(metric, revenue)));
    }
    expect(results.filter((row) => row.metrics[0] !== null).length).toBe(2);
    expect((answer as unknown as Answer).meta.metric_warnings).toBeUndefined();
    const hourly = await query({ ...body, dimensions: ["time:hour"], date_range: "day" });
    expect(hourly.status).toBe(400);
    expect(String(hourly.body.error)).toContain("total_revenue");
  });

  it("answers goals, percentages and conversion rates as v1's goals", async () => {
    const range = { from: dayOf(now - 6 * DAY_MS), to: dayOf(now) };
    const { status, body } = await query({
      site_id: "dummy.site",
      metrics: ["visitors", "events", "conversion_rate"],
      date_range: "7d",
      dimensions: ["event:goal"],
    });
    expect(status).toBe(200);
    const goals = await v1("goals", range);
    expect((body as unknown as Answer).results).toEqual(
      goals.map((row) => ({
        dimensions: [row.value],
        metrics: [
          row.count,
          (row as unknown as { events: number }).events,
          (row as unknown as { conversion_rate: number }).conversion_rate,
        ],
      })),
    );
    // Metrics beyond the statistic's own count: each row counted under its value's filter, and its visitors still v1's.
    const wide = await query({
      site_id: "dummy.site",
      metrics: ["visitors", "pageviews", "bounce_rate", "events"],
      date_range: "7d",
      dimensions: ["visit:browser"],
    });
    const rows = (wide.body as unknown as Answer).results;
    expect(rows.map((row) => [row.dimensions[0], row.metrics[0]])).toEqual(
      (await v1("browser", range)).map((row) => [row.value, row.count]),
    );
    for (const row of rows) {
      expect(row.metrics).toEqual(
        await v1Figures(range, [`browser:is:${row.dimensions[0]}`], ["visitors", "pageviews", "bounce_rate", "events"]),
      );
    }
    const shares = await query({
      site_id: "dummy.site",
      metrics: ["visitors", "percentage"],
      date_range: "7d",
      dimensions: ["visit:browser"],
    });
    const browsers = await v1("browser", range);
    const all = (await v1Totals(range)).visitors!;
    expect((shares.body as unknown as Answer).results).toEqual(
      browsers.map((row) => ({ dimensions: [row.value], metrics: [row.count, Math.round((1000 * row.count) / all) / 10] })),
    );
  });

  it("answers days read from v1's day series as v1's totals of each day", async () => {
    const metrics = ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration"];
    const filters = [["is", "visit:os", ["GNU/Linux", "Mac"]]];
    const { status, body } = await query({ site_id: "dummy.site", metrics, date_range: "30d", dimensions: ["time:day"], filters });
    expect(status).toBe(200);
    const rows = (body as unknown as Answer).results;
    expect(rows).toHaveLength(10);
    for (const row of rows) {
      const day = { from: row.dimensions[0]!, to: row.dimensions[0]! };
      expect(row.metrics).toEqual(await v1Figures(day, ["os:is:GNU/Linux|Mac"], metrics));
    }
  });

  it("answers scroll_depth and time_on_page per page as v1's average and seconds, rounded; null for a page without any", async () => {
    const metrics = ["visitors", "scroll_depth", "time_on_page"];
    const { status, body } = await query({ site_id: "dummy.site", metrics, date_range: "7d", dimensions: ["event:page"] });
    expect(status, JSON.stringify(body)).toBe(200);
    const answer = body as unknown as { results: { dimensions: string[]; metrics: (number | null)[] }[]; query: { date_range: string[] } };
    const range = { from: answer.query.date_range[0]!.slice(0, 10), to: answer.query.date_range[1]!.slice(0, 10) };
    const [scroll, time] = await Promise.all([v1("scroll_depth", range), v1("time_on_page", range)]);
    const figure = (rows: V1Row[], page: string, key: "average" | "seconds") => {
      const found = (rows as (V1Row & Record<typeof key, number>)[]).find((row) => row.value === page);
      return found ? Math.round(found[key]) : null;
    };
    expect(answer.results.length).toBeGreaterThan(4);
    for (const row of answer.results) {
      const page = row.dimensions[0]!;
      const filtered = [`page:is:${page}`];
      const [visitors, pageScroll, pageTime] = await Promise.all([
        v1Totals(range, filtered),
        v1("scroll_depth", range, filtered),
        v1("time_on_page", range, filtered),
      ]);
      expect(row.metrics, page).toEqual([visitors.visitors, figure(pageScroll, page, "average"), figure(pageTime, page, "seconds")]);
      // The page's own visits are the visits that engaged on it: filtered or not, the same figures.
      expect(row.metrics.slice(1), page).toEqual([figure(scroll, page, "average"), figure(time, page, "seconds")]);
    }
    const kinds = (at: number) => new Set(answer.results.map((row) => (row.metrics[at] === null ? "null" : "number")));
    expect(kinds(1)).toEqual(new Set(["null", "number"]));
    expect(kinds(2)).toEqual(new Set(["null", "number"]));

    // One page by a filter, by day.
    const byDay = await query({
      site_id: "dummy.site",
      metrics: ["scroll_depth", "time_on_page"],
      date_range: "7d",
      dimensions: ["time:day"],
      filters: [["is", "event:page", ["/pricing"]]],
    });
    expect(byDay.status, JSON.stringify(byDay.body)).toBe(200);
    const days = (byDay.body as unknown as typeof answer).results;
    expect(days).toHaveLength(7);
    for (const row of days) {
      const day = { from: row.dimensions[0]!, to: row.dimensions[0]! };
      const filtered = ["page:is:/pricing"];
      const [dayScroll, dayTime] = await Promise.all([v1("scroll_depth", day, filtered), v1("time_on_page", day, filtered)]);
      expect(row.metrics).toEqual([figure(dayScroll, "/pricing", "average"), figure(dayTime, "/pricing", "seconds")]);
    }

    // Plausible's rule: a per-page metric needs the page.
    for (const filters of [[], [["contains", "event:page", ["/blog"]]]]) {
      const refused = await query({ site_id: "dummy.site", metrics: ["time_on_page"], date_range: "7d", filters });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(
        "Metric `time_on_page` can only be queried with an event:page dimension or an is filter on one event:page.",
      );
    }
  });

  it("answers or across dimensions as v1's || filter, and not of an or as its negated conditions", async () => {
    const range = { from: dayOf(now - 6 * DAY_MS), to: dayOf(now) };
    const metrics = ["visitors", "visits", "pageviews", "events", "bounce_rate"];
    const branches = [
      ["is", "visit:browser", ["Safari"]],
      ["contains", "event:page", ["/user/"]],
      ["is", "event:goal", ["Signup"]],
    ];
    const figures = async (filters: unknown[]) => {
      const { status, body } = await query({ site_id: "dummy.site", metrics, date_range: "7d", filters });
      expect(status, JSON.stringify(body)).toBe(200);
      return (body as unknown as Answer).results[0]!.metrics;
    };
    const either = await figures([["or", branches]]);
    expect(either).toEqual(await v1Figures(range, ["browser:is:Safari||page:contains:/user/||event:is:Signup"], metrics));
    // More than any branch alone: the branches select different visits.
    for (const branch of branches) expect(either[0]).toBeGreaterThan((await figures([branch]))[0]!);
    expect(await figures([["not", ["or", branches]]])).toEqual(
      await v1Figures(range, ["browser:is_not:Safari", "page:contains_not:/user/", "event:is_not:Signup"], metrics),
    );
    expect(await figures([["not", ["and", branches.slice(0, 2)]]])).toEqual(
      await v1Figures(range, ["browser:is_not:Safari||page:contains_not:/user/"], metrics),
    );
    const refused = await query({
      site_id: "dummy.site",
      metrics,
      date_range: "7d",
      filters: [["or", [["and", branches.slice(0, 2)], branches[2]]]],
    });
    expect(refused.status).toBe(400);
    expect(String(refused.body.error)).toContain("only single conditions");
  });

  it("answers has_not_done with any metric; refuses has_done where v1 would narrow the hits, and of a negated condition", async () => {
    const range = { from: dayOf(now - 6 * DAY_MS), to: dayOf(now) };
    const ask = (metrics: string[], filters: unknown[]) => query({ site_id: "dummy.site", metrics, date_range: "7d", filters });
    const pricing = ["is", "event:page", ["/pricing"]];
    const metrics = ["visits", "pageviews", "events"];
    const without = await ask(metrics, [["has_not_done", pricing]]);
    expect(without.status, JSON.stringify(without.body)).toBe(200);
    const figures = (without.body as unknown as Answer).results[0]!.metrics;
    expect(figures[0]).toBeGreaterThan(0);
    expect(figures).toEqual(await v1Figures(range, ["page:is_not:/pricing"], metrics));
    // The visits with a /pricing hit and those without are all the visits.
    const within = await ask(["visits"], [["has_done", pricing]]);
    expect(figures[0]! + (within.body as unknown as Answer).results[0]!.metrics[0]!).toBe((await v1Totals(range)).visits);
    const narrowed = await ask(["visits", "pageviews"], [["has_done", pricing]]);
    expect(narrowed.status).toBe(400);
    expect(narrowed.body.error).toBe("Tally answers has_done on event:page only with visit metrics and dimensions, not pageviews.");
    for (const head of ["has_done", "has_not_done"]) {
      const refused = await ask(["visitors"], [[head, ["is_not", "event:goal", ["Signup"]]]]);
      expect(refused.status).toBe(400);
      expect(String(refused.body.error)).toContain(`Tally answers ${head} of is, contains or matches conditions only`);
    }
  });

  it("answers every metric by hour (time:hour): each hour's figures are those of the visits that started in it", async () => {
    // Two days ago: today's people (up to 48 minutes before now) may fall on yesterday just after midnight.
    const day = dayOf(now - 2 * DAY_MS);
    const range = { from: day, to: day };
    const metrics = ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration", "views_per_visit", "events", "percentage"];
    const { status, body } = await query({ site_id: "dummy.site", metrics, date_range: [day, day], dimensions: ["time:hour"] });
    expect(status, JSON.stringify(body)).toBe(200);
    // Person p visits once that day, at 08:00 + p × 47 min; browser and os together name each of the twelve.
    const people = await Promise.all(
      Array.from({ length: 12 }, async (_, p) => {
        const filters = [`browser:is:${["Chrome", "Firefox", "Safari"][p % 3]}`, `os:is:${["GNU/Linux", "Mac", "Windows", "iOS"][p % 4]}`];
        const start = Date.parse(`${day}T08:00:00Z`) + p * 47 * 60_000;
        return {
          hour: new Date(start).toISOString().slice(11, 13),
          totals: await v1Totals(range, filters),
          events: await v1Events(range, filters),
        };
      }),
    );
    const hours = [...new Set(people.map((person) => person.hour))].sort();
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    const expected = hours.map((hour) => {
      const here = people.filter((person) => person.hour === hour);
      const visits = sum(here.map((person) => person.totals.visits!));
      const pageviews = sum(here.map((person) => person.totals.pageviews!));
      const bounces = sum(here.map((person) => (person.totals.bounce_rate! / 100) * person.totals.visits!));
      const duration = sum(here.map((person) => person.totals.visit_duration! * person.totals.visits!));
      return {
        dimensions: [`${day} ${hour}:00:00`],
        metrics: [
          here.length,
          visits,
          pageviews,
          Math.round((1000 * bounces) / visits) / 10,
          Math.round(duration / visits),
          Math.round((100 * pageviews) / visits) / 100,
          sum(here.map((person) => person.events)),
          Math.round((1000 * here.length) / 12) / 10,
        ],
      };
    });
    expect((body as unknown as Answer).results).toEqual(expected);
    // The same from day blocks (every day but today gets one).
    expect(await stored.tally.buildDayBlocks()).toBeGreaterThan(0);
    const fromBlocks = await query({ site_id: "dummy.site", metrics, date_range: [day, day], dimensions: ["time:hour"] });
    expect((fromBlocks.body as unknown as Answer).results).toEqual(expected);
    const tooLong = await query({ site_id: "dummy.site", metrics: ["visits"], date_range: "all", dimensions: ["time:hour"] });
    expect(tooLong.status).toBe(400);
    expect(String(tooLong.body.error)).toContain("at most 31 days");
  });

  it("lists an hour only where a metric asked counts in it: a visit's second pageview past the hour is no `visitors` row", async () => {
    await stored.tally.websites.create(accountId, { domain: "hours.example" });
    const day = dayOf(now - 3 * DAY_MS);
    const visitor = { ip: "203.0.113.77", userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0" };
    await stored.tally.collect({ ...visitor, url: "https://hours.example/", timestamp: Date.parse(`${day}T10:59:50Z`) });
    await stored.tally.collect({ ...visitor, url: "https://hours.example/next", timestamp: Date.parse(`${day}T11:00:10Z`) });
    await stored.tally.flush();
    const asked = (metrics: string[]) =>
      query({ site_id: "hours.example", metrics, date_range: [day, day], dimensions: ["time:hour"] }).then(
        ({ body }) => (body as unknown as Answer).results,
      );
    expect(await asked(["visitors"])).toEqual([{ dimensions: [`${day} 10:00:00`], metrics: [1] }]);
    expect(await asked(["visitors", "pageviews"])).toEqual([
      { dimensions: [`${day} 10:00:00`], metrics: [1, 1] },
      { dimensions: [`${day} 11:00:00`], metrics: [0, 1] },
    ]);
  });

  it("answers Plausible's errors: 401 without a key, 404 for another domain, 400 for what Tally does not keep", async () => {
    const anonymous = apiClient(served, null);
    const unauthenticated = await anonymous.post(
      "/api/v2/query",
      jsonBody({ site_id: "dummy.site", metrics: ["visitors"], date_range: "7d" }),
    );
    expect(unauthenticated.status).toBe(401);
    expect(Object.keys(unauthenticated.body)).toEqual(["error"]);
    const other = await stored.tally.accounts.create();
    const stranger = apiClient(served, other.key);
    const hidden = await stranger.post("/api/v2/query", jsonBody({ site_id: "dummy.site", metrics: ["visitors"], date_range: "7d" }));
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'Site "dummy.site" not found in this account.' });
    for (const dimension of ["visit:entry_page_hostname", "visit:browser_version", "visit:os_version"]) {
      const { status, body } = await query({ site_id: "dummy.site", metrics: ["visitors"], date_range: "7d", dimensions: [dimension] });
      expect(status).toBe(400);
      expect(body.error).toBe(`Tally does not keep ${dimension}; it cannot be used in dimensions.`);
    }
    const malformed = await owner.post("/api/v2/query", { body: "{", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: "The request body is not valid JSON." });
  });

  it("answers a date_range within days (date-times, 24h) with the visits that start in it", async () => {
    // The past days' blocks hold whole days: the days a range cuts are read from the rows.
    await stored.tally.buildDayBlocks();
    const [datetime, last24h] = ["date-range-datetime", "date-range-24h"].map((name) => FIXTURES.find((fixture) => fixture.id === name)!);
    const part = await query(datetime!.body);
    expect(part.status, JSON.stringify(part.body)).toBe(200);
    expect(part.body.query).toMatchObject({ date_range: ["2024-01-01T10:00:00+00:00", "2024-01-01T13:59:59+00:00"] });
    // v1's hours of that day count each visitor at its first visit's hour: one visit a day each here.
    const hours = await v1("visitors_hours", { from: "2024-01-01", to: "2024-01-01" });
    const inPart = hours.filter((row) => row.value >= "10" && row.value <= "13").reduce((sum, row) => sum + row.count, 0);
    expect(inPart).toBe(1);
    expect((part.body as unknown as Answer).results).toEqual([{ dimensions: [], metrics: [inPart] }]);

    const day = await query(last24h!.body);
    expect(day.status, JSON.stringify(day.body)).toBe(200);
    const [from, to] = (day.body.query as { date_range: [string, string] }).date_range;
    expect(Date.parse(to) - Date.parse(from)).toBe(DAY_MS);
    expect(Math.abs(Date.now() - Date.parse(to))).toBeLessThan(60_000);
    // Today's twelve people, and yesterday's (08:00 UTC, one each 47 minutes) from the same time of day on.
    const yesterday = Date.parse(`${dayOf(now - DAY_MS)}T08:00:00Z`);
    const since = Array.from({ length: 12 }, (_, p) => yesterday + p * 47 * 60_000).filter((at) => at >= Date.parse(from)).length;
    expect((day.body as unknown as Answer).results).toEqual([{ dimensions: [], metrics: [12 + since] }]);
    const byHour = await query({ ...last24h!.body, metrics: ["visitors", "pageviews", "events"], dimensions: ["time:hour"] });
    expect(byHour.status, JSON.stringify(byHour.body)).toBe(200);
    const rows = (byHour.body as unknown as Answer).results;
    expect(rows.reduce((sum, row) => sum + row.metrics[0]!, 0)).toBe(12 + since);
    const totals = await query({ ...last24h!.body, metrics: ["visitors", "pageviews", "events"] });
    expect((totals.body as unknown as Answer).results[0]!.metrics.slice(1)).toEqual(
      [1, 2].map((at) => rows.reduce((sum, row) => sum + row.metrics[at]!, 0)),
    );
    const refused = await query({ ...last24h!.body, dimensions: ["visit:browser"] });
    expect(refused.status).toBe(400);
    expect(String(refused.body.error)).toContain("within days");
  });
});
