import { sql } from "kysely";
import type { SqlDialect } from "../../storage/dialect.js";
import { postgresWriteDialect } from "./write-dialect.js";

/** Arbitrary but fixed: every Tally process takes the same advisory lock to migrate. */
const MIGRATION_LOCK_KEY = 7_411_790_115;

export const postgresDialect: SqlDialect = {
  ...postgresWriteDialect,
  name: "postgres",
  idColumnType: "serial",
  idColumn: (column) => column.primaryKey(),
  blobType: "bytea",
  counterType: "bigint",
  // A day row's count in no index: its updates stay heap-only (migration 0048).
  trailingCount: "trailing_count",
  clusteredTableSuffix: sql``,
  contains: (value, needle) => sql`strpos(${value}, ${needle}) > 0`,
  // LIKE (case-sensitive) with its own wildcards made literal and `*` turned into `%`.
  matchesWildcard: (value, pattern) => sql`${value} like ${pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, "%")}`,
  // PostgreSQL's own engine (not a backtracking one): RE2's common syntax means the same there.
  matchesRegex: (value, pattern) => sql`${value} ~ ${pattern}`,
  byCodePoint: (value) => sql`${value} collate "C"`,
  greatest: (a, b) => sql`greatest(${a}, ${b})`,
  async withMigrationLock(db, fn) {
    return db.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
      try {
        return await fn();
      } finally {
        await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
      }
    });
  },
};
