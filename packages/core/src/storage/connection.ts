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
  function(name: string, options: { deterministic: boolean }, fn: (...args: never[]) => unknown): unknown;
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

/** Where a database lives: a file (kept hits go beside it), memory (nothing outlives the process), or a server. */
export type DatabasePlace = { file: string } | "memory" | "server";

export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: SqlDialect;
  place: DatabasePlace;
  /** Releases what Tally opened itself; leaves what the caller passed in open. */
  close(): Promise<void>;
}
