import { registerSqliteRegexp } from "../../shared/patterns.js";
import { Kysely, SqliteDialect } from "kysely";
import { createKyselyStore } from "../../ingest/kysely-store.js";
import { COPY_BATCH, type Row } from "../../moving/copy.js";
import type { SqliteDatabaseLike } from "../../storage/connection.js";
import type { Database } from "../../storage/schema.js";
import type { SqlDialect } from "../../storage/dialect.js";
import type { Backend, StatsReads } from "../backend.js";
import { sqliteAppDialect, sqliteDialect } from "./sql-dialect.js";
import { WAL_SIZE_LIMIT } from "./tight-disk.js";
import { createSqliteWorkerStore } from "./worker-store.js";
import { createSqliteStore } from "./writer.js";

const inMemory = (database: SqliteDatabaseLike) => database.memory || database.name === "" || database.name === ":memory:";

/**
 * SQLite on a better-sqlite3 handle. A file is written on a writer thread and read on a
 * reader thread, each with its own connection; a database only this connection can see
 * (in memory) is written and read on the host's thread, in bounded steps.
 */
export function sqliteBackend(database: SqliteDatabaseLike, owned: boolean): Backend {
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  // How long a write waits for another connection's lock: the caller's own setting, else 5 s.
  if (Number(database.pragma("busy_timeout", { simple: true })) === 0) database.pragma("busy_timeout = 5000");
  registerSqliteRegexp(database);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: database as never }) });
  const memory = inMemory(database);
  return {
    db,
    dialect: sqliteDialect,
    place: memory ? "memory" : { file: database.name },
    async close() {
      if (owned) await db.destroy();
    },
    openWriter() {
      if (memory) return createSqliteStore(database);
      // Everything written so far (the schema, migrations) moves into the file and the WAL starts
      // empty: after a full disk, the checkpoint that frees it copies only pages written since.
      database.pragma("wal_checkpoint(TRUNCATE)");
      return createSqliteWorkerStore(database.name, Number(database.pragma("busy_timeout", { simple: true })));
    },
    async openReads(timeoutMs) {
      if (!memory) return (await import("./reads.js")).createSqliteReadPool(database.name, { timeoutMs });
      return hostReads(db, sqliteDialect, timeoutMs);
    },
    // One read transaction: every table as of one moment; rows streamed, not loaded.
    async snapshot(read) {
      database.prepare("begin").run();
      try {
        return await read({
          count: async (table) => Number((database.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n),
          async *rows(table) {
            let batch: Row[] = [];
            const statement = database.prepare(`select * from ${table}`) as unknown as { iterate(): Iterable<Row> };
            for (const row of statement.iterate()) {
              batch.push(row);
              if (batch.length === COPY_BATCH) {
                yield batch;
                batch = [];
              }
            }
            if (batch.length > 0) yield batch;
          },
        });
      } finally {
        database.prepare("commit").run();
      }
    },
    // AUTOINCREMENT follows inserted ids by itself.
    continueIds: async () => {},
  };
}

/** Statistics read on the host's thread, in bounded steps. */
async function hostReads(db: Kysely<Database>, dialect: SqlDialect, timeoutMs: number): Promise<StatsReads> {
  const [{ createHostSqliteReads }, { databaseSources }] = await Promise.all([
    import("./host-reads.js"),
    import("../../stats/database-readers.js"),
  ]);
  return { ...createHostSqliteReads(databaseSources(db, dialect), { timeoutMs }), close: async () => {} };
}

/** SQLite through a Kysely the app passed: Tally sees no handle, so it writes and reads through kysely on the host's thread. */
export function sqliteKyselyBackend(db: Kysely<Database>): Backend {
  return {
    db,
    dialect: sqliteAppDialect,
    place: "server",
    close: async () => {},
    openWriter: () => createKyselyStore(db, sqliteAppDialect),
    openReads: (timeoutMs) => hostReads(db, sqliteAppDialect, timeoutMs),
    snapshot: () => Promise.reject(new Error("tally copy opens its databases by URL")),
    continueIds: async () => {},
  };
}
