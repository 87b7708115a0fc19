/**
 * The daily budget of new values (docs/statistics.md, "Limits on distinct values") is
 * spent per source: anonymous clients cannot spend the app's server's, one client can
 * spend only a tenth of the clients', and an engagement signal's page spends its client's
 * share as a pageview's would. So junk events sent to /collect cannot push a real new event into
 * `(other)`. Real HTTP /collect, on SQLite and PostgreSQL.
 */
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const nodeHttp = transports.find((transport) => transport.name === "node:http")!;

describe.each(DIALECTS)("new values per source on %s", (dialect) => {
  let stored: TestTally;
  let tally: Tally;
  let served: Served;
  let websiteId = 0;
  const today = new Date().toISOString().slice(0, 10);

  /** An anonymous hit through /collect, from `ip` (one proxy hop is trusted). */
  const hit = (ip: string, body: Record<string, unknown>) =>
    served.fetch("/collect", {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": CHROME, "x-forwarded-for": ip },
      body: JSON.stringify({ u: "https://budget.example/", ...body }),
    });
  const events = async () => {
    await tally.flush();
    const page = await tally.stats.queryWebsite(websiteId, { name: "event", from: today, to: today, per_page: 100, search: "" });
    return Object.fromEntries(page.data.map((row) => [row.value, row.count]));
  };

  beforeAll(async () => {
    stored = await createTestTally(dialect, { trustProxy: true, flushIntervalMs: 60_000 });
    tally = stored.tally;
    const { accountId } = await tally.accounts.create({ name: "acme" });
    websiteId = (await tally.websites.create(accountId, { domain: "budget.example" })).id;
    served = await nodeHttp.serve(tally);
  });
  afterAll(async () => {
    await served.close();
    await stored.dispose();
  });

  it("lets one client create a tenth of a kind's new values: junk from it cannot push anyone's real new event into (other)", async () => {
    for (let i = 0; i < 200; i++) expect((await hit("198.51.100.66", { n: `junk ${i}` })).status).toBe(202);
    let counted = await events();
    expect(Object.keys(counted).filter((name) => name.startsWith("junk "))).toHaveLength(20);
    expect(counted["(other)"]).toBe(180);
    expect((await hit("203.0.113.5", { n: "Newsletter" })).status).toBe(202);
    await tally.record("Signup", { url: "https://budget.example/welcome", ip: "203.0.113.6", userAgent: CHROME });
    counted = await events();
    expect(counted).toMatchObject({ Newsletter: 1, Signup: 1, "(other)": 180 });
  });

  it("gives the app's server a budget anonymous clients cannot spend", async () => {
    // Ten more clients spend the rest of the clients' 200 new event names of the day.
    for (let client = 0; client < 10; client++)
      for (let i = 0; i < 20; i++) await hit(`192.0.2.${client + 1}`, { n: `more junk ${client}-${i}` });
    await tally.flush();
    expect((await hit("203.0.113.7", { n: "Too late" })).status).toBe(202);
    await tally.record("Purchase", { url: "https://budget.example/paid", ip: "203.0.113.8", userAgent: CHROME });
    const counted = await events();
    expect(counted["Too late"]).toBeUndefined();
    expect(counted.Purchase).toBe(1);
    const [byServer] = await stored.sql<{ n: number | string }>(
      `select count(*) as n from dimensions where website_id = ${websiteId} and kind = 16 and created_by = 1`,
    );
    expect(Number(byServer!.n)).toBe(2);
  });

  it("gives no client a share of the kinds Tally names itself: one address arriving by eight channels is counted under each", async () => {
    const arrivals = [
      {},
      { r: "https://www.google.com/" },
      { r: "https://www.facebook.com/" },
      { r: "https://www.youtube.com/" },
      { u: "https://budget.example/?utm_medium=email" },
      { u: "https://budget.example/?utm_medium=sms" },
      { u: "https://budget.example/?utm_source=google&utm_medium=cpc" },
      { u: "https://budget.example/?utm_medium=affiliate" },
    ];
    for (const arrival of arrivals) expect((await hit("198.51.100.68", arrival)).status).toBe(202);
    await tally.flush();
    const channels = await stored.sql<{ value: string }>(`select value from dimensions where website_id = ${websiteId} and kind = 20`);
    expect(channels.map((row) => row.value).sort()).toEqual(
      ["Affiliates", "Direct", "Email", "Organic Search", "Organic Social", "Organic Video", "Paid Search", "SMS"].sort(),
    );
  });

  it("an engagement signal's page spends its client's share of the pages, as a pageview's would", async () => {
    // A page's share for one client is a tenth of 5,000 new pages a day.
    for (let i = 0; i < 501; i++)
      expect((await hit("198.51.100.67", { u: `https://budget.example/signal-${i}`, e: 5000 })).status).toBe(202);
    await tally.flush();
    const pages = await stored.sql<{ value: string }>(`select value from dimensions where website_id = ${websiteId} and kind = 1`);
    const values = pages.map((row) => row.value);
    expect(values.filter((value) => value.startsWith("/signal-"))).toHaveLength(500);
    expect(values).toContain("(other)");
  });
});
