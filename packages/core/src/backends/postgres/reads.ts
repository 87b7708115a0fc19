import { sql, type Kysely } from "kysely";
import type { Database } from "../../storage/schema.js";
import { queryTooLong } from "../../stats/database-readers.js";
import { createStatsRunner, type StatsRunner, type StatsSources } from "../../stats/stats.js";

/** SQLSTATE of a statement cancelled by statement_timeout (or by an operator). */
const QUERY_CANCELED = "57014";

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
): StatsRunner {
  async function bounded<T>(read: (runner: StatsRunner) => Promise<T>): Promise<T> {
    try {
      return await db.transaction().execute(async (trx) => {
        await sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`.execute(trx);
        return read(createStatsRunner(sourcesOn(trx)));
      });
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
