/**
 * The SQLite reader thread: answers statistics queries on a read-only connection of its
 * own, so a long query never holds the host's event loop (WAL lets it read while the
 * writer thread writes). One query at a time, in arrival order.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { Database as Schema } from "../../storage/schema.js";
import { databaseSources } from "../../stats/database-readers.js";
import { createStatsRunner } from "../../stats/stats.js";
import type { ReadRequest, ReadyMessage } from "./reads.js";
import { registerSqliteRegexp } from "../../shared/patterns.js";
import { serveRequests } from "./thread-messages.js";
import { sqliteDialect } from "./sql-dialect.js";

const { path } = workerData as { path: string };
const database = new Database(path, { readonly: true, fileMustExist: true });
database.pragma("busy_timeout = 5000");
registerSqliteRegexp(database);
const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database }) });
const runner = createStatsRunner(databaseSources(db, sqliteDialect));

serveRequests<ReadRequest>((request) => {
  if (request.kind === "page") return runner.page(request.websiteId, request.query);
  if (request.kind === "totals") return runner.totals(request.websiteId, request.query);
  if (request.kind === "hourly") return runner.hourly(request.websiteId, request.query);
  if (request.kind === "totalsOf") return runner.totalsOf(request.websiteId, request.queries);
  if (request.kind === "totalsBy") return runner.totalsBy(request.websiteId, request.query, request.by);
  if (request.kind === "revenue") return runner.revenue(request.websiteId, request.query);
  if (request.kind === "funnel") return runner.funnel(request.websiteId, request.query);
  if (request.kind === "visits") return runner.visits(request.websiteId, request.request);
  return runner.journey(request.websiteId, request.query);
});
parentPort!.postMessage({ ready: true } satisfies ReadyMessage);
