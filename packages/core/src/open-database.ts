import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import { postgresDialect } from "./backends/postgres/sql-dialect.js";
import { sqliteDialect } from "./backends/sqlite/sql-dialect.js";
import { WAL_SIZE_LIMIT } from "./backends/sqlite/tight-disk.js";
import { parseDatabaseUrl } from "./storage/database-url.js";
import type { Database } from "./storage/schema.js";
import type { OpenDatabase, PostgresPoolLike, SqliteDatabaseLike } from "./storage/connection.js";

/**
 * Where Tally keeps its data: `"file:./path.sqlite"`, a plain path, `":memory:"`,
 * `"postgres://…"`, a better-sqlite3 Database, a pg Pool, or a Kysely instance.
 */
export type DatabaseOption =
  | string
  | SqliteDatabaseLike
  | PostgresPoolLike
  // Any schema type: Tally only touches its own tables. (`any` because Kysely is invariant in it.)
  | Kysely<any>;


const isKysely = (value: object): value is Kysely<any> =>
  value instanceof Kysely || ("selectFrom" in value && "schema" in value);
const isSqlite = (value: object): value is SqliteDatabaseLike =>
  "prepare" in value && "pragma" in value;
const isPool = (value: object): value is PostgresPoolLike =>
  "connect" in value && "query" in value && "end" in value;

export interface OpenOptions {
  /**
   * Told of errors of the connections Tally's own pool holds (a PostgreSQL restart ends
   * idle ones): handled, the pool opens new connections when next needed. Without a
   * listener, node-postgres would throw them as an unhandled 'error' event and end the process.
   */
  onConnectionError?: (error: unknown) => void;
}

/** How long Tally's own pool waits for a new PostgreSQL connection before the write (or read) fails and is retried. */
const CONNECT_TIMEOUT_MS = 10_000;

export async function openDatabase(option: DatabaseOption, options: OpenOptions = {}): Promise<OpenDatabase> {
  if (typeof option === "string") return openUrl(option, options);
  if (isKysely(option)) return fromKysely(option);
  if (isSqlite(option)) return fromSqlite(option, false);
  if (isPool(option)) return fromPool(option, false);
  throw new TypeError("database: expected a URL, a better-sqlite3 Database, a pg Pool or a Kysely instance");
}

async function openUrl(url: string, options: OpenOptions): Promise<OpenDatabase> {
  const location = parseDatabaseUrl(url);
  if (location.dialect === "postgres") {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: location.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    const onError = options.onConnectionError ?? (() => {});
    // An idle connection's error reaches the pool; a checked-out one's, between statements, only its client.
    pool.on("error", (error) => onError(error));
    pool.on("connect", (client) => client.on("error", (error) => onError(error)));
    return fromPool(pool, true);
  }
  const { path } = location;
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const BetterSqlite3 = (await import("better-sqlite3")).default;
  return fromSqlite(new BetterSqlite3(path), true);
}

function fromSqlite(database: SqliteDatabaseLike, owned: boolean): OpenDatabase {
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  // How long a write waits for another connection's lock: the caller's own setting, else 5 s.
  if (Number(database.pragma("busy_timeout", { simple: true })) === 0) database.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: database as never }),
  });
  return {
    db,
    dialect: sqliteDialect,
    sqlite: database,
    async close() {
      if (owned) await db.destroy();
    },
  };
}

function fromPool(pool: PostgresPoolLike, owned: boolean): OpenDatabase {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as never }) });
  return {
    db,
    dialect: postgresDialect,
    sqlite: null,
    async close() {
      if (owned) await db.destroy();
    },
  };
}

function fromKysely(db: Kysely<any>): OpenDatabase {
  const adapter = db.getExecutor().adapter;
  const isPostgres = adapter.constructor.name.toLowerCase().includes("postgres");
  return {
    db: db as Kysely<Database>,
    dialect: isPostgres ? postgresDialect : sqliteDialect,
    sqlite: null,
    close: async () => {},
  };
}
