// The calls a public integration written for APIs of this shape sends (an automation
// platform's component): it creates websites from JSON bodies, lists them for a picker, and
// pages through statistics with sort_by values the API does not list, per_page=100,
// reading current_page and last_page at the top level. Each must succeed with the rows a
// strict client (one that sends only listed values) gets.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson, jsonBody, websites, type ApiClient } from "../support/api-client.js";
import { servedWithTwoAccounts } from "../support/tally-fixture.js";
import { transports } from "../support/transports.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const today = new Date().toISOString().slice(0, 10);
const PAGES = 130;

/** Every row of a statistic, page after page, as the component reads them (top-level `last_page`). */
async function allRows(client: ApiClient, path: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  for (let page = 1; ; page++) {
    const response = await client.get(`${path}&page=${page}`);
    expectJson(response, 200);
    expect(response.body.current_page).toBe(page);
    rows.push(...(response.body.data as unknown[]));
    if (page >= (response.body.last_page as number)) return rows;
  }
}

describe.each(transports.slice(0, 2))("a public integration's calls ($name)", (transport) => {
  let fixture: Awaited<ReturnType<typeof servedWithTwoAccounts>>;
  let id: number;

  beforeAll(async () => {
    fixture = await servedWithTwoAccounts(transport, "sqlite");
    const created = await fixture.alice.post("/api/v1/websites", jsonBody({ domain: "integration.example", privacy: 0 }));
    expectJson(created, 201);
    id = (created.body.data as { id: number }).id;
    await fixture.alice.post("/api/v1/websites", jsonBody({ domain: "second-integration.example" }));
    for (let page = 0; page < PAGES; page++) {
      // Pages viewed 1, 2 or 3 times, so the order by count is not the order by value.
      for (let view = 0; view <= page % 3; view++) {
        await fixture.tally.collect({ url: `https://integration.example/p/${page}`, ip: `10.0.${page}.${view}`, userAgent: CHROME });
      }
    }
    await fixture.tally.flush();
  });
  afterAll(() => fixture.dispose());

  it("creates a website from a JSON body", async () => {
    const response = await fixture.alice.get(`/api/v1/websites/${id}`);
    expectJson(response, 200);
    expect(response.body.data).toMatchObject({ domain: "integration.example", privacy: 0 });
  });

  it("lists websites for a picker with sort_by values the API does not list", async () => {
    const strict = await fixture.alice.get("/api/v1/websites?per_page=100");
    for (const sortBy of ["url", "domain", "id"]) {
      const response = await fixture.alice.get(`/api/v1/websites?sort_by=${sortBy}&per_page=100`);
      expectJson(response, 200);
      const expected = sortBy === "domain" ? [...websites(strict)].sort((a, b) => b.domain.localeCompare(a.domain)) : websites(strict);
      expect(websites(response)).toEqual(expected);
      expect(response.body).toMatchObject({ current_page: 1, last_page: 1, per_page: 100, total: 2, from: 1, to: 2 });
    }
  });

  it.each(["url", "domain", "id"])("pages through statistics with sort_by=%s and per_page=100", async (sortBy) => {
    const range = `name=page&from=${today}&to=${today}`;
    const strict = await allRows(fixture.alice, `/api/v1/stats/${id}?${range}&per_page=100`);
    expect(strict).toHaveLength(PAGES);
    const lenient = await allRows(fixture.alice, `/api/v1/stats/${id}?${range}&sort_by=${sortBy}&per_page=100`);
    expect(lenient).toEqual(strict);
    const first = await fixture.alice.get(`/api/v1/stats/${id}?${range}&sort_by=${sortBy}&per_page=100`);
    expect(first.body).toMatchObject({ current_page: 1, last_page: 2, per_page: 100, total: PAGES, from: 1, to: 100 });
    expect(first.body.meta).toMatchObject({ fallbacks: { sort_by: { given: sortBy, used: "count" } } });
    expect(first.headers.get("warning")).toBe(`299 - "sort_by=${sortBy} is not supported; sort_by=count was used"`);
  });

  it("still refuses missing parameters and malformed dates", async () => {
    const missing = await fixture.alice.get(`/api/v1/stats/${id}?from=${today}&to=${today}&sort_by=url`);
    expectJson(missing, 422);
    expect(missing.body.errors).toEqual({ name: ["The name field is required."] });
    const malformed = await fixture.alice.get(`/api/v1/stats/${id}?name=page&from=2026-1-1&to=${today}&per_page=7`);
    expectJson(malformed, 422);
    expect(malformed.body.errors).toEqual({ from: ["The from is not a valid date in the format Y-m-d."] });
  });
});
