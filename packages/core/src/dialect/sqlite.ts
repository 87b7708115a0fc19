import type { SqlDialect } from "./dialect.js";

/** SQLite: one writer per file, so the file itself is the lock. */
export const sqliteDialect: SqlDialect = {
  name: "sqlite",
  idColumnType: "integer",
  idColumn: (column) => column.primaryKey().autoIncrement(),
  counterType: "integer",
  withMigrationLock: (_db, fn) => fn(),
};
