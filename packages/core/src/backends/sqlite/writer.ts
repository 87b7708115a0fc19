import type { SqliteTransaction } from "../../storage/connection.js";
import { createDictionary } from "../../ingest/dictionary.js";
import { engineWrites, type EngineWrites } from "../../ingest/engine-writes.js";
import { createVisitorRows } from "../../ingest/visitor-rows.js";
import type { Hit } from "../../model/hit.js";
import type { EngineStore } from "../../storage/store.js";
import { runSync, type Steps } from "../../shared/steps.js";
import { sqliteRunner, type SqliteStatement } from "./runner.js";
import { sqliteWriteDialect } from "./write-dialect.js";

/** The parts of a better-sqlite3 Database the SQLite store uses. */
export interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R>;
}

/** The engine's writes on a better-sqlite3 handle, synchronously: one transaction per call. */
export interface SqliteWriter {
  write(hits: readonly Hit[], batchId: string): void;
  probe(): void;
  deleteWebsite(websiteId: number): void;
  salt(day: string, candidate: string): string;
  forgetBefore(day: string): void;
  deleteOlderThan(websiteId: number, localSeconds: number, limit: number): number;
}

export function createSqliteWriter(sqlite: SqliteHandle): SqliteWriter {
  const dictionary = createDictionary();
  const visitorRows = createVisitorRows();
  const writes = engineWrites(sqliteRunner(sqlite), sqliteWriteDialect, dictionary, visitorRows);
  // BEGIN IMMEDIATE: the write lock is taken (waiting up to busy_timeout for another
  // connection) before anything is read. A deferred transaction reads first and, when
  // another connection commits meanwhile, fails on its first write at once (SQLITE_BUSY,
  // no wait); nothing would be lost, but every such flush would have to be retried.
  const inTransaction = <T>(body: (w: EngineWrites) => Steps<T>): T => sqlite.transaction(() => runSync(body(writes))).immediate();
  return {
    write(hits, batchId) {
      try {
        inTransaction((w) => w.write(hits, batchId));
        dictionary.commit();
        visitorRows.commit();
      } catch (error) {
        dictionary.rollback();
        visitorRows.forget();
        throw error;
      }
    },
    probe: () => runSync(writes.probe()),
    deleteWebsite(websiteId) {
      inTransaction((w) => w.deleteWebsite(websiteId));
      dictionary.forgetWebsite(websiteId);
    },
    salt: (day, candidate) => inTransaction((w) => w.salt(day, candidate)),
    forgetBefore(day) {
      try {
        inTransaction((w) => w.forgetBefore(day));
        visitorRows.commit();
      } catch (error) {
        visitorRows.forget();
        throw error;
      }
    },
    deleteOlderThan: (websiteId, localSeconds, limit) => inTransaction((w) => w.deleteOlderThan(websiteId, localSeconds, limit)),
  };
}

/** Writes on the caller's thread, in bounded writes (for databases a worker cannot open, like `:memory:`). */
export function createSqliteStore(sqlite: SqliteHandle): EngineStore {
  const writer = createSqliteWriter(sqlite);
  return {
    maxHitsPerWrite: 500,
    write: async (hits, batchId) => writer.write(hits, batchId),
    probe: async () => writer.probe(),
    deleteWebsite: async (websiteId) => writer.deleteWebsite(websiteId),
    salt: async (day, candidate) => writer.salt(day, candidate),
    forgetBefore: async (day) => writer.forgetBefore(day),
    deleteOlderThan: async (websiteId, localSeconds, limit) => writer.deleteOlderThan(websiteId, localSeconds, limit),
    close: async () => {},
  };
}
