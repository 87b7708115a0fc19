// Revenue of events, on both databases and with ClickHouse beside SQLite: what tally.collect, tally.record and Plausible's
// POST /api/event send is stored beside the event's hit, exactly (ten-thousandths of the
// currency), per currency; a bad amount or currency, or revenue on a pageview, is refused and
// nothing of that hit is kept.
import { ValidationError } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { clickhouseCell } from "../support/matrix.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const AT = Date.parse("2026-03-10T12:00:00Z");

/** Both databases, and SQLite with ClickHouse (chDB) beside it: the hits written to ClickHouse. */
const CELLS = [...DIALECTS.map((dialect) => ({ name: dialect, dialect, clickhouse: false })), clickhouseCell];

describe.each(CELLS)("revenue of events ($name)", ({ dialect, clickhouse }) => {
  let stored: TestTally;
  let served: Served;

  beforeAll(async () => {
    stored = await createTestTally(dialect, {}, { clickhouse });
    const { accountId } = await stored.tally.accounts.create();
    await stored.tally.websites.create(accountId, { domain: "shop.test" });
    served = await transports[0]!.serve(stored.tally);
  });
  afterAll(async () => {
    await served?.close();
    await stored?.dispose();
  });

  /** What is stored: each row's event name, amount (ten-thousandths) and currency, in time order. */
  const revenues = () =>
    clickhouse
      ? stored.clickhouseRows!<{ event: string; amount: string | number; currency: string }>(
          `SELECT event, revenue_amount AS amount, revenue_currency AS currency FROM tally_hits
           WHERE revenue_currency != '' ORDER BY timestamp, arrival`,
        )
      : stored.sql<{ event: string; amount: string | number; currency: string }>(
          `select d.value as event, r.amount, r.currency from event_revenue r
             join dimensions d on d.id = r.event
           order by r.time, r.seq`,
        );
  /** How many hits are stored. */
  const hitCount = async () =>
    Number(
      clickhouse
        ? (await stored.clickhouseRows!<{ n: string }>("SELECT count() AS n FROM tally_hits WHERE kind != 'engagement'"))[0]!.n
        : (await stored.sql<{ n: number }>("select count(*) as n from hits"))[0]!.n,
    );

  it("keeps an event's amount and currency exactly, from collect, record and Plausible's /api/event", async () => {
    const visit = { ip: "198.51.100.7", userAgent: CHROME };
    await stored.tally.collect({ url: "https://shop.test/", ...visit, timestamp: AT });
    await stored.tally.collect({
      url: "https://shop.test/checkout",
      ...visit,
      event: "Purchase",
      revenue: { amount: 29.99, currency: "EUR" },
      timestamp: AT + 1000,
    });
    await stored.tally.record("Purchase", {
      url: "https://shop.test/checkout",
      ...visit,
      revenue: { amount: "1234567.8912", currency: "usd" },
      timestamp: AT + 2000,
    });
    const plausible = await served.fetch("/api/event", {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": CHROME },
      body: JSON.stringify({ n: "Upgrade", u: "https://shop.test/plans", d: "shop.test", $: { amount: "0.10", currency: "JPY" } }),
    });
    expect(plausible.status).toBe(202);
    const documented = await served.fetch("/api/event", {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": CHROME },
      body: JSON.stringify({
        name: "Upgrade",
        url: "https://shop.test/plans",
        domain: "shop.test",
        revenue: { amount: 5, currency: "EUR" },
      }),
    });
    expect(documented.status).toBe(202);
    // Tally's own /collect body, as its extension script sends it.
    const collected = await served.fetch("/collect", {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": CHROME },
      body: JSON.stringify({ u: "https://shop.test/donate", n: "Donation", $: { amount: 3, currency: "CHF" } }),
    });
    expect(collected.status).toBe(202);
    await stored.tally.flush();
    const rows = (await revenues()).map((row) => ({ ...row, amount: Number(row.amount) }));
    expect(rows.slice(0, 2)).toEqual([
      { event: "Purchase", amount: 299_900, currency: "EUR" },
      { event: "Purchase", amount: 12_345_678_912, currency: "USD" },
    ]);
    // The hits sent over HTTP happen now, after March: in any order within their second.
    expect(rows.slice(2).sort((a, b) => a.amount - b.amount)).toEqual([
      { event: "Upgrade", amount: 1_000, currency: "JPY" },
      { event: "Donation", amount: 30_000, currency: "CHF" },
      { event: "Upgrade", amount: 50_000, currency: "EUR" },
    ]);
  });

  it("refuses a bad amount or currency, and revenue on a pageview, keeping nothing of the hit", async () => {
    const before = await hitCount();
    const visit = { url: "https://shop.test/checkout", ip: "198.51.100.8", userAgent: CHROME, timestamp: AT };
    const bad = [
      { event: "Purchase", revenue: { amount: 10, currency: "XYZ" } },
      { event: "Purchase", revenue: { amount: "ten", currency: "EUR" } },
      { event: "Purchase", revenue: { amount: "1.23456", currency: "EUR" } },
      { event: "Purchase", revenue: { amount: 1e13, currency: "EUR" } },
      { event: "Purchase", revenue: "29.99 EUR" },
      { revenue: { amount: 10, currency: "EUR" } },
    ];
    for (const hit of bad) {
      const refused = await stored.tally.collect({ ...visit, ...hit } as never).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused, JSON.stringify(hit)).toBeInstanceOf(ValidationError);
      expect(Object.keys((refused as ValidationError).errors)).toEqual(["revenue"]);
    }
    const plausible = await served.fetch("/api/event", {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": CHROME },
      body: JSON.stringify({ n: "Purchase", u: "https://shop.test/", $: { amount: 3, currency: "EURO" } }),
    });
    expect(plausible.status).toBe(400);
    expect(JSON.stringify(await plausible.json())).toContain("ISO 4217");
    await stored.tally.flush();
    expect(await hitCount()).toEqual(before);
    expect(await revenues()).toHaveLength(5);
  });
});
