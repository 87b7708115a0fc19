// Filters, comparison, totals and the new statistics through HTTP: the API and share
// pages answer exactly what the in-process API does, repeated `filter` parameters are
// all applied, and bad filters are a 422 naming the condition. Every transport, both dialects.
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, expectInvalid, expectJson, type ApiClient } from "../support/api-client.js";
import { apiMatrix } from "../support/matrix.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:124.0) Gecko/20100101 Firefox/124.0";
const RANGE = "from=2026-03-01&to=2026-03-31";

describe.each(apiMatrix)("segments over $name", ({ transport, dialect }) => {
  let stored: TestTally;
  let tally: Tally;
  let served: Served;
  let owner: ApiClient;
  let anonymous: ApiClient;
  let id = 0;

  beforeAll(async () => {
    stored = await createTestTally(dialect, { retentionIntervalMs: 0 });
    tally = stored.tally;
    const { accountId, key } = await tally.accounts.create();
    id = (await tally.websites.create(accountId, { domain: "seg.example", privacy: 0 })).id;
    // Two browsers, a few days, campaigns, a signup event with a plan.
    for (let day = 1; day <= 6; day++) {
      for (let person = 0; person < 8; person++) {
        const userAgent = person % 2 === 0 ? CHROME : FIREFOX;
        const ip = `198.51.100.${person}`;
        const at = Date.parse(`2026-03-0${day}T10:00:00Z`) + person * 60_000;
        const source = person % 4 === 0 ? "?utm_source=newsletter&utm_medium=email" : "";
        await tally.collect({
          url: `https://seg.example/landing${source}`,
          ip,
          userAgent,
          timestamp: at,
          referrer: person % 3 === 0 ? "https://news.example/" : "",
        });
        if (person % 2 === 1) await tally.collect({ url: "https://seg.example/pricing", ip, userAgent, timestamp: at + 30_000 });
        if (person === 1 || person === 4)
          await tally.collect({
            url: "https://seg.example/pricing",
            ip,
            userAgent,
            timestamp: at + 60_000,
            event: "Signup",
            props: { plan: person === 1 ? "pro" : "free" },
          });
      }
    }
    await tally.flush();
    served = await transport.serve(tally);
    owner = apiClient(served, key);
    anonymous = apiClient(served, null);
  });

  afterAll(async () => {
    await served.close();
    await stored.dispose();
  });

  const direct = (query: Record<string, unknown>) =>
    tally.stats.queryWebsite(id, { ...query, ...Object.fromEntries(new URLSearchParams(RANGE)) });

  it("repeated filter parameters all apply, on the API and the share page alike", async () => {
    const path = `name=page&${RANGE}&filter=browser:is:Firefox&filter=page:is:/pricing`;
    const expected = await direct({ name: "page", filter: ["browser:is:Firefox", "page:is:/pricing"] });
    // Firefox is the odd persons, and each of them views /pricing once a day.
    expect(expected.data).toEqual([{ value: "/pricing", count: 24 }]);
    for (const response of [await owner.get(`/api/v1/stats/${id}?${path}`), await anonymous.get(`/share/seg.example/api/stats?${path}`)]) {
      expectJson(response, 200);
      expect(response.body.data).toEqual(expected.data);
      expect(response.body.meta?.total).toBe(1);
    }
  });

  it("visitors by hour under a filter: the hour of each visitor-day's first matching visit (it was a 500)", async () => {
    const response = await owner.get(`/api/v1/stats/${id}?name=visitors_hours&${RANGE}&filter=browser:is:Firefox`);
    expectJson(response, 200);
    // The four Firefox persons arrive at 10:0x every one of the six days.
    expect(response.body.data).toEqual([{ value: "10", count: 24 }]);
  });

  it("visit metrics answer rows by day and a total; compare adds previous counts and the range compared with", async () => {
    const response = await owner.get(`/api/v1/stats/${id}?name=bounce_rate&${RANGE}&compare=previous_period&sort_by=value&sort=asc`);
    expectJson(response, 200);
    const expected = await direct({ name: "bounce_rate", compare: "previous_period", sort_by: "value", sort: "asc" });
    expect(response.body.data).toEqual(expected.data);
    expect(response.body.total).toBe(expected.rangeTotal);
    expect(response.body.previous_total).toBe(0);
    expect(response.body.comparison).toEqual({ from: "2026-01-29", to: "2026-02-28" });
    expect((response.body.data as { previous: number }[]).every((row) => row.previous === 0)).toBe(true);
    // Persons 0, 2 and 6 only see the landing page: 3 of 8 visits a day bounce.
    expect(response.body.total).toBe(37.5);
  });

  it("totals for a range and filter set in one request, with comparison, on the API and the share page", async () => {
    const query = `${RANGE}&filter=utm_source:is:newsletter&compare=year`;
    const expected = await tally.stats.totalsWebsite(id, {
      ...Object.fromEntries(new URLSearchParams(RANGE)),
      filter: "utm_source:is:newsletter",
      compare: "year",
    });
    expect(expected.data).toEqual({ visitors: 12, visits: 12, pageviews: 12, views_per_visit: 1, bounce_rate: 50, visit_duration: 30 });
    for (const response of [
      await owner.get(`/api/v1/stats/${id}/totals?${query}`),
      await anonymous.get(`/share/seg.example/api/totals?${query}`),
    ]) {
      expectJson(response, 200);
      expect(response.body.data).toEqual(expected.data);
      expect(response.body.previous).toEqual({
        visitors: 0,
        visits: 0,
        pageviews: 0,
        views_per_visit: 0,
        bounce_rate: 0,
        visit_duration: 0,
      });
      expect(response.body.comparison).toEqual({ from: "2025-03-01", to: "2025-03-31" });
    }
  });

  it("goals and property breakdowns", async () => {
    const goals = await owner.get(`/api/v1/stats/${id}?name=goals&${RANGE}`);
    expect(goals.body.data).toEqual([{ value: "Signup", count: 12, events: 12, conversion_rate: 25 }]);
    const plans = await owner.get(`/api/v1/stats/${id}?name=event_property&event=Signup&property=plan&${RANGE}&sort_by=value&sort=asc`);
    expect(plans.body.data).toEqual([
      { value: "free", count: 6 },
      { value: "pro", count: 6 },
    ]);
    const filtered = await owner.get(`/api/v1/stats/${id}?name=referrer&${RANGE}&filter=prop:plan:is:pro`);
    expect(filtered.body.data).toEqual([]);
    const signedUpFrom = await owner.get(`/api/v1/stats/${id}?name=utm_source&${RANGE}&filter=event:is:Signup`);
    expect(signedUpFrom.body.data).toEqual([{ value: "newsletter", count: 6 }]);
  });

  it("page goals (goal_page) are counted beside the event goals, filtered too, on the API and the share page; misuse is a 422", async () => {
    const query = `name=goals&${RANGE}&goal_page=/pricing&goal_page=/land*&goal_page=/none`;
    // 48 visitor-days all land; the odd persons (24) view /pricing; persons 1 and 4 sign up (12).
    const expected = [
      { value: "Visit /land*", count: 48, events: 48, conversion_rate: 100 },
      { value: "Visit /pricing", count: 24, events: 24, conversion_rate: 50 },
      { value: "Signup", count: 12, events: 12, conversion_rate: 25 },
    ];
    for (const response of [
      await owner.get(`/api/v1/stats/${id}?${query}`),
      await anonymous.get(`/share/seg.example/api/stats?${query}`),
    ]) {
      expectJson(response, 200);
      expect(response.body.data).toEqual(expected);
    }
    const firefox = await owner.get(`/api/v1/stats/${id}?${query}&filter=browser:is:Firefox`);
    expect(firefox.body.data).toEqual([
      { value: "Visit /land*", count: 24, events: 24, conversion_rate: 100 },
      { value: "Visit /pricing", count: 24, events: 24, conversion_rate: 100 },
      { value: "Signup", count: 6, events: 6, conversion_rate: 25 },
    ]);
    expectInvalid(await owner.get(`/api/v1/stats/${id}?name=page&${RANGE}&goal_page=/x`), {
      goal_page: ["The goal page field is only allowed with name=goals."],
    });
    const eleven = Array.from({ length: 11 }, (_, i) => `goal_page=/p${i}`).join("&");
    expectInvalid(await owner.get(`/api/v1/stats/${id}?name=goals&${RANGE}&${eleven}`), {
      goal_page: ["At most 10 goal pages are allowed."],
    });
    expectInvalid(await owner.get(`/api/v1/stats/${id}?name=goals&${RANGE}&goal_page=/${"x".repeat(200)}`), {
      "goal_page.0": ["A goal page must be 1 to 200 characters."],
    });
  });

  it("a bad filter is a 422 naming it; event_property needs its event and property", async () => {
    expectInvalid(await owner.get(`/api/v1/stats/${id}?name=page&${RANGE}&filter=page:is:/a&filter=browser:equals:x`), {
      "filter.1": [
        'The filter "browser:equals:x" is not of the form dimension:operator:value (operators: is, is_not, contains, contains_not, matches, matches_not).',
      ],
    });
    expectInvalid(await owner.get(`/api/v1/stats/${id}?name=page&${RANGE}&filter=planet:is:mars`), {
      "filter.0": ['The filter dimension "planet" is unknown.'],
    });
    expectInvalid(await anonymous.get(`/share/seg.example/api/totals?${RANGE}&compare=last_week`), {
      compare: ["The selected compare is invalid."],
    });
    expectInvalid(await owner.get(`/api/v1/stats/${id}?name=event_property&${RANGE}`), {
      event: ["The event field is required for event_property."],
      property: ["The property field is required for event_property."],
    });
  });
});
