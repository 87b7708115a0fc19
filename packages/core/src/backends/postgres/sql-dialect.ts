import { sql } from "kysely";
import type { SqlDialect } from "../../storage/dialect.js";

/** Arbitrary but fixed: every Tally process takes the same advisory lock to migrate. */
const MIGRATION_LOCK_KEY = 7_411_790_115;

export const postgresDialect: SqlDialect = {
  name: "postgres",
  idColumnType: "serial",
  idColumn: (column) => column.primaryKey(),
  blobType: "bytea",
  counterType: "bigint",
  clusteredTableSuffix: sql``,
  contains: (value, needle) => sql`strpos(${value}, ${needle}) > 0`,
  // LIKE (case-sensitive) with its own wildcards made literal and `*` turned into `%`.
  matchesWildcard: (value, pattern) => sql`${value} like ${pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, "%")}`,
  byCodePoint: (value) => sql`${value} collate "C"`,
  lockRows: true,
  greatest: (a, b) => sql`greatest(${a}, ${b})`,
  greatestFunction: "greatest",
  rowLocator: "tableoid, ctid",
  reserveIdsSql: "select nextval(pg_get_serial_sequence(?, 'id'))::int as id from generate_series(1, ?::int)",
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
