import type { ColumnDefinitionBuilder, Kysely } from "kysely";

/**
 * The few things SQLite and PostgreSQL do differently. Everything else in core is
 * plain kysely that both understand.
 */
export interface SqlDialect {
  readonly name: "sqlite" | "postgres";
  /** Column type and builder for an auto-incrementing integer primary key. */
  readonly idColumnType: "integer" | "serial";
  idColumn(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** Column type for counters that may exceed 2^31. */
  readonly counterType: "integer" | "bigint";
  /** Runs `fn` while holding a lock that other processes on the same database respect. */
  withMigrationLock<T>(db: Kysely<any>, fn: () => Promise<T>): Promise<T>;
}
