import { sql } from "kysely";
import type { SqlDialect } from "../dialect.js";

/** Arbitrary but fixed: every Tally process takes the same advisory lock to migrate. */
const MIGRATION_LOCK_KEY = 7_411_790_115;

export const postgresDialect: SqlDialect = {
  name: "postgres",
  idColumnType: "serial",
  idColumn: (column) => column.primaryKey(),
  counterType: "bigint",
  clusteredTableSuffix: sql``,
  containsIgnoringCase: (value, needle) => sql`strpos(lower(${value}), ${needle}) > 0`,
  byCodePoint: (value) => sql`${value} collate "C"`,
  lockRows: true,
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
