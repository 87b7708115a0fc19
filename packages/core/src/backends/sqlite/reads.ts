import { Worker } from "node:worker_threads";
import { UnavailableError } from "../../shared/errors.js";
import { DEFAULT_QUERY_TIMEOUT_MS, queryTooLong } from "../../stats/database-readers.js";
import type { StatsQuery, TotalsQuery } from "../../stats/stats-query.js";
import type { HourFigures, StatsPage, StatsRunner, Totals, ValueTotals } from "../../stats/stats.js";
import type { VisitDimension } from "../../model/filters.js";
import type { RevenueSum } from "../../model/revenue.js";
import type { JourneyQuery } from "../../stats/path-query.js";
import type { FunnelAnswer, FunnelRun } from "../../stats/paths.js";
import type { JourneyResult } from "../../model/path-schemas.js";
import type { VisitsAnswer, VisitsRequest } from "../../stats/sessions.js";
import { createThreadClient, type ThreadClient } from "./thread-messages.js";
import { workerUrl } from "./worker-url.js";

export type ReadRequest = { websiteId: number } & (
  | { kind: "page"; query: StatsQuery }
  | { kind: "totals"; query: TotalsQuery }
  | { kind: "hourly"; query: TotalsQuery }
  | { kind: "totalsOf"; queries: readonly TotalsQuery[] }
  | { kind: "totalsBy"; query: TotalsQuery; by: VisitDimension }
  | { kind: "revenue"; query: TotalsQuery }
  | { kind: "funnel"; query: FunnelRun }
  | { kind: "journey"; query: JourneyQuery }
  | { kind: "visits"; request: VisitsRequest }
);
/** What the thread says once its connection is open: from then on its queries are timed. */
export type ReadyMessage = { ready: true };

export interface SqliteReadOptions {
  /** A query running longer is stopped (its thread terminated) and answered 503. @default 20000 */
  timeoutMs?: number;
  /** The thread exits after this long without a query; the next query starts another. @default 60000 */
  idleExitMs?: number;
}

/**
 * Statistics of a SQLite file answered on a reader thread with its own read-only
 * connection: the host's event loop never runs a query, and a query past `timeoutMs` is
 * stopped by terminating its thread (better-sqlite3 cannot interrupt a statement
 * otherwise); the next query starts a new one. An idle thread exits after `idleExitMs`.
 */
export function createSqliteReadPool(path: string, options: SqliteReadOptions = {}): StatsRunner & { close(): Promise<void> } {
  const timeoutMs = options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const idleExitMs = options.idleExitMs ?? 60_000;
  let worker: { thread: Worker; client: ThreadClient<ReadRequest> } | null = null;
  let timer: NodeJS.Timeout | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  /** Whether the current thread has opened its connection (starting one is not the query's time). */
  let ready = false;
  /** Request ids in the order the thread answers them: the first is running. */
  const order: number[] = [];

  /** The running query gets `timeoutMs` from the moment it reaches the front. */
  function arm(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (order.length === 0 || !ready) return;
    timer = setTimeout(() => {
      const stuck = worker;
      worker = null;
      order.length = 0;
      stuck?.client.fail(queryTooLong());
      void stuck?.thread.terminate();
    }, timeoutMs);
    timer.unref();
  }

  function start(): NonNullable<typeof worker> {
    const thread = new Worker(workerUrl("read-worker.js"), { workerData: { path } });
    const client = createThreadClient<ReadRequest>(thread, (response) => new Error(response.message));
    ready = false;
    thread.on("message", (message: { ready?: true }) => {
      if (message.ready && worker?.thread === thread) {
        ready = true;
        arm();
      }
    });
    client.listen((id) => {
      const index = order.indexOf(id);
      if (index >= 0) order.splice(index, 1);
      if (worker?.thread !== thread) return;
      arm();
      if (order.length === 0) (idleTimer = setTimeout(retireWhenIdle, idleExitMs)).unref();
    });
    thread.on("error", () => {
      if (worker?.thread !== thread) return;
      worker = null;
      order.length = 0;
      arm();
    });
    return { thread, client };
  }

  /** No query for `idleExitMs`: the thread and its connection go until the next query. */
  function retireWhenIdle(): void {
    idleTimer = null;
    if (!worker || order.length > 0) return;
    const idle = worker;
    worker = null;
    void idle.thread.terminate();
  }

  function send<T>(request: ReadRequest): Promise<T> {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    worker ??= start();
    const { id, answer } = worker.client.send(request);
    order.push(id);
    if (order.length === 1) arm();
    return answer as Promise<T>;
  }

  return {
    page: (websiteId, query) => send<StatsPage>({ kind: "page", websiteId, query }),
    totals: (websiteId, query) => send<Totals>({ kind: "totals", websiteId, query }),
    hourly: (websiteId, query) => send<HourFigures[]>({ kind: "hourly", websiteId, query }),
    totalsOf: (websiteId, queries) => send<Totals[]>({ kind: "totalsOf", websiteId, queries }),
    totalsBy: (websiteId, query, by) => send<ValueTotals[]>({ kind: "totalsBy", websiteId, query, by }),
    revenue: (websiteId, query) => send<RevenueSum[]>({ kind: "revenue", websiteId, query }),
    funnel: (websiteId, query) => send<FunnelAnswer>({ kind: "funnel", websiteId, query }),
    journey: (websiteId, query) => send<JourneyResult>({ kind: "journey", websiteId, query }),
    visits: (websiteId, request) => send<VisitsAnswer | null>({ kind: "visits", websiteId, request }),
    async close() {
      if (idleTimer) clearTimeout(idleTimer);
      const closing = worker;
      worker = null;
      order.length = 0;
      arm();
      closing?.client.fail(new UnavailableError("Tally is closing."));
      await closing?.thread.terminate();
    },
  };
}
