import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTally, type Tally, type TallyOptions } from "@tally-analytics/core";
import { apiClient } from "./api-client.js";
import { createTestDatabase, runSql, type DialectName } from "./databases.js";
import type { Transport } from "./transports.js";

/**
 * A Tally on a real SQLite file in a fresh temporary directory, removed on close.
 * `options` are passed through (except `database`); `file` is the SQLite file, for
 * tests that look at the stored rows directly.
 */
export function createTempTally(options: Omit<TallyOptions, "database"> = {}): { tally: Tally; file: string; dispose(): Promise<void> } {
  const directory = mkdtempSync(join(tmpdir(), "tally-http-"));
  const file = join(directory, "tally.sqlite");
  const tally = createTally({ ...options, database: `file:${file}` });
  return {
    tally,
    file,
    async dispose() {
      await tally.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A Tally on a fresh database of either dialect, with a second connection to look at what is stored. */
export interface TestTally {
  tally: Tally;
  dialect: DialectName;
  /** The `database` option it was opened with. */
  url: string;
  /** Rows of a read-only query, run by a separate connection (what is really stored). */
  sql<Row = Record<string, unknown>>(text: string): Promise<Row[]>;
  /** Rows of a query to its ClickHouse, by a connection of its own; absent without ClickHouse. */
  clickhouseRows?<Row = Record<string, unknown>>(query: string): Promise<Row[]>;
  dispose(): Promise<void>;
}

/** The storage beside the options: what the database starts from, and where the hits go besides it. */
export interface TestStorage {
  /** ClickHouse embedded through chDB, in a temporary folder. */
  clickhouse?: boolean | undefined;
  /** The database starts as a copy of this closed test database (its `url`), not empty. */
  copyOf?: string | undefined;
}

export async function createTestTally(
  dialect: DialectName,
  options: Omit<TallyOptions, "database"> = {},
  storage: TestStorage = {},
): Promise<TestTally> {
  const database = await createTestDatabase(dialect, storage.copyOf);
  const clickhouseFolder = storage.clickhouse ? mkdtempSync(join(tmpdir(), "tally-chdb-")) : null;
  // Day blocks only where a test builds them (buildDayBlocks): what a statistic reads stays the test's choice.
  const tally = createTally({
    dayBlocksIntervalMs: 0,
    ...options,
    ...(clickhouseFolder === null ? {} : { clickhouse: `chdb:${clickhouseFolder}` }),
    database: database.url,
  });
  await tally.ready();
  return {
    tally,
    dialect,
    url: database.url,
    sql: <Row>(text: string) => runSql<Row>(dialect, database.url, text),
    ...(clickhouseFolder === null ? {} : { clickhouseRows: (query: string) => clickhouseRows(`chdb:${clickhouseFolder}`, query) }),
    async dispose() {
      await tally.close();
      await database.dispose();
      if (clickhouseFolder !== null) rmSync(clickhouseFolder, { recursive: true, force: true });
    },
  };
}

/** Rows of a query to a ClickHouse, through a client opened for it. */
export async function clickhouseRows<Row>(url: string, query: string): Promise<Row[]> {
  const { connectClickhouse } = await import("@tally-analytics/core/internal");
  const client = await connectClickhouse(url);
  try {
    return await (await client.query({ query, format: "JSONEachRow" })).json<Row>();
  } finally {
    await client.close();
  }
}

/** A fresh Tally served one way, with two accounts (alice, bob) and an anonymous client. */
export async function servedWithTwoAccounts(transport: Transport, dialect: DialectName, storage: TestStorage = {}) {
  const stored = await createTestTally(dialect, {}, storage);
  const served = await transport.serve(stored.tally);
  const a = await stored.tally.accounts.create({ name: "alice" });
  const b = await stored.tally.accounts.create({ name: "bob" });
  return {
    stored,
    tally: stored.tally,
    served,
    aliceId: a.accountId,
    alice: apiClient(served, a.key),
    bob: apiClient(served, b.key),
    anonymous: apiClient(served, null),
    async dispose() {
      await served.close();
      await stored.dispose();
    },
  };
}
