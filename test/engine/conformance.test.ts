/**
 * One conformance suite for every backend (packages/core/src/backends/): the same hits
 * must store the same rows and every way of reading must give the same answers. A new
 * backend is one more line in BACKENDS. Rows are compared by what they mean (dictionary
 * ids replaced by their values, visits by their first hit), since ids are the database's.
 * With ClickHouse beside the database (embedded through chDB, one folder for this file),
 * the events live in ClickHouse only: the database stores none of these rows, and ClickHouse
 * answers what it counts (docs/clickhouse.md) the same.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTally, type DatabaseOption, type HitInput } from "@tally-analytics/core";
import { createTestDatabase, DIALECTS, type DialectName, type TestDatabase } from "../support/databases.js";

interface BackendCase {
  name: string;
  dialect: DialectName;
  /** The events go to ClickHouse, not to the database's tables. */
  eventsInClickhouse?: boolean;
  /** The `database` option (and `clickhouse`, when the hits go there too), and what to release after. */
  open(): Promise<{
    option: DatabaseOption;
    clickhouse?: string;
    sql(text: string): Promise<Record<string, unknown>[]>;
    dispose(): Promise<void>;
  }>;
}

const folder = mkdtempSync(join(tmpdir(), "tally-conformance-"));
let files = 0;

/** A SQLite file, or memory: the `database` option as a URL, a handle or a Kysely. */
function sqliteCase(name: string, wrap: "url" | "memory" | "kysely"): BackendCase {
  return {
    name,
    dialect: "sqlite",
    async open() {
      const path = wrap === "memory" ? ":memory:" : join(folder, `db-${++files}.sqlite`);
      const handle = new Database(path);
      const option: DatabaseOption =
        wrap === "url"
          ? `file:${path}`
          : wrap === "memory"
            ? handle
            : new Kysely({ dialect: new SqliteDialect({ database: new Database(path) }) });
      return {
        option,
        sql: async (text) => handle.prepare(text).all() as Record<string, unknown>[],
        dispose: async () => {
          handle.close();
          if (option instanceof Kysely) await option.destroy();
        },
      };
    },
  };
}

/** A PostgreSQL database: the `database` option as a URL or a Kysely on a pool. */
function postgresCase(name: string, wrap: "url" | "kysely"): BackendCase {
  return {
    name,
    dialect: "postgres",
    async open() {
      const database: TestDatabase = await createTestDatabase("postgres");
      const pool = new pg.Pool({ connectionString: database.url });
      const kysely =
        wrap === "kysely" ? new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url }) }) }) : null;
      return {
        option: kysely ?? database.url,
        sql: async (text) => (await pool.query(text)).rows,
        async dispose() {
          await kysely?.destroy();
          await pool.end();
          await database.dispose();
        },
      };
    },
  };
}

/** A SQLite file with every hit in ClickHouse, embedded in this process (one chDB a process: one such case). */
function clickhouseCase(name: string): BackendCase {
  const sqlite = sqliteCase(name, "url");
  return {
    ...sqlite,
    eventsInClickhouse: true,
    async open() {
      return { ...(await sqlite.open()), clickhouse: `chdb:${join(folder, "clickhouse")}` };
    },
  };
}

/** Every backend and way in: one line each. */
const BACKENDS: BackendCase[] = [
  sqliteCase("SQLite file (writer and reader threads)", "url"),
  sqliteCase("SQLite in memory (host thread)", "memory"),
  sqliteCase("SQLite through an app's Kysely", "kysely"),
  postgresCase("PostgreSQL (Tally's pool)", "url"),
  postgresCase("PostgreSQL through an app's Kysely", "kysely"),
  clickhouseCase("SQLite with the hits in ClickHouse (chDB)"),
].filter((backend) => DIALECTS.includes(backend.dialect));

const DAY = Date.parse("2026-03-10T00:00:00Z");
const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
];
const PAGES = ["/", "/pricing", "/docs/start", "/blog/launch", "/about"];
const REFERRERS = ["", "", "https://www.google.com/", "https://news.ycombinator.com/item?id=1", "https://t.co/x"];

/** The same hits for every backend: three days, visits across midnight, events with properties, engagement. */
function hits(): HitInput[] {
  const out: HitInput[] = [];
  let seed = 7;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let i = 0; i < 600; i++) {
    const person = next(40);
    const timestamp = DAY + i * 430_000 + next(60_000);
    const base = {
      ip: `203.0.113.${person}`,
      userAgent: AGENTS[person % AGENTS.length]!,
      timestamp,
      language: ["en-US", "de-DE"][person % 2]!,
      screen: "1920x1080",
    };
    const page = PAGES[next(PAGES.length)]!;
    const utm = next(6) === 0 ? "?utm_source=newsletter&utm_medium=email&utm_campaign=spring" : "";
    out.push({ ...base, url: `https://conform.example${page}${utm}`, referrer: REFERRERS[next(REFERRERS.length)]! });
    if (next(4) === 0)
      out.push({
        ...base,
        timestamp: timestamp + 5_000,
        url: `https://conform.example${page}`,
        event: "Signup",
        props: { plan: ["free", "pro"][next(2)]! },
      });
    if (next(3) === 0)
      out.push({ ...base, timestamp: timestamp + 9_000, url: `https://conform.example${page}`, engagedMs: 4_000 + next(20_000) });
  }
  return out;
}

/** Every stored row of the engine's tables, by meaning: ids of values and visits replaced, sorted. */
async function storedRows(sql: (text: string) => Promise<Record<string, unknown>[]>): Promise<Record<string, string[]>> {
  const value = `(select d.value from dimensions d where d.id = `;
  const visitKey = (alias: string) =>
    `(select cast(v.start as text) || ' ' || ${value}v.entry_page) from visits v where v.id = ${alias}.visit_id)`;
  const queries: Record<string, string> = {
    visits: `select v.start, v.duration, v.pageviews, v.events, v.engaged, ${value}v.entry_page) as entry, ${value}v.exit_page) as exit,
      ${value}v.referrer) as referrer, ${value}v.utm_source) as utm_source, ${value}v.browser) as browser, ${value}v.os) as os,
      ${value}v.device) as device, ${value}v.language) as language, ${value}v.resolution) as resolution,
      case when v.visitor = 0 then 'first' else 'later' end as run from visits v`,
    hits: `select h.time, h.seq, ${value}h.page) as page, ${value}h.event) as event, ${visitKey("h")} as visit from hits h`,
    event_props: `select p.time, p.seq, ${value}p.name) as name, ${value}p.value) as value, ${visitKey("p")} as visit from event_props p`,
    rollups: "select name, period, value, count from rollups where count <> 0",
    dimensions: "select kind, value from dimensions",
    day_versions: "select day, last_hit from day_versions",
  };
  const out: Record<string, string[]> = {};
  for (const [table, text] of Object.entries(queries)) {
    out[table] = (await sql(text))
      .map((row) => JSON.stringify(Object.values(row).map((cell) => (cell === null ? null : String(cell)))))
      .sort();
  }
  return out;
}

const QUERIES = [
  { name: "visitors" },
  { name: "page" },
  { name: "referrer" },
  { name: "browser", filter: "page:is:/pricing" },
  { name: "landing_page", filter: ["device:is:Mobile", "referrer:contains:google"] },
  { name: "event_property", event: "Signup", property: "plan" },
  { name: "visit_duration", filter: "language:is:de-DE" },
  { name: "campaign" },
  { name: "page", filter: "prop:plan:is:pro" },
];

interface Answers {
  rows: Record<string, string[]>;
  answers: unknown[];
  blocks: unknown[];
}

async function answersOf(backend: BackendCase): Promise<Answers> {
  const opened = await backend.open();
  const tally = createTally({
    database: opened.option,
    ...(opened.clickhouse === undefined ? {} : { clickhouse: opened.clickhouse }),
    dayBlocksIntervalMs: 0,
    retentionIntervalMs: 0,
    reportIntervalMs: 0,
  });
  try {
    const { accountId } = await tally.accounts.create();
    const site = await tally.websites.create(accountId, { domain: "conform.example", timezone: "Europe/Berlin" });
    for (const hit of hits()) await tally.collect(hit);
    await tally.flush();
    const range = { from: "2026-03-09", to: "2026-03-14", per_page: 100 };
    const read = async () => [
      await tally.stats.totals(accountId, site.id, { from: range.from, to: range.to }),
      await tally.stats.totals(accountId, site.id, {
        from: range.from,
        to: range.to,
        filter: "page:is:/docs/start",
        compare: "previous_period",
      }),
      ...(await Promise.all(QUERIES.map((query) => tally.stats.query(accountId, site.id, { ...range, ...query })))),
    ];
    const answers = await read();
    const rows = await storedRows(opened.sql);
    await tally.buildDayBlocks();
    return { rows, answers, blocks: await read() };
  } finally {
    await tally.close();
    await opened.dispose();
  }
}

describe("every backend stores the same rows and gives the same answers", () => {
  const results = new Map<string, Answers>();
  beforeAll(async () => {
    for (const backend of BACKENDS) results.set(backend.name, await answersOf(backend));
  }, 240_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("the hits were counted (the comparison is not of empty answers)", () => {
    const first = results.get(BACKENDS[0]!.name)!;
    expect(first.rows.visits!.length).toBeGreaterThan(100);
    expect(first.rows.event_props!.length).toBeGreaterThan(50);
    expect(JSON.stringify(first.answers)).toContain("/pricing");
  });

  it.each(BACKENDS.slice(1))(
    "$name stores what the first backend stores (or, with ClickHouse, none of it) and answers the same",
    (backend) => {
      const reference = results.get(BACKENDS[0]!.name)!;
      const other = results.get(backend.name)!;
      for (const table of Object.keys(reference.rows))
        expect(other.rows[table], table).toEqual(backend.eventsInClickhouse ? [] : reference.rows[table]);
      expect(other.answers).toEqual(reference.answers);
    },
  );

  it.each(BACKENDS.map((backend) => backend.name))("%s answers the same from day blocks as from rows", (name) => {
    const { answers, blocks } = results.get(name)!;
    expect(blocks).toEqual(answers);
  });
});
