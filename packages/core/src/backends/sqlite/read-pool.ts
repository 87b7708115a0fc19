import { Worker } from "node:worker_threads";
import { UnavailableError } from "../../shared/errors.js";
import { DEFAULT_QUERY_TIMEOUT_MS, queryTooLong } from "../../stats/database-readers.js";
import type { StatsQuery, TotalsQuery } from "../../stats/stats-query.js";
import type { StatsPage, StatsRunner, Totals } from "../../stats/stats.js";
import { workerUrl } from "./worker-url.js";

export type ReadRequest = { id: number; websiteId: number } & ({ kind: "page"; query: StatsQuery } | { kind: "totals"; query: TotalsQuery });
export type ReadResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };
/** What the thread says once its connection is open: from then on its queries are timed. */
export type ReadyMessage = { ready: true };

export interface SqliteReadOptions {
  /** A query running longer is stopped (its thread terminated) and answered 503. @default 20000 */
  timeoutMs?: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * Statistics of a SQLite file answered on a reader thread with its own read-only
 * connection: the host's event loop never runs a query, and a query past `timeoutMs` is
 * stopped by terminating its thread (better-sqlite3 cannot interrupt a statement
 * otherwise); the next query starts a new one.
 */
export function createSqliteReadPool(path: string, options: SqliteReadOptions = {}): StatsRunner & { close(): Promise<void> } {
  const timeoutMs = options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const pending = new Map<number, Pending>();
  let worker: Worker | null = null;
  let nextId = 1;
  let timer: NodeJS.Timeout | null = null;
  /** Whether the current thread has opened its connection (starting one is not the query's time). */
  let ready = false;
  /** Request ids in the order the thread answers them: the first is running. */
  const order: number[] = [];

  function fail(error: Error): void {
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
    order.length = 0;
    if (timer) clearTimeout(timer);
    timer = null;
  }

  /** The running query gets `timeoutMs` from the moment it reaches the front. */
  function arm(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (order.length === 0 || !ready) return;
    timer = setTimeout(() => {
      const stuck = worker;
      worker = null;
      void stuck?.terminate();
      fail(queryTooLong());
    }, timeoutMs);
    timer.unref();
  }

  function start(): Worker {
    const started = new Worker(workerUrl("read-worker.js"), { workerData: { path } });
    ready = false;
    started.on("message", (response: ReadResponse | ReadyMessage) => {
      if (worker !== started) return; // a stopped thread's last words
      if ("ready" in response) {
        ready = true;
        return arm();
      }
      const entry = pending.get(response.id);
      pending.delete(response.id);
      const index = order.indexOf(response.id);
      if (index >= 0) order.splice(index, 1);
      arm();
      if (pending.size === 0) started.unref();
      if (!entry) return;
      if (response.ok) entry.resolve(response.value);
      else entry.reject(new Error(response.message));
    });
    started.on("error", (error) => {
      if (worker === started) worker = null;
      fail(error);
    });
    started.unref();
    return started;
  }

  function send<T>(request: Omit<ReadRequest, "id">): Promise<T> {
    worker ??= start();
    const id = nextId++;
    worker.ref();
    const answered = new Promise<T>((resolve, reject) => pending.set(id, { resolve: resolve as (value: unknown) => void, reject }));
    order.push(id);
    if (order.length === 1) arm();
    worker.postMessage({ ...request, id });
    return answered;
  }

  return {
    page: (websiteId, query) => send<StatsPage>({ kind: "page", websiteId, query }),
    totals: (websiteId, query) => send<Totals>({ kind: "totals", websiteId, query }),
    async close() {
      fail(new UnavailableError("Tally is closing."));
      await worker?.terminate();
      worker = null;
    },
  };
}
