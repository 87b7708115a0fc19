/**
 * ClickHouse beside the database (docs/clickhouse.md): the URLs it takes, the tables it
 * makes on one server and on a cluster, and an app that names no ClickHouse needing
 * neither of its packages.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  connectClickhouse,
  openHitLog,
  parseClickhouseUrl,
  schemaStatements,
  upgradeStatements,
  visitSchemaStatements,
  type ClickhouseClient,
} from "@tally-analytics/core/internal";

const run = promisify(execFile);
/** The columns added since the table was first made: each table of a cluster gets them at start. */
const ADDED_COLUMNS =
  "ADD COLUMN IF NOT EXISTS `arrival` UInt64, ADD COLUMN IF NOT EXISTS `revenue_amount` Int64, " +
  "ADD COLUMN IF NOT EXISTS `revenue_currency` LowCardinality(String)";
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HOOKS = fileURLToPath(new URL("../support/without-clickhouse.mjs", import.meta.url));

describe("ClickHouse URLs", () => {
  it("takes a server over HTTP(S) and chDB with a folder, and refuses anything else", () => {
    expect(parseClickhouseUrl("https://user:secret@example.clickhouse.cloud:8443/tally")).toEqual({
      kind: "server",
      url: "https://user:secret@example.clickhouse.cloud:8443/tally",
    });
    expect(parseClickhouseUrl("chdb:./data/events")).toEqual({ kind: "embedded", path: "./data/events" });
    expect(() => parseClickhouseUrl("chdb:")).toThrow(/no folder/);
    expect(() => parseClickhouseUrl("clickhouse://host")).toThrow(/chdb:PATH/);
  });
});

describe("ClickHouse tables", () => {
  it("one server: a MergeTree of hits by website, day and visitor, a partition per month, batch ids remembered", () => {
    const [hits, ...more] = schemaStatements();
    expect(more).toEqual([]);
    expect(hits).toMatch(/^CREATE TABLE IF NOT EXISTS tally_hits \(/);
    expect(hits).toContain("ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (website_id, day, visitor, timestamp)");
    expect(hits).toContain("non_replicated_deduplication_window");
    expect(hits).toContain("`page` String");
    expect(hits).toContain("`browser` LowCardinality(String)");
  });

  it("one server: columns compressed with ZSTD, times as differences first", () => {
    const [hits] = schemaStatements();
    const [visits] = visitSchemaStatements();
    expect(hits).toContain("`page` String CODEC(ZSTD(3))");
    expect(hits).toContain("`browser` LowCardinality(String) CODEC(ZSTD(3))");
    expect(hits).toContain("`timestamp` DateTime64(3, 'UTC') CODEC(Delta, ZSTD(3))");
    expect(hits).toContain("`arrival` UInt64 CODEC(Delta, ZSTD(3))");
    expect(visits).toContain("`start_local` UInt32 CODEC(Delta, ZSTD(3))");
    expect(visits).toContain("`exit_page` String CODEC(ZSTD(3))");
  });

  it("one server: stored visits and visitor-days by website, day and version, and each stored day's version, a partition per month", () => {
    const [visits, visitorDays, days, ...more] = visitSchemaStatements();
    // Then the columns added since the tables were first made, added to tables made before them.
    expect(more).toEqual([
      "ALTER TABLE tally_visits ADD COLUMN IF NOT EXISTS `visitor` UInt32, ADD COLUMN IF NOT EXISTS `start` Int64, " +
        "ADD COLUMN IF NOT EXISTS `start_hour` UInt8, ADD COLUMN IF NOT EXISTS `start_local` UInt32, " +
        "ADD COLUMN IF NOT EXISTS `hits` Array(Tuple(UInt8, Date, UInt8, UInt32, String, LowCardinality(String), Map(String, String)))",
      "ALTER TABLE tally_visit_days ADD COLUMN IF NOT EXISTS `shape` UInt16",
      // Then every column's compression, set on tables made before it was.
      expect.stringMatching(
        /^ALTER TABLE tally_visits MODIFY COLUMN `website_id` CODEC\(ZSTD\(3\)\), .*`start` CODEC\(Delta, ZSTD\(3\)\), /,
      ),
      expect.stringMatching(/^ALTER TABLE tally_visitor_days MODIFY COLUMN `website_id` CODEC\(ZSTD\(3\)\), .*`city` CODEC\(ZSTD\(3\)\)/),
      expect.stringMatching(/^ALTER TABLE tally_visit_days MODIFY COLUMN `website_id` CODEC\(ZSTD\(3\)\), /),
    ]);
    expect(visits).toMatch(/^CREATE TABLE IF NOT EXISTS tally_visits \(/);
    expect(visits).toContain("ENGINE = MergeTree PARTITION BY toYYYYMM(vday) ORDER BY (website_id, vday, version)");
    expect(visits).toContain("`source` LowCardinality(String)");
    expect(visitorDays).toMatch(/^CREATE TABLE IF NOT EXISTS tally_visitor_days \(/);
    expect(visitorDays).toContain("ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (website_id, day, version)");
    expect(visitorDays).toContain("`language_values` Array(LowCardinality(String))");
    expect(days).toMatch(/^CREATE TABLE IF NOT EXISTS tally_visit_days \(/);
    expect(days).toContain("ENGINE = ReplacingMergeTree(version) PARTITION BY toYYYYMM(day) ORDER BY (website_id, day)");
  });

  it("a cluster: replicated tables on every node, a Distributed table in front sharding by visitor", () => {
    const [local, distributed, ...more] = schemaStatements({ cluster: "two_shards" });
    expect(more).toEqual([]);
    expect(local).toMatch(/^CREATE TABLE IF NOT EXISTS tally_hits_local ON CLUSTER `two_shards` \(/);
    expect(local).toContain(
      "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/tally_hits_local', '{replica}') PARTITION BY toYYYYMM(day)",
    );
    expect(local).toContain("replicated_deduplication_window");
    expect(distributed).toBe(
      "CREATE TABLE IF NOT EXISTS tally_hits ON CLUSTER `two_shards` AS tally_hits_local ENGINE = Distributed(`two_shards`, currentDatabase(), tally_hits_local, cityHash64(website_id, visitor))",
    );
  });

  it("a cluster: the stored visits replicated on every node and spread over the shards, a website's stored days on one shard", () => {
    const [visitsLocal, visits, visitorDaysLocal, visitorDays, daysLocal, days, ...more] = visitSchemaStatements({ cluster: "two_shards" });
    expect(more.map((statement) => statement.split(/ (ADD|MODIFY) COLUMN/)[0])).toEqual([
      "ALTER TABLE tally_visits_local ON CLUSTER `two_shards`",
      "ALTER TABLE tally_visits ON CLUSTER `two_shards`",
      "ALTER TABLE tally_visit_days_local ON CLUSTER `two_shards`",
      "ALTER TABLE tally_visit_days ON CLUSTER `two_shards`",
      // Compression is set where the data is: each shard's table.
      "ALTER TABLE tally_visits_local ON CLUSTER `two_shards`",
      "ALTER TABLE tally_visitor_days_local ON CLUSTER `two_shards`",
      "ALTER TABLE tally_visit_days_local ON CLUSTER `two_shards`",
    ]);
    expect(visitsLocal).toMatch(/^CREATE TABLE IF NOT EXISTS tally_visits_local ON CLUSTER `two_shards` \(/);
    expect(visitsLocal).toContain(
      "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/tally_visits_local', '{replica}') PARTITION BY toYYYYMM(vday)",
    );
    expect(visits).toBe(
      "CREATE TABLE IF NOT EXISTS tally_visits ON CLUSTER `two_shards` AS tally_visits_local ENGINE = Distributed(`two_shards`, currentDatabase(), tally_visits_local, rand())",
    );
    expect(visitorDaysLocal).toContain(
      "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/tally_visitor_days_local', '{replica}') PARTITION BY toYYYYMM(day)",
    );
    expect(visitorDays).toBe(
      "CREATE TABLE IF NOT EXISTS tally_visitor_days ON CLUSTER `two_shards` AS tally_visitor_days_local ENGINE = Distributed(`two_shards`, currentDatabase(), tally_visitor_days_local, rand())",
    );
    expect(daysLocal).toContain(
      "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/tally_visit_days_local', '{replica}', version) PARTITION BY toYYYYMM(day)",
    );
    expect(days).toBe(
      "CREATE TABLE IF NOT EXISTS tally_visit_days ON CLUSTER `two_shards` AS tally_visit_days_local ENGINE = Distributed(`two_shards`, currentDatabase(), tally_visit_days_local, website_id)",
    );
  });
});

/** A client that answers nothing but records what Tally sends: statements, tables inserted into, settings. */
function recordingClient(held: object[] = []) {
  const sent: string[] = [];
  const client: ClickhouseClient = {
    async command({ query, clickhouse_settings }) {
      const params = Object.entries(clickhouse_settings ?? {}).filter(([name]) => name.startsWith("param_"));
      sent.push(params.length === 0 ? query : `${query} -- ${params.map(([name, value]) => `${name}=${String(value)}`).join(" ")}`);
    },
    async insert({ table, values, clickhouse_settings }) {
      sent.push(`INSERT INTO ${table} (${values.length} rows) -- token ${String(clickhouse_settings?.insert_deduplication_token)}`);
    },
    async query({ query }) {
      sent.push(query);
      return { json: async <T>() => held as T[] };
    },
    close: async () => {},
  };
  return { client, sent };
}

describe("ClickHouse on a cluster: the statements sent", () => {
  it("tables made on every node first; hits written through the Distributed table; deletions on every shard's own table", async () => {
    const day = (date: string) => Date.parse(date) / 86_400_000;
    // Held: website 1 in October and November 2026, website 2 in October only.
    const { client, sent } = recordingClient([
      { month: 202610, website_id: 1, earliest: day("2026-10-01"), latest: day("2026-10-31") },
      { month: 202611, website_id: 1, earliest: day("2026-11-01"), latest: day("2026-11-20") },
      { month: 202610, website_id: 2, earliest: day("2026-10-05"), latest: day("2026-10-06") },
    ]);
    const log = await openHitLog(client, { cluster: "two_shards" });
    const upgrades = upgradeStatements({ cluster: "two_shards" });
    expect(upgrades).toEqual([
      `ALTER TABLE tally_hits_local ON CLUSTER \`two_shards\` ${ADDED_COLUMNS}`,
      `ALTER TABLE tally_hits ON CLUSTER \`two_shards\` ${ADDED_COLUMNS}`,
      expect.stringMatching(/^ALTER TABLE tally_hits_local ON CLUSTER `two_shards` MODIFY COLUMN `website_id` CODEC\(ZSTD\(3\)\), /),
    ]);
    expect(sent.splice(0)).toEqual([
      ...schemaStatements({ cluster: "two_shards" }),
      ...upgrades,
      ...visitSchemaStatements({ cluster: "two_shards" }),
    ]);

    const hit = {
      websiteId: 1,
      day: "2026-11-20",
      visitorHash: "v",
      localTime: 0,
      timestamp: 0,
      kind: "pageview",
      engagedMs: 0,
      values: {},
    };
    await log.append([hit as unknown as Parameters<typeof log.append>[0][number]], "batch-1");
    await log.deleteWebsite(7);
    // Website 1 keeps hits from 2026-11-10 and website 2 from 2026-10-01: October holds hits
    // website 2 keeps, so website 1's older hits go row by row.
    await log.retain(
      new Map([
        [1, day("2026-11-10") * 86_400],
        [2, day("2026-10-01") * 86_400],
      ]),
    );
    // Website 2 keeps hits from 2026-11-01: all of October is past its websites' cutoffs and is dropped.
    await log.retain(
      new Map([
        [1, day("2026-11-10") * 86_400],
        [2, day("2026-11-01") * 86_400],
      ]),
    );
    // Every table on every shard: the hits, the stored visits (by their start day), visitor-days and days.
    const onEveryShard = (table: string) => `ALTER TABLE ${table} ON CLUSTER \`two_shards\``;
    const storedTables = (statement: (table: string, day: string) => string) => [
      statement(onEveryShard("tally_visits_local"), "vday"),
      statement(onEveryShard("tally_visitor_days_local"), "day"),
      statement(onEveryShard("tally_visit_days_local"), "day"),
    ];
    const everyTable = (statement: (table: string, day: string) => string) => [
      statement(onEveryShard("tally_hits_local"), "day"),
      ...storedTables(statement),
    ];
    const olderOf = (website: number, before: string) => (table: string, day: string) =>
      `${table} DELETE WHERE website_id = {website:UInt32} AND ${day} < {before:Date} -- param_website=${website} param_before=${before}`;
    const heldQuery = sent[5]!;
    const storedQuery = sent[10]!;
    expect(heldQuery).toMatch(/ FROM tally_hits GROUP BY /);
    expect(storedQuery).toMatch(/ FROM tally_visit_days GROUP BY website_id/);
    expect(sent).toEqual([
      "INSERT INTO tally_hits (1 rows) -- token batch-1",
      ...everyTable((table) => `${table} DELETE WHERE website_id = {website:UInt32} -- param_website=7`),
      heldQuery,
      ...everyTable(olderOf(1, "2026-11-10")),
      storedQuery,
      heldQuery,
      ...everyTable((table) => `${table} DROP PARTITION 202610`),
      ...everyTable(olderOf(1, "2026-11-10")),
      storedQuery,
      // Stored days of website 2 before its cutoff (here the recorded answer's), though no hits of it are.
      ...storedTables(olderOf(2, "2026-11-01")),
    ]);
  });
});

describe("ClickHouse tables made before their columns were compressed", () => {
  it("get every column's compression at start, keep their rows, and a second start changes nothing", async () => {
    const folder = mkdtempSync(join(tmpdir(), "tally-clickhouse-codecs-"));
    const client = await connectClickhouse(`chdb:${join(folder, "clickhouse")}`);
    const codecs = async () =>
      (
        await (
          await client.query({
            query: "SELECT table, name, compression_codec FROM system.columns WHERE database = currentDatabase() ORDER BY table, position",
            format: "JSONEachRow",
          })
        ).json<{ table: string; name: string; compression_codec: string }>()
      ).map((column) => `${column.table}.${column.name} ${column.compression_codec}`);
    try {
      // The tables as they were made before: no CODEC clause, ClickHouse's default compression.
      const made = [...schemaStatements(), ...visitSchemaStatements()].filter((statement) => statement.startsWith("CREATE"));
      for (const query of made) await client.command({ query: query.replace(/ CODEC\((?:[^()]|\([^()]*\))*\)/g, "") });
      await client.command({ query: "INSERT INTO tally_hits (website_id, day, visitor, page) VALUES (1, '2026-10-01', 'v', '/a')" });
      expect((await codecs()).filter((column) => column.endsWith("CODEC(ZSTD(3))"))).toEqual([]);

      await openHitLog(client);
      const after = await codecs();
      expect(after.length).toBeGreaterThan(90);
      expect(after.filter((column) => !/ CODEC\((Delta\(\d\), )?ZSTD\(3\)\)$/.test(column))).toEqual([]);
      expect(after).toContain("tally_hits.timestamp CODEC(Delta(8), ZSTD(3))");
      expect(after).toContain("tally_visits.start_local CODEC(Delta(4), ZSTD(3))");
      await openHitLog(client);
      expect(await codecs()).toEqual(after);
      const rows = await (await client.query({ query: "SELECT page FROM tally_hits", format: "JSONEachRow" })).json<{ page: string }>();
      expect(rows).toEqual([{ page: "/a" }]);
    } finally {
      await client.close();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("ClickHouse packages", () => {
  /** Runs a script in a Node process where neither package can be found (an app that never installed them); what it printed and which packages it asked for. */
  async function withoutPackages(script: string): Promise<{ output: string; asked: string }> {
    const folder = mkdtempSync(join(tmpdir(), "tally-no-clickhouse-"));
    const log = join(folder, "asked.log");
    try {
      const { stdout } = await run(process.execPath, ["--import", HOOKS, "--input-type=module", "-e", script], {
        cwd: ROOT,
        env: { ...process.env, TALLY_ASKED_LOG: log },
      });
      return { output: stdout.trim(), asked: existsSync(log) ? readFileSync(log, "utf8").trim() : "" };
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }

  it("an app without ClickHouse never asks for either package", async () => {
    const idle = await withoutPackages(
      `import { createTally } from "@tally-analytics/core";
       const tally = createTally({ database: ":memory:" });
       await tally.ready();
       const id = (await tally.accounts.create()).accountId;
       await tally.stats.realtime(id, (await tally.websites.create(id, { domain: "idle.example" })).id);
       await tally.close();
       console.log("started and stopped");`,
    );
    expect(idle).toEqual({ output: "started and stopped", asked: "" });
  });

  it("an app that names ClickHouse without the packages is told which one to install", async () => {
    const asking = await withoutPackages(
      `import { createTally } from "@tally-analytics/core";
       const tally = createTally({ database: ":memory:", clickhouse: "chdb:./unused" });
       await tally.ready().catch((error) => console.log(error.message));
       await tally.close().catch(() => {});`,
    );
    expect(asking.output).toMatch(
      /^Cannot open ClickHouse chdb:\.\/unused: .*needs the package @clickhouse\/client.*npm install @clickhouse\/client$/,
    );
    expect(asking.asked).toBe("@clickhouse/client");
  });
});
