// @tally-analytics/client against a real `tally serve` (the built CLI on port 0), and
// through the fetch handler mounted under a prefix.
import { createClient, TallyApiError, type TallyClient } from "@tally-analytics/client";
import { createHandler } from "@tally-analytics/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROME, FIREFOX, spawnServe, tempDirectory, type Child } from "../reliability/support.js";
import { createTempTally } from "../support/tally-fixture.js";

const KEY = "tly_client-test-key-0123456789abcdef";
const today = new Date().toISOString().slice(0, 10);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
/** Today in any time zone, and more. */
const RANGE = { from: day(-30), to: day(2) };

/** How a call fails: its TallyApiError. */
async function refusal(promise: Promise<unknown>): Promise<TallyApiError> {
  const error = await promise.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(TallyApiError);
  return error as TallyApiError;
}

describe("the client against tally serve", () => {
  const directory = tempDirectory("tally-client-");
  let server: Child;
  let client: TallyClient;

  async function hit(url: string, extra: Record<string, unknown> = {}, userAgent = FIREFOX): Promise<void> {
    const response = await fetch(`${server.base}/collect`, {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": userAgent },
      body: JSON.stringify({ u: url, ...extra }),
    });
    expect(response.status).toBe(202);
  }

  beforeAll(async () => {
    server = await spawnServe({
      DATABASE_URL: `file:${directory.path}/tally.sqlite`,
      TALLY_API_KEY: KEY,
      RATE_LIMIT: "150",
      FLUSH_INTERVAL_MS: "50",
    });
    client = createClient({ baseUrl: server.base, apiKey: KEY });
  });

  afterAll(async () => {
    await server?.stop();
    directory.remove();
  });

  it("account() names the key's account", async () => {
    expect(await client.account()).toEqual({
      id: expect.any(Number),
      name: "default",
      created_at: expect.stringMatching(/^\d{4}-/),
      email: null,
      report_period: "week",
    });
  });

  it("updateAccount() sets the report address and period; a bad address is a typed 422", async () => {
    expect(await client.updateAccount({ email: "owner@example.com", report_period: "month" })).toMatchObject({
      email: "owner@example.com",
      report_period: "month",
    });
    expect(await client.account()).toMatchObject({ email: "owner@example.com", report_period: "month" });
    const refused = await client.updateAccount({ email: "not an address" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TallyApiError);
    expect(refused).toMatchObject({ status: 422, errors: { email: [expect.any(String)] } });
    expect(await client.updateAccount({ email: "" })).toMatchObject({ email: null, report_period: "month" });
  });

  it("creates, reads, lists, updates and deletes websites", async () => {
    const created = await client.websites.create({ domain: "https://www.Client.Example/", timezone: "Europe/Paris", privacy: 0 });
    expect(created).toMatchObject({ domain: "client.example", timezone: "Europe/Paris", privacy: 0, password: false, exclude_bots: 1 });
    expect(await client.websites.get(created.id)).toEqual(created);

    await client.websites.create({ domain: "other.example" });
    const page = await client.websites.list({ search: "client", per_page: 10, page: 1 });
    expect(page.data.map((site) => site.domain)).toEqual(["client.example"]);
    expect(page.meta).toMatchObject({ total: 1, per_page: 10, current_page: 1 });
    const sorted = await client.websites.list({ sort_by: "domain", sort: "asc" });
    expect(sorted.data.map((site) => site.domain)).toEqual(["client.example", "other.example"]);

    const updated = await client.websites.update(created.id, { privacy: 2, password: "open sesame", exclude_ips: "10.0.0.0/8" });
    expect(updated).toMatchObject({ id: created.id, privacy: 2, password: true, exclude_ips: "10.0.0.0/8" });

    const other = (await client.websites.list({ search: "other" })).data[0]!;
    expect(await client.websites.delete(other.id)).toEqual({ id: other.id, object: "website", deleted: true, status: 200 });
    const gone = await refusal(client.websites.get(other.id));
    expect(gone).toMatchObject({ status: 404, message: "Resource not found.", errors: {} });
  });

  it("a 422 is a TallyApiError with every field's messages", async () => {
    const invalid = await refusal(client.websites.create({ domain: "fresh.example", privacy: "3", retention_days: 1 } as never));
    expect(invalid.status).toBe(422);
    expect(invalid.message).toBe("The given data was invalid.");
    expect(invalid.errors).toEqual({
      privacy: ["The selected privacy is invalid."],
      retention_days: ["The retention days must be a whole number from 7 to 3660."],
    });
    expect((await refusal(client.websites.create({ domain: "client.example" }))).errors).toEqual({
      domain: ["The domain has already been taken."],
    });
    const filter = await refusal(client.stats.query(1, { name: "page", ...RANGE, filter: ["country:is:DE", "nope"] }));
    expect(filter.errors).toEqual({
      "filter.1": [
        'The filter "nope" is not of the form dimension:operator:value (operators: is, is_not, contains, contains_not, matches, matches_not).',
      ],
    });
  });

  it("reads statistics, filters, totals with a comparison, and realtime", async () => {
    const site = await client.websites.create({ domain: "stats.example", exclude_bots: 0 });
    await hit("https://stats.example/pricing", { r: "https://news.ycombinator.com/", l: "de-DE" });
    await hit("https://stats.example/docs", { l: "en-US" }, CHROME);
    await hit("https://stats.example/pricing", { n: "Signup", p: { plan: "pro" } });

    const pages = await client.stats.query(site.id, { name: "page", ...RANGE, per_page: 25 });
    // Ties by value, ascending (the event is not a pageview).
    expect(pages.data).toEqual([
      { value: "/docs", count: 1 },
      { value: "/pricing", count: 1 },
    ]);
    expect(pages.meta.total).toBe(2);

    const german = await client.stats.query(site.id, { name: "page", ...RANGE, filter: "language:is:de" });
    expect(german.data).toEqual([{ value: "/pricing", count: 1 }]);
    const days = await client.stats.query(site.id, { name: "pageviews", from: today, to: today, compare: "previous_period" });
    expect(days.data).toEqual([{ value: today, count: 2, previous: 0 }]);
    expect(days.comparison).toBeDefined();

    const totals = await client.stats.totals(site.id, { from: today, to: today, compare: "year" });
    expect(totals.data).toMatchObject({ pageviews: 2, visitors: 2, visits: 2 });
    expect(totals.previous).toMatchObject({ pageviews: 0 });
    expect(await client.realtime(site.id)).toEqual({ visitors: 2 });
  });

  it("defines, lists, reads and deletes funnels; reads a journey", async () => {
    const site = (await client.websites.list({ search: "stats.example" })).data[0]!;
    const funnel = await client.funnels.create(site.id, { name: "Signup", steps: ["page:/pricing", "event:Signup"] });
    expect(await client.funnels.list(site.id)).toEqual([funnel]);
    const read = await client.stats.funnel(site.id, { funnel: funnel.id, ...RANGE });
    expect(read.data.map((row) => [row.label, row.visitors, row.conversion_rate, row.drop_off])).toEqual([
      ["page:/pricing", 1, 100, 0],
      ["event:Signup", 1, 100, 0],
    ]);
    const journey = await client.stats.journey(site.id, { from_page: "/pricing", depth: 2, ...RANGE });
    expect(journey.links).toEqual([{ step: 1, from: "page:/pricing", to: "event:Signup", visitors: 1 }]);
    const invalid = await refusal(client.funnels.create(site.id, { name: "Short", steps: ["page:/"] }));
    expect(invalid.errors).toEqual({ steps: ["A funnel has 2 to 8 steps."] });
    expect(await client.funnels.delete(site.id, funnel.id)).toEqual({ id: funnel.id, object: "funnel", deleted: true, status: 200 });
    expect(await client.funnels.list(site.id)).toEqual([]);
  });

  it("share pages: public ones read without a key; a password one answers 401 until unlocked", async () => {
    const anonymous = createClient({ baseUrl: `${server.base}/` });
    const shared = anonymous.share("stats.example");
    await refusal(shared.website()).then((error) => expect(error.status).toBe(404)); // private by default
    const site = (await client.websites.list({ search: "stats.example" })).data[0]!;
    await client.websites.update(site.id, { privacy: 0 });
    expect(await shared.website()).toEqual({ domain: "stats.example", timezone: "UTC" });
    expect((await shared.stats({ name: "page", ...RANGE })).meta.total).toBe(2);
    expect(await shared.realtime()).toEqual({ visitors: 2 });

    const locked = anonymous.share("client.example");
    expect((await refusal(locked.website())).status).toBe(401);
    expect((await refusal(locked.unlock("wrong"))).errors).toEqual({ password: ["The password is incorrect."] });
    expect(await locked.unlock("open sesame")).toEqual({ message: "Access granted.", status: 200 });
  });

  it("an unknown key is a 401; past the rate limit a 429 with Retry-After", async () => {
    const stranger = createClient({ baseUrl: server.base, apiKey: () => "tly_not-a-key-of-this-server-000000" });
    expect(await refusal(stranger.account())).toMatchObject({ status: 401, message: "Unauthenticated." });
    let limited: TallyApiError | null = null;
    for (let i = 0; i < 200 && !limited; i++)
      limited = await client.account().then(
        () => null,
        (error: TallyApiError) => error,
      );
    expect(limited).toMatchObject({ status: 429, message: "Too Many Attempts." });
    expect(limited!.retryAfter).toBeGreaterThan(0);
  });
});

describe("the client through a fetch handler mounted under a prefix", () => {
  it("builds every URL under the mount", async () => {
    const fixture = createTempTally();
    try {
      const { key } = await fixture.tally.accounts.create({ name: "mounted" });
      const handler = createHandler(fixture.tally, { basePath: "/analytics" });
      const seen: string[] = [];
      const client = createClient({
        baseUrl: "http://tally.test/analytics/",
        apiKey: key,
        fetch: (input, init) => {
          seen.push(String(input));
          return handler(new Request(input, init));
        },
      });
      const site = await client.websites.create({ domain: "mounted.example" });
      expect(await client.websites.get(site.id)).toEqual(site);
      await client.stats.query(site.id, { name: "page", ...RANGE, filter: ["page:is:/a", "page:is_not:/b"], search: "" });
      expect(seen).toEqual([
        "http://tally.test/analytics/api/v1/websites",
        `http://tally.test/analytics/api/v1/websites/${site.id}`,
        `http://tally.test/analytics/api/v1/stats/${site.id}?name=page&from=${RANGE.from}&to=${RANGE.to}&filter=page%3Ais%3A%2Fa&filter=page%3Ais_not%3A%2Fb`,
      ]);
    } finally {
      await fixture.dispose();
    }
  });
});
