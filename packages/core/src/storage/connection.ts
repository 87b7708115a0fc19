import type { Kysely } from "kysely";
import type { SqlDialect } from "./dialect.js";
import type { Database } from "./schema.js";

/** The shape of a better-sqlite3 `Database` that Tally relies on. */
export interface SqliteDatabaseLike {
  /** The file it was opened on. */
  readonly name: string;
  readonly memory: boolean;
  prepare(sql: string): {
    run(...params: unknown[]): { lastInsertRowid: number | bigint; changes: number };
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
  };
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R>;
}

/** A better-sqlite3 transaction function; `immediate` takes the write lock at BEGIN. */
export type SqliteTransaction<A extends unknown[], R> = ((...args: A) => R) & { immediate(...args: A): R };

/** The shape of a `pg` Pool that Tally relies on. */
export interface PostgresPoolLike {
  connect(): Promise<unknown>;
  query(...args: never[]): unknown;
  end(): Promise<void>;
}

export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: SqlDialect;
  /** The better-sqlite3 handle when the store is SQLite (used for synchronous fast paths). */
  sqlite: SqliteDatabaseLike | null;
  /** Releases what Tally opened itself; leaves what the caller passed in open. */
  close(): Promise<void>;
}
