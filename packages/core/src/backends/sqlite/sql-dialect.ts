import { sql } from "kysely";
import type { SqlDialect } from "../../storage/dialect.js";
import { sqliteWriteDialect } from "./write-dialect.js";

/** SQLite: one writer per file, so the file itself is the lock. */
export const sqliteDialect: SqlDialect = {
  ...sqliteWriteDialect,
  name: "sqlite",
  idColumnType: "integer",
  idColumn: (column) => column.primaryKey().autoIncrement(),
  blobType: "blob",
  counterType: "integer",
  clusteredTableSuffix: sql`without rowid`,
  contains: (value, needle) => sql`instr(${value}, ${needle}) > 0`,
  // GLOB's own `*`; its other special characters (`?`, `[`) are made literal.
  matchesWildcard: (value, pattern) => sql`${value} glob ${pattern.replace(/[?[]/g, (c) => `[${c}]`)}`,
  byCodePoint: (value) => sql`${value}`,
  greatest: (a, b) => sql`max(${a}, ${b})`,
  withMigrationLock: (_db, fn) => fn(),
};
