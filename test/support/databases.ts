import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";

/**
 * The storage matrix: every storage, engine and API suite runs once per dialect in
 * DIALECTS (default "sqlite,postgres"). PostgreSQL comes from POSTGRES_URL (default
 * the local server); each suite gets its own fresh database, dropped afterwards.
 * On a machine without PostgreSQL the postgres runs skip with a message; in CI
 * (CI=true) they fail instead, so they can never be skipped silently there.
 */
export type DialectName = "sqlite" | "postgres";

export const POSTGRES_ADMIN_URL = process.env.POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const requested = (process.env.DIALECTS ?? "sqlite,postgres")
  .split(",")
  .map((name) => name.trim())
  .filter((name): name is DialectName => name === "sqlite" || name === "postgres");

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const reachable = requested.includes("postgres") ? await postgresReachable() : false;
if (requested.includes("postgres") && !reachable) {
  if (process.env.CI === "true")
    throw new Error(`PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL}, and CI must run the postgres tests.`);
  console.warn(
    `[tally tests] PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL}: postgres runs are skipped (set POSTGRES_URL, or DIALECTS=sqlite).`,
  );
}

/** The dialects this run covers, for `describe.each`. */
export const DIALECTS: DialectName[] = requested.filter((name) => name === "sqlite" || reachable);

export interface TestDatabase {
  /** A `database` option for createTally. */
  url: string;
  dispose(): Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Runs `text` once the closed pools' connections to database `name` have finished leaving
 * (a brief wait): a forced drop then kills no connection that is still saying goodbye, and
 * a copy finds its template free.
 */
async function whenLeft(name: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    for (let attempt = 0; attempt < 40; attempt++) {
      const { rows } = await client.query("select count(*)::int as n from pg_stat_activity where datname = $1", [name]);
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.query(text);
  } finally {
    await client.end();
  }
}

const dropDatabase = (name: string) => whenLeft(name, `drop database if exists ${name} with (force)`);

/** The name of a test database of PostgreSQL from its URL (only names createTestDatabase makes). */
function postgresName(url: string): string {
  const name = new URL(url).pathname.slice(1);
  if (!/^tally_test_[0-9a-f]+$/.test(name)) throw new Error(`not a test database: ${url}`);
  return name;
}

/**
 * A fresh database of the dialect: a temporary SQLite file or a new PostgreSQL database,
 * empty, or a copy of the test database at `copyOf` (closed: no connection open on it).
 */
export async function createTestDatabase(dialect: DialectName, copyOf?: string): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const directory = mkdtempSync(join(tmpdir(), "tally-test-"));
    const file = join(directory, "tally.sqlite");
    // With its write-ahead log, should one be left.
    const source = copyOf?.replace(/^file:/, "");
    for (const suffix of ["", "-wal"])
      if (source !== undefined && existsSync(source + suffix)) copyFileSync(source + suffix, file + suffix);
    return {
      url: `file:${file}`,
      dispose: async () => rmSync(directory, { recursive: true, force: true }),
    };
  }
  const name = `tally_test_${randomBytes(6).toString("hex")}`;
  if (copyOf === undefined) await adminQuery(`create database ${name}`);
  else await whenLeft(postgresName(copyOf), `create database ${name} template ${postgresName(copyOf)}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dispose: () => dropDatabase(name),
  };
}

/** Removes a test database createTestDatabase made, by its URL (its SQLite file's folder, or the PostgreSQL database). */
export async function removeTestDatabase(url: string): Promise<void> {
  if (url.startsWith("file:")) rmSync(dirname(url.replace(/^file:/, "")), { recursive: true, force: true });
  else await dropDatabase(postgresName(url));
}

/**
 * Runs one statement on a connection of its own to a test database (what is really
 * stored, or what another process would do): read-only unless `write`; answers its rows.
 */
export async function runSql<Row = Record<string, unknown>>(
  dialect: DialectName,
  url: string,
  text: string,
  options: { write?: boolean } = {},
): Promise<Row[]> {
  if (dialect === "sqlite") {
    const connection = new Database(url.replace(/^file:/, ""), { readonly: !options.write, fileMustExist: true });
    try {
      const statement = connection.prepare(text);
      return (statement.reader ? statement.all() : (statement.run(), [])) as Row[];
    } finally {
      connection.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as Row[];
  } finally {
    await client.end();
  }
}
