import { sql, type Kysely } from "kysely";
import type { Database } from "../../storage/schema.js";
import { queryTooLong } from "../../stats/database-readers.js";
import { createStatsRunner, type StatsRunner, type StatsSources } from "../../stats/stats.js";

/** SQLSTATE of a statement cancelled by statement_timeout (or by an operator). */
const QUERY_CANCELED = "57014";

export interface PostgresReadOptions {
  /**
   * The driver sends a query without parameters as one simple query, several statements in it
   * (node-postgres does): the transaction then starts with its time limit in one round trip.
   */
  statementsInOneQuery?: boolean;
}

/**
 * Statistics on PostgreSQL, each call in a transaction of its own whose statements may
 * run at most `timeoutMs` (`statement_timeout`, local to that transaction, so writes on
 * the same pool keep theirs). A statement past it is cancelled by the server and the
 * call answers UnavailableError (HTTP 503); the connection goes back to the pool healthy.
 */
export function createPostgresStatsReads(
  db: Kysely<Database>,
  sourcesOn: (db: Kysely<Database>) => StatsSources,
  timeoutMs: number,
  options: PostgresReadOptions = {},
): StatsRunner {
  // A number's text: digits, a point, an exponent or a sign, never a quote.
  const setLimit = `select set_config('statement_timeout', '${String(Number(timeoutMs))}', true)`;

  /** `begin` and the time limit in one message, the reads, then `commit` (or `rollback`). */
  const inOneMessage = <T>(read: (on: Kysely<Database>) => Promise<T>): Promise<T> =>
    db.connection().execute(async (connection) => {
      await sql.raw(`begin; ${setLimit}`).execute(connection);
      let result: T;
      try {
        result = await read(connection);
      } catch (error) {
        await sql`rollback`.execute(connection).catch(() => {});
        throw error;
      }
      await sql`commit`.execute(connection);
      return result;
    });

  const inTransaction = <T>(read: (on: Kysely<Database>) => Promise<T>): Promise<T> =>
    db.transaction().execute(async (trx) => {
      await sql.raw(setLimit).execute(trx);
      return read(trx);
    });

  const limited = options.statementsInOneQuery ? inOneMessage : inTransaction;

  async function bounded<T>(read: (runner: StatsRunner) => Promise<T>): Promise<T> {
    try {
      return await limited((on) => read(createStatsRunner(sourcesOn(on))));
    } catch (error) {
      if (typeof error === "object" && error !== null && (error as { code?: unknown }).code === QUERY_CANCELED) throw queryTooLong();
      throw error;
    }
  }
  return {
    page: (websiteId, query) => bounded((runner) => runner.page(websiteId, query)),
    totals: (websiteId, query) => bounded((runner) => runner.totals(websiteId, query)),
    hourly: (websiteId, query) => bounded((runner) => runner.hourly(websiteId, query)),
    totalsOf: (websiteId, queries) => bounded((runner) => runner.totalsOf(websiteId, queries)),
    totalsBy: (websiteId, query, by) => bounded((runner) => runner.totalsBy(websiteId, query, by)),
    revenue: (websiteId, query) => bounded((runner) => runner.revenue(websiteId, query)),
    funnel: (websiteId, query) => bounded((runner) => runner.funnel(websiteId, query)),
    journey: (websiteId, query) => bounded((runner) => runner.journey(websiteId, query)),
    visits: (websiteId, request) => bounded((runner) => runner.visits(websiteId, request)),
  };
}
