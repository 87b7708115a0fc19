/**
 * With ClickHouse configured the events live in ClickHouse only: after collecting, the
 * database holds no visitor rows, visits, hits, properties, signals or rollups, and every
 * reader answers from ClickHouse what a Tally without ClickHouse, fed the same hits, answers
 * from its database: statistics and totals (the `all` period from the first day with hits),
 * the Stats API v2, realtime, e-mail reports, alert rules and exports. A conversion recorded in the
 * app's transaction is counted once, its outbox row gone.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { strFromU8, unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTally, type Tally } from "@tally-analytics/core";
import { runSql } from "../support/databases.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
/** The database's tables of events: each is empty with ClickHouse configured. */
const EVENT_TABLES = [
  "visitors",
  "visits",
  "hits",
  "event_props",
  "event_revenue",
  "page_engagement",
  "rollups",
  "rollup_watermarks",
  "dimensions",
  "day_versions",
  "day_blocks",
];
const STATISTICS = [
  "pageviews",
  "visitors",
  "visits",
  "bounce_rate",
  "visit_duration",
  "page",
  "landing_page",
  "referrer",
  "browser",
  "event",
];

interface Installation {
  tally: Tally;
  database: string;
  accountId: number;
  websiteId: number;
  hook: WebhookReceiver;
}

describe("events in ClickHouse only", () => {
  const folder = mkdtempSync(join(tmpdir(), "tally-clickhouse-only-"));
  const now = Date.now();
  let withClickhouse: Installation;
  let alone: Installation;

  /** A Tally (with ClickHouse or not) with one website, its alert rules sending to a receiver of its own, fed the same hits. */
  async function install(name: string, clickhouse: boolean): Promise<Installation> {
    const database = `file:${join(folder, `${name}.sqlite`)}`;
    const tally = createTally({
      database,
      ...(clickhouse ? { clickhouse: `chdb:${join(folder, `${name}-clickhouse`)}` } : {}),
      retentionIntervalMs: 0,
      alerts: { intervalMs: 0 },
      reportIntervalMs: 0,
    });
    const { accountId } = await tally.accounts.create({ name });
    const websiteId = (await tally.websites.create(accountId, { domain: "shop.test", timezone: "Europe/Berlin", email: 1 })).id;
    const hook = await startWebhookReceiver();
    for (const rule of [
      { kind: "visitors", threshold: 2 },
      { kind: "goal", goal: "event:Signup" },
      { kind: "goal", goal: "/pricing*" },
    ])
      await tally.alerts.create(accountId, websiteId, { ...rule, webhook_url: hook.url } as never);
    const visit = (ip: string, userAgent: string, referrer: string, at: number, pages: string[]) =>
      pages.map((page, index) => ({ url: `https://shop.test${page}`, ip, userAgent, referrer, timestamp: at + index * 60_000 }));
    const hits = [
      ...visit("203.0.113.1", FIREFOX, "https://news.example/", Date.UTC(2026, 2, 1, 9), ["/", "/pricing", "/signup"]),
      ...visit("203.0.113.2", CHROME, "", Date.UTC(2026, 2, 1, 22, 45), ["/blog/a", "/"]),
      ...visit("203.0.113.1", FIREFOX, "https://search.example/", Date.UTC(2026, 2, 2, 8), ["/pricing"]),
      ...visit("203.0.113.3", CHROME, "", Date.UTC(2026, 2, 3, 12), ["/"]),
      ...visit("203.0.113.4", FIREFOX, "https://news.example/", now - 120_000, ["/", "/pricing/team"]),
      ...visit("203.0.113.5", CHROME, "", now - 60_000, ["/blog/b"]),
    ];
    for (const hit of hits) await tally.collect(hit);
    await tally.collect({
      url: "https://shop.test/signup",
      ip: "203.0.113.1",
      userAgent: FIREFOX,
      event: "Signup",
      timestamp: Date.UTC(2026, 2, 1, 9, 5),
    });
    await tally.collect({
      url: "https://shop.test/signup",
      ip: "203.0.113.4",
      userAgent: FIREFOX,
      event: "Signup",
      timestamp: now - 30_000,
    });
    await tally.flush();
    return { tally, database, accountId, websiteId, hook };
  }

  beforeAll(async () => {
    withClickhouse = await install("with-clickhouse", true);
    alone = await install("alone", false);
  });
  afterAll(async () => {
    for (const installation of [withClickhouse, alone]) {
      await installation?.tally.close();
      await installation?.hook.close();
    }
    rmSync(folder, { recursive: true, force: true });
  });

  /** The same call on both: what ClickHouse answers and what the database alone answers. */
  const both = <T>(call: (installation: Installation) => Promise<T>) => Promise.all([call(withClickhouse), call(alone)]);

  it("keeps no events in the database", async () => {
    for (const table of EVENT_TABLES) {
      const [withRows, aloneRows] = await both((installation) =>
        runSql<{ n: number | string }>("sqlite", installation.database, `select count(*) as n from ${table}`),
      );
      expect(Number(withRows[0]!.n), table).toBe(0);
      if (["hits", "visits", "rollups"].includes(table)) expect(Number(aloneRows[0]!.n), table).toBeGreaterThan(0);
    }
  });

  it("answers every statistic, the totals and the all-time period from ClickHouse", async () => {
    for (const name of STATISTICS) {
      const [clickhouse, database] = await both(({ tally, accountId, websiteId }) =>
        tally.stats.query(accountId, websiteId, { name, from: "2026-03-01", to: "2026-03-03" }),
      );
      expect(clickhouse, name).toEqual(database);
      expect(database.data.length, name).toBeGreaterThan(0);
    }
    const [totals, expectedTotals] = await both(({ tally, accountId, websiteId }) =>
      tally.stats.totals(accountId, websiteId, { from: "2026-03-01", to: "2026-03-03" }),
    );
    expect(totals).toEqual(expectedTotals);
    const [all, expectedAll] = await both(({ tally, accountId, websiteId }) =>
      tally.stats.query(accountId, websiteId, { name: "pageviews", from: "2000-01-01", to: "2026-12-31" }),
    );
    expect(all).toEqual(expectedAll);
    // Longer than the longest range: it starts at the first day with hits.
    expect(all.startsAt).toBe("2026-03-01");
  });

  it("answers the Stats API v2 and realtime from ClickHouse", async () => {
    const body = {
      site_id: "shop.test",
      metrics: ["visitors", "pageviews", "bounce_rate"],
      date_range: ["2026-03-01", "2026-03-03"],
      dimensions: ["visit:source"],
    };
    const [v2, expectedV2] = await both(({ tally, accountId }) => tally.stats.plausible(accountId, body));
    expect(v2).toEqual(expectedV2);
    const [realtime, expectedRealtime] = await both(({ tally, accountId, websiteId }) => tally.stats.realtime(accountId, websiteId));
    expect(realtime).toEqual(expectedRealtime);
    expect(realtime.visitors).toBe(2);
  });

  it("builds the e-mail report from ClickHouse", async () => {
    const options = { period: "week" as const, now: Date.UTC(2026, 2, 9, 12) };
    const [report, expected] = await both(({ tally, accountId }) => tally.reports.build(accountId, options));
    expect(report!.websites).toEqual(expected!.websites);
    expect(report!.text).toEqual(expected!.text);
    expect(expected!.text).toContain("shop.test");
  });

  it("checks alert rules on ClickHouse's hits", async () => {
    const [summary, expectedSummary] = await both(({ tally }) => tally.alerts.runDue(now + 60_000));
    expect(summary).toEqual(expectedSummary);
    // The visitors of the last hour (2) reach the threshold; a goal's first check starts its span.
    expect(expectedSummary.fired).toBe(1);
    const [sent, expectedSent] = await both(async ({ hook }) =>
      (await hook.waitFor(1)).map(({ body }) => JSON.parse(body) as { alert: { kind: string; goal: string }; value: number; text: string }),
    );
    const figures = (payloads: typeof sent) =>
      payloads
        .map(({ alert, value, text }) => ({ kind: alert.kind, goal: alert.goal, value, text }))
        .sort((a, b) => a.text.localeCompare(b.text));
    expect(figures(sent)).toEqual(figures(expectedSent));
    expect(figures(expectedSent)).toMatchObject([{ kind: "visitors", value: 2 }]);
  });

  /** An export's files by name, each as its CSV text. */
  async function exported({ tally, websiteId }: Installation, format: "csv" | "plausible"): Promise<Record<string, string>> {
    const { body } = await tally.export(websiteId, { format, from: "2026-03-01", to: "2026-03-03" });
    const zip = unzipSync(new Uint8Array(await new Response(body).arrayBuffer()));
    return Object.fromEntries(Object.entries(zip).map(([name, bytes]) => [name, strFromU8(bytes)]));
  }

  it("exports Tally's files from ClickHouse, and Plausible's with the counts the rollups would hold", async () => {
    const [csv, expectedCsv] = await both((installation) => exported(installation, "csv"));
    expect(csv).toEqual(expectedCsv);
    expect(expectedCsv["page.csv"]).toContain('"2026-03-01","/pricing",1');
    const [plausible, expectedPlausible] = await both((installation) => exported(installation, "plausible"));
    expect(Object.keys(plausible)).toEqual(Object.keys(expectedPlausible));
    /** A file's rows by their key columns and the counts the rollups hold (ClickHouse keeps no visits table for the rest). */
    const counted = (files: Record<string, string>, table: string, columns: readonly number[]) => {
      const [, ...lines] = files[Object.keys(files).find((name) => name.startsWith(`imported_${table}_`))!]!.trim().split("\n");
      return lines.map((line) => columns.map((column) => line.split(",")[column]).join(","));
    };
    for (const [table, columns] of [
      ["visitors", [0, 1, 2, 3, 4, 5]],
      ["pages", [0, 1, 2, 5]],
      ["sources", [0, 1, 2, 3, 4, 5, 6, 7, 10]],
      ["custom_events", [0, 1, 4, 5]],
      ["browsers", [0, 1, 3]],
    ] as const)
      expect(counted(plausible, table, columns), table).toEqual(counted(expectedPlausible, table, columns));
    expect(counted(expectedPlausible, "visitors", [0, 1, 2])).toContain('"2026-03-01",2,5');
  });

  it("counts a conversion of the app's transaction once, and deletes its outbox row", async () => {
    const today = new Date(now).toISOString().slice(0, 10);
    const purchases = await both(async ({ tally, database, accountId, websiteId }) => {
      const app = new Database(database.replace(/^file:/, ""));
      app.pragma("busy_timeout = 5000");
      app.exec("begin");
      await tally.record("Purchase", { url: "https://shop.test/checkout", ip: "203.0.113.9", userAgent: CHROME, trx: app });
      app.exec("commit");
      app.close();
      // Each flush relays the outbox twice: a row written already is not counted again.
      await tally.flush();
      await tally.flush();
      const outbox = await runSql("sqlite", database, "select id from tally_outbox");
      const events = await tally.stats.query(accountId, websiteId, { name: "event", from: today, to: today });
      return { outbox, events: events.data };
    });
    expect(purchases[0]).toEqual(purchases[1]);
    expect(purchases[0].outbox).toEqual([]);
    expect(purchases[0].events).toContainEqual(expect.objectContaining({ value: "Purchase", count: 1 }));
    const [hits] = await both(({ database }) => runSql<{ n: number }>("sqlite", database, "select count(*) as n from hits"));
    expect(Number(hits[0]!.n)).toBe(0);
  });
});
