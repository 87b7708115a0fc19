import type { ColumnDefinitionBuilder, Expression, Kysely, RawBuilder, SqlBool } from "kysely";
import type { Database } from "./schema.js";

/**
 * What the flush needs to know of a database, as SQL text (no kysely: the SQLite writer
 * thread loads only the write path).
 */
export interface WriteDialect {
  /** Appended to a SELECT that must lock the rows it reads until the transaction ends. */
  readonly lockRows: boolean;
  /** The name of the two-argument larger-of function, for SQL written as text (ingest/flush-io.ts). */
  readonly greatestFunction: "max" | "greatest";
  /**
   * The columns that name a row physically, for bounded deletes: `rowid`, or `tableoid, ctid`
   * (a ctid alone repeats in every partition of a partitioned table).
   */
  readonly rowLocator: "rowid" | "tableoid, ctid";
  /** Hands out ids of a table's serial column before inserting (PostgreSQL sequences; parameters: the table, how many); absent where rows learn their id on insert. */
  readonly reserveIdsSql?: string;
  /**
   * Lists of rows and values go in as one parameter a statement (PostgreSQL): rows of numbers as
   * one array a column (`unnest`), rows with text as JSON typed by the table itself
   * (`json_populate_recordset`): a round trip and a plan per list instead of a parameter per
   * cell. Without it, rows go in as VALUES lists of `SqlRunner.rowsPerStatement`.
   */
  readonly jsonLists?: boolean;
}

/**
 * The few things SQLite and PostgreSQL do differently. Everything else in core is
 * plain kysely that both understand.
 */
export interface SqlDialect extends WriteDialect {
  readonly name: "sqlite" | "postgres";
  /** Column type and builder for an auto-incrementing integer primary key. */
  readonly idColumnType: "integer" | "serial";
  idColumn(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** Column type for binary data. */
  readonly blobType: "blob" | "bytea";
  /** Column type for counters that may exceed 2^31. */
  readonly counterType: "integer" | "bigint";
  /** The rollups column the trailing rows' index orders by (model/trailing-period.ts): `count` itself, or its copy on those rows alone (PostgreSQL). */
  readonly trailingCount: "count" | "trailing_count";
  /** Appended to CREATE TABLE for tables read by primary-key ranges (SQLite: WITHOUT ROWID). */
  readonly clusteredTableSuffix: RawBuilder<unknown>;
  /** `value` contains `needle`, byte for byte (case-insensitive searches compare lower-cased copies). */
  contains(value: Expression<string>, needle: string): RawBuilder<SqlBool>;
  /** `value` equals `pattern`, where each `*` in the pattern stands for any run of characters (case-sensitive). */
  matchesWildcard(value: Expression<string>, pattern: string): RawBuilder<SqlBool>;
  /**
   * `value` has a match of the regular expression `pattern` (RE2 syntax, checked before it gets
   * here); absent where the database cannot, and patterns are matched in JavaScript first (stats/pattern-matches.ts).
   */
  matchesRegex?(value: Expression<string>, pattern: string): RawBuilder<SqlBool>;
  /** `value` in an ORDER BY that sorts by code point, as JavaScript does. */
  byCodePoint(value: Expression<string>): RawBuilder<string>;
  /** The larger of two numbers (SQLite's two-argument max(), PostgreSQL's greatest()). */
  greatest(a: Expression<unknown>, b: Expression<unknown>): RawBuilder<number>;
  /** Runs `fn` while holding a lock that other processes on the same database respect. */
  withMigrationLock<T>(db: Kysely<Database>, fn: () => Promise<T>): Promise<T>;
}
