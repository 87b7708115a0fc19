// Type-level tests of @tally-analytics/client, checked by `tsc -p test/client/types`
// (test/client/client-types.test.ts runs it). Each `@ts-expect-error` must be an error:
// tsc reports an unused one, so a wrong parameter that compiles fails the test.
import { createClient, type TallyApiError, type StatsPage, type Website } from "@tally-analytics/client";
import { expectTypeOf } from "vitest";

export async function typeTests(): Promise<void> {
  const client = createClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "tly_…" });

  // What is right compiles, and answers are typed from the OpenAPI document.
  expectTypeOf(await client.websites.get(1)).toEqualTypeOf<Website>();
  expectTypeOf((await client.websites.get(1)).privacy).toEqualTypeOf<0 | 1 | 2>();
  expectTypeOf(
    await client.stats.query(1, { name: "page", from: "2026-11-01", to: "2026-11-30", per_page: 25, page: 2, filter: ["country:is:DE"] }),
  ).toEqualTypeOf<StatsPage>();
  expectTypeOf(
    (await client.stats.totals(1, { from: "2026-11-01", to: "2026-11-30", compare: "year" })).data.bounce_rate,
  ).toEqualTypeOf<number>();
  expectTypeOf((await client.account()).name).toEqualTypeOf<string>();
  expectTypeOf((await client.realtime(1)).visitors).toEqualTypeOf<number>();
  await client.websites.create({ domain: "example.com", privacy: 2, password: "secret", timezone: "Europe/Paris" });
  await client.websites.update(1, { exclude_bots: 0, retention_days: 365 });
  expectTypeOf<TallyApiError["errors"]>().toEqualTypeOf<Readonly<Record<string, readonly string[]>>>();

  // @ts-expect-error: not a statistic
  await client.stats.query(1, { name: "pageview", from: "2026-11-01", to: "2026-11-30" });
  // @ts-expect-error: `to` is required
  await client.stats.query(1, { name: "page", from: "2026-11-01" });
  // @ts-expect-error: per_page is 10, 25, 50 or 100
  await client.stats.query(1, { name: "page", from: "2026-11-01", to: "2026-11-30", per_page: 20 });
  // @ts-expect-error: compare is previous_period or year
  await client.stats.totals(1, { from: "2026-11-01", to: "2026-11-30", compare: "month" });
  // @ts-expect-error: a website id is a number
  await client.websites.get("example.com");
  // @ts-expect-error: privacy is 0, 1 or 2
  await client.websites.create({ domain: "example.com", privacy: 3 });
  // @ts-expect-error: domain is required on create
  await client.websites.create({ privacy: 1 });
  // @ts-expect-error: no such field
  await client.websites.update(1, { domian: "example.com" });
  // @ts-expect-error: sort_by is id or domain
  await client.websites.list({ sort_by: "created_at" });
  // @ts-expect-error: baseUrl is required
  createClient({ apiKey: "tly_…" });
}
