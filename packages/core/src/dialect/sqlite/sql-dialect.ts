import { sql } from "kysely";
import type { SqlDialect } from "../dialect.js";

/** Registered on the better-sqlite3 handle: SQLite's own lower() only folds ASCII. */
export const CONTAINS_FUNCTION = "tally_contains";

/**
 * SQLite: one writer per file, so the file itself is the lock. With the raw
 * better-sqlite3 handle Tally registers a Unicode-aware contains(); through a bare
 * Kysely it falls back to SQLite's ASCII-only lower().
 */
export const createSqliteDialect = (hasContainsFunction: boolean): SqlDialect => ({
  name: "sqlite",
  idColumnType: "integer",
  idColumn: (column) => column.primaryKey().autoIncrement(),
  counterType: "integer",
  clusteredTableSuffix: sql`without rowid`,
  containsIgnoringCase: (value, needle) =>
    hasContainsFunction
      ? sql`${sql.raw(CONTAINS_FUNCTION)}(${value}, ${needle})`
      : sql`instr(lower(${value}), ${needle}) > 0`,
  byCodePoint: (value) => sql`${value}`,
  lockRows: false,
  withMigrationLock: (_db, fn) => fn(),
});
