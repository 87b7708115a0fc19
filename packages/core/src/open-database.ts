import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Kysely, PostgresDialect } from "kysely";
import type { Backend } from "./backends/backend.js";
import { postgresBackend } from "./backends/postgres/index.js";
import { sqliteBackend, sqliteKyselyBackend } from "./backends/sqlite/index.js";
import { parseDatabaseUrl } from "./storage/database-url.js";
import { optionalImport } from "./shared/lazy-require.js";
import type { Database } from "./storage/schema.js";
import type { PostgresPoolLike, SqliteDatabaseLike } from "./storage/connection.js";

/**
 * Where Tally keeps its data: `"file:./path.sqlite"`, a plain path, `":memory:"`,
 * `"postgres://…"`, a better-sqlite3 Database, a pg Pool, or a Kysely instance.
 */
export type DatabaseOption =
  | string
  | SqliteDatabaseLike
  | PostgresPoolLike
  // Any schema type: Tally only touches its own tables. (`any` because Kysely is invariant in it.)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  | Kysely<any>;

/** A Kysely of the app's, whatever its schema type. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see DatabaseOption
type AnyKysely = Kysely<any>;

const isKysely = (value: object): value is AnyKysely => value instanceof Kysely || ("selectFrom" in value && "schema" in value);
const isSqlite = (value: object): value is SqliteDatabaseLike => "prepare" in value && "pragma" in value;
const isPool = (value: object): value is PostgresPoolLike => "connect" in value && "query" in value && "end" in value;

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

/** Opens the backend for a `database` option: the only place that picks one. */
export async function openDatabase(option: DatabaseOption, options: OpenOptions = {}): Promise<Backend> {
  if (typeof option === "string") return openUrl(option, options);
  if (isKysely(option)) return fromKysely(option);
  if (isSqlite(option)) return sqliteBackend(option, false);
  if (isPool(option)) return fromPool(option, false);
  throw new TypeError("database: expected a URL, a better-sqlite3 Database, a pg Pool or a Kysely instance");
}

async function openUrl(url: string, options: OpenOptions): Promise<Backend> {
  const location = parseDatabaseUrl(url);
  if (location.dialect === "postgres") {
    const { default: pg } = await optionalImport("pg", () => import("pg"));
    const pool = new pg.Pool({ connectionString: location.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    const onError = options.onConnectionError ?? (() => {});
    // An idle connection's error reaches the pool; a checked-out one's, between statements, only its client.
    pool.on("error", (error) => onError(error));
    pool.on("connect", (client) => client.on("error", (error) => onError(error)));
    return fromPool(pool, true);
  }
  const { path } = location;
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const BetterSqlite3 = (await optionalImport("better-sqlite3", () => import("better-sqlite3"))).default;
  return sqliteBackend(new BetterSqlite3(path), true);
}

function fromPool(pool: PostgresPoolLike, owned: boolean): Backend {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as never }) });
  // node-postgres sends a query without parameters as one simple query: a read's transaction starts in one round trip.
  const close = async () => {
    if (owned) await db.destroy();
  };
  return postgresBackend(db, close, { statementsInOneQuery: true });
}

function fromKysely(db: AnyKysely): Backend {
  const adapter = db.getExecutor().adapter;
  const isPostgres = adapter.constructor.name.toLowerCase().includes("postgres");
  return isPostgres ? postgresBackend(db as Kysely<Database>, async () => {}) : sqliteKyselyBackend(db as Kysely<Database>);
}
