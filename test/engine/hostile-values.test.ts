/**
 * Values no statistic should ever choke on: control characters (PostgreSQL refuses NUL
 * in text, so one such hit would fail every flush after it), percent-escaped NULs,
 * quotes, SQL-looking text and lone UTF-16 surrogates. Each is counted, readable, and later hits still land.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";

const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const DAY = "2026-05-04";
const at = Date.parse(`${DAY}T12:00:00Z`);

describe.each(DIALECTS)("hostile values on %s", (dialect) => {
  let stored: TestTally;
  afterEach(() => stored?.dispose());

  it("control characters are stripped or stay escaped, and the flush after them still writes", async () => {
    stored = await createTestTally(dialect, { flushIntervalMs: 60_000 });
    const { tally } = stored;
    const { accountId } = await tally.accounts.create();
    const site = await tally.websites.create(accountId, { domain: "hostile.example" });
    const hit = { ip: "203.0.113.7", userAgent: UA, timestamp: at };
    await tally.collect({ ...hit, url: "https://hostile.example/a%00b?utm_campaign=spr%00ing&q=x%00y" });
    await tally.collect({ ...hit, url: "https://hostile.example/x", event: "Sign\u0000up\u0007", props: { "pl\u0000an": "pro\u0000" } });
    await tally.collect({ ...hit, url: "https://hostile.example/'; drop table rollups; --" });
    // A lone UTF-16 surrogate (a string cut inside an emoji): stored as U+FFFD, as UTF-8 writes it.
    await tally.collect({ ...hit, url: "https://hostile.example/x", event: "Cut \ud83c", props: { plan: "pro \udf89" } });
    // A long value cut to 200 characters inside an emoji's pair.
    await tally.collect({ ...hit, url: "https://hostile.example/x", event: "Long", props: { note: `${"a".repeat(199)}🎉` } });
    await expect(tally.collect({ ...hit, url: "https://hostile.example/", event: "\u0000\u0001" })).rejects.toMatchObject({
      errors: { n: [expect.any(String)] },
    });
    await tally.flush();
    await tally.collect({ ...hit, url: "https://hostile.example/after", timestamp: at + 1000 });
    await tally.flush();

    const values = async (name: string) =>
      (await tally.stats.query(accountId, site.id, { name, from: DAY, to: DAY, per_page: 100, sort_by: "value", sort: "asc" })).data;
    expect(await values("page")).toEqual([
      { value: "/'; drop table rollups; --", count: 1 },
      // The campaign is read into its own field (never part of the page); a kept parameter keeps its escape.
      { value: "/a%00b?q=x%00y", count: 1 },
      { value: "/after", count: 1 },
    ]);
    expect(await values("campaign")).toEqual([{ value: "spring", count: 1 }]);
    expect(await values("event")).toEqual([
      { value: "Cut \ufffd", count: 1 },
      { value: "Long", count: 1 },
      { value: "Signup", count: 1 },
    ]);
    const plans = await tally.stats.query(accountId, site.id, {
      name: "event_property",
      event: "Cut \ufffd",
      property: "plan",
      from: DAY,
      to: DAY,
    });
    expect(plans.data).toEqual([{ value: "pro \ufffd", count: 1 }]);
    const notes = await tally.stats.query(accountId, site.id, {
      name: "event_property",
      event: "Long",
      property: "note",
      from: DAY,
      to: DAY,
    });
    expect(notes.data).toEqual([{ value: `${"a".repeat(199)}\ufffd`, count: 1 }]);
    expect(await values("pageviews")).toEqual([{ value: DAY, count: 3 }]);
  });
});
