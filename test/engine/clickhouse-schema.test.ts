/**
 * ClickHouse beside the database (docs/clickhouse.md): the URLs it takes, the tables it
 * makes on one server and on a cluster, and an app that names no ClickHouse needing
 * neither of its packages.
 */
import { describe, expect, it } from "vitest";
import { createTally } from "@tally-analytics/core";
import { parseClickhouseUrl, schemaStatements } from "@tally-analytics/core/internal";

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
});

describe("ClickHouse packages", () => {
  it("an app without ClickHouse starts without them; one that names it is told which package to install", async () => {
    const tally = createTally({ database: ":memory:" });
    await tally.ready();
    await tally.close();
    const asking = createTally({ database: ":memory:", clickhouse: "chdb:./unused" });
    await expect(asking.ready()).rejects.toThrow(
      /Cannot open ClickHouse chdb:\.\/unused: .*needs the package (@clickhouse\/client|chdb).*npm install/,
    );
    await asking.close().catch(() => {});
  });
});
