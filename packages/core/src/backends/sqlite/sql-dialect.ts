import { sql } from "kysely";
import { SQLITE_REGEXP_FUNCTION } from "../../shared/patterns.js";
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
  trailingCount: "count",
  clusteredTableSuffix: sql`without rowid`,
  contains: (value, needle) => sql`instr(${value}, ${needle}) > 0`,
  // GLOB's own `*`; its other special characters (`?`, `[`) are made literal.
  matchesWildcard: (value, pattern) => sql`${value} glob ${pattern.replace(/[?[]/g, (c) => `[${c}]`)}`,
  // No REGEXP in SQLite: a function of Tally's on each connection (shared/patterns.ts), linear-time RE2.
  matchesRegex: (value, pattern) => sql`${sql.raw(SQLITE_REGEXP_FUNCTION)}(${pattern}, ${value}) = 1`,
  byCodePoint: (value) => sql`${value}`,
  greatest: (a, b) => sql`max(${a}, ${b})`,
  withMigrationLock: (_db, fn) => fn(),
};

/**
 * SQLite through a Kysely instance of the app's: Tally cannot reach its connections to register
 * `tally_regexp`, so `matches` patterns are tested in JavaScript (stats/pattern-matches.ts).
 */
export const sqliteAppDialect: SqlDialect = (({ matchesRegex: _inSql, ...rest }) => rest)(sqliteDialect);
