// A fresh PostgreSQL database per bench run, dropped afterwards.
import pg from "pg";

export const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * A pool for the bench's own statements (baselines, copies). An error on a connection
 * idle in the pool (PostgreSQL ended it: a restart, an administrator, a crashed backend)
 * is reported and the connection dropped; the pool opens a new one for the next query.
 * Without the listener, Node would end the bench on the pool's 'error' event.
 */
export function createBenchPool(url, options = {}) {
  const pool = new pg.Pool({ connectionString: url, ...options });
  pool.on("error", (error) => console.warn(`  (an idle PostgreSQL connection ended: ${error.code ?? ""} ${error.message})`));
  return pool;
}

/** True when the admin database answers within a couple of seconds. */
export async function postgresReachable() {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Creates `tally_bench_<pid>_<n>` and returns its URL and a drop function. */
export async function createBenchDatabase(tag = "") {
  const name = `tally_bench_${process.pid}_${Date.now().toString(36)}${tag ? `_${tag}` : ""}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: ADMIN_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
