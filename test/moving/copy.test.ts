import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COPIED_TABLES, copyDatabase, createTally, STAT_NAMES, type Tally } from "@tally-analytics/core/internal";
import { createHandler } from "@tally-analytics/server";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GEOIP_FIXTURE, generateTraffic } from "../dashboard/demo-data.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../support/databases.js";
import { statName } from "../support/stat-query.js";
import { fixtureDirectory } from "./support.js";

// The migrator's own tables, tally_meta (each database's own id) and the sign-in limits' windows: never copied.
const MIGRATION_TABLES = new Set(["tally_migrations", "tally_migrations_lock", "tally_meta", "attempts"]);

function sqliteTables(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const names = (
      db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as {
        name: string;
      }[]
    ).map((row) => row.name);
    const ordered = (name: string) => {
      const columns = (db.prepare(`select name from pragma_table_info('${name}')`).all() as { name: string }[]).map(
        (column) => column.name,
      );
      return db.prepare(`select * from ${name} order by ${columns.join(", ")}`).all();
    };
    return Object.fromEntries(names.filter((name) => !MIGRATION_TABLES.has(name)).map((name) => [name, ordered(name)]));
  } finally {
    db.close();
  }
}

async function postgresCounts(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1",
    );
    const counts: Record<string, number> = {};
    for (const { table_name: name } of rows as { table_name: string }[]) {
      if (!MIGRATION_TABLES.has(name)) counts[name] = Number((await client.query(`select count(*) as n from ${name}`)).rows[0].n);
    }
    return counts;
  } finally {
    await client.end();
  }
}

/** Every answer of the API a key can ask for, as JSON text: websites, each website's statistics (plain, filtered, compared), totals, realtime. */
async function everyAnswer(tally: Tally, key: string, websiteIds: readonly number[]): Promise<Record<string, unknown>> {
  const handler = createHandler(tally);
  const answers: Record<string, unknown> = {};
  const ask = async (path: string) => {
    const response = await handler(new Request(`http://tally.test${path}`, { headers: { authorization: `Bearer ${key}` } }));
    answers[path] = { status: response.status, body: await response.json() };
  };
  await ask("/api/v1/account");
  await ask("/api/v1/websites?per_page=100");
  for (const id of websiteIds) {
    await ask(`/api/v1/websites/${id}`);
    await ask(`/api/v1/realtime/${id}`);
    for (const range of ["from=2025-01-01&to=2026-12-31", "from=2026-01-01&to=2026-03-31&compare=previous_period"]) {
      await ask(`/api/v1/stats/${id}/totals?${range}`);
      await ask(`/api/v1/stats/${id}/totals?${range}&filter=device:is:mobile`);
      for (const name of STAT_NAMES) {
        await ask(`/api/v1/stats/${id}?${statName(name)}&${range}&per_page=100`);
        await ask(`/api/v1/stats/${id}?${statName(name)}&${range}&per_page=100&filter=page:contains:blog`);
      }
    }
  }
  return answers;
}

describe.runIf(DIALECTS.includes("postgres"))("tally copy: SQLite → PostgreSQL → SQLite", () => {
  const directory = mkdtempSync(join(tmpdir(), "tally-copy-"));
  const source = `file:${join(directory, "source.sqlite")}`;
  const back = `file:${join(directory, "back.sqlite")}`;
  const files = fixtureDirectory();
  let postgres: TestDatabase;
  let key = "";
  let websiteIds: number[] = [];

  beforeAll(async () => {
    postgres = await createTestDatabase("postgres");
    const tally = createTally({ database: source, geoip: GEOIP_FIXTURE });
    const alice = await tally.accounts.create({ name: "alice" });
    key = alice.key;
    await tally.accounts.createKey(alice.accountId, { name: "second" });
    await tally.accounts.create({ name: "bob" });
    const shop = await tally.websites.create(alice.accountId, {
      domain: "shop.example",
      timezone: "America/New_York",
      privacy: 2,
      password: "s3cret",
      exclude_ips: "10.0.0.0/8",
      exclude_params: "fbclid",
    });
    const blog = await tally.websites.create(alice.accountId, { domain: "blog.example", timezone: "Asia/Kolkata", retention_days: 3000 });
    websiteIds = [shop.id, blog.id];
    await tally.funnels.create(alice.accountId, shop.id, { name: "Checkout", steps: ["page:/", "page:/pricing*", "event:Signup"] });
    const now = Date.now();
    await generateTraffic(tally, { domain: "shop.example", days: 40, sessionsPerDay: 10, now, seed: 3 });
    await generateTraffic(tally, { domain: "blog.example", days: 20, sessionsPerDay: 6, now, seed: 4 });
    const gc = files.write(
      "gc.csv",
      "2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date\n/old,Old,false,,Firefox 100,Linux,s,0,,,,NL,true,2024-06-01T10:00:00Z\n",
    );
    await tally.import(gc, { websiteId: blog.id });
    expect(await tally.buildDayBlocks()).toBeGreaterThan(40);
    await tally.close();
  });
  afterAll(async () => {
    await postgres?.dispose();
    rmSync(directory, { recursive: true, force: true });
    files.dispose();
  });

  it("copies every table there and back, row for row, and checks the counts", async () => {
    const progress: number[] = [];
    const there = await copyDatabase({ from: source, to: postgres.url, onProgress: (p) => progress.push(p.rows) });
    expect(progress.at(-1)).toBe(there.tables.reduce((sum, t) => sum + t.rows, 0));
    const original = sqliteTables(source.slice(5));
    // Every table the schema has is copied: a table the copy does not know would be missing here.
    expect(Object.keys(original).sort()).toEqual([...COPIED_TABLES].sort());
    for (const table of [
      "accounts",
      "api_keys",
      "websites",
      "funnels",
      "imports",
      "salts",
      "visitors",
      "dimensions",
      "visits",
      "hits",
      "event_props",
      "rollups",
      "day_versions",
      "day_blocks",
    ]) {
      expect({ table, empty: original[table]!.length === 0 }).toEqual({ table, empty: false });
    }
    expect(await postgresCounts(postgres.url)).toEqual(
      Object.fromEntries(Object.entries(original).map(([table, rows]) => [table, rows.length])),
    );
    await copyDatabase({ from: postgres.url, to: back });
    expect(sqliteTables(back.slice(5))).toEqual(original);
  });

  it("every API call answers the same on the original, the PostgreSQL copy and the copy back", async () => {
    const answers = [];
    for (const database of [source, postgres.url, back]) {
      const tally = createTally({ database });
      answers.push(await everyAnswer(tally, key, websiteIds));
      await tally.close();
    }
    expect(Object.keys(answers[0]!).length).toBeGreaterThan(200);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it("new rows in the copy get new ids (sequences continue after the copied ones)", async () => {
    const tally = createTally({ database: postgres.url });
    const account = await tally.accounts.create({ name: "carol" });
    const website = await tally.websites.create(account.accountId, { domain: "new.example" });
    const funnel = await tally.funnels.create(account.accountId, website.id, { name: "Signup", steps: "page:/\nevent:Signup" });
    await tally.close();
    expect(account.accountId).toBe(3);
    expect(website.id).toBe(3);
    expect(funnel).toMatchObject({ id: 2, steps: ["page:/", "event:Signup"] });
  });

  it("refuses a target that holds data unless forced, then replaces it", async () => {
    await expect(copyDatabase({ from: source, to: postgres.url })).rejects.toThrow(/already holds data \(accounts, .*\); pass --force/);
    const forced = await copyDatabase({ from: source, to: postgres.url, force: true });
    expect(forced.tables.find((t) => t.table === "accounts")?.rows).toBe(2);
    expect((await postgresCounts(postgres.url)).accounts).toBe(2);
  });
});
