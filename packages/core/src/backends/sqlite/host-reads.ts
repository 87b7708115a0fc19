import type { CountReader, CountRequest, DayRange, Statistic } from "../../stats/count-reader.js";
import { queryTooLarge } from "../../stats/database-readers.js";
import type { PathReader } from "../../stats/path-reader.js";
import { createStatsRunner, type StatsRunner, type StatsSources } from "../../stats/stats.js";

/**
 * Most stored rows one statement may start from on the host's thread (rollup rows, or
 * visits or hits in the range): about half a second of work.
 */
export const HOST_THREAD_ROW_BUDGET = 500_000;

export interface HostReadOptions {
  /** A call that cannot start within this long answers 503. */
  timeoutMs: number;
  /** @default HOST_THREAD_ROW_BUDGET */
  rowBudget?: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Statistics of a SQLite database only the host's thread can reach (in memory, or a
 * Kysely instance): better-sqlite3 runs each statement synchronously and cannot stop it,
 * so a statement's work is bounded before it starts (past `rowBudget` source rows the
 * call answers 503), calls run one at a time, and the host's I/O gets a turn of the
 * event loop before every statement, so requests like /script.js are answered between them.
 */
export function createHostSqliteReads(
  { readerFor, pathsFor }: StatsSources,
  { timeoutMs, rowBudget = HOST_THREAD_ROW_BUDGET }: HostReadOptions,
): StatsRunner {
  function bounded(reader: CountReader): CountReader {
    /** Each source (visits or hits, rollups) and range is measured once per request. */
    const admitted = new Map<string, Promise<void>>();
    function admitOne(stat: Statistic, range: DayRange): Promise<void> {
      const key = `${reader.source(stat)}|${range.from}|${range.to}`;
      let admission = admitted.get(key);
      if (!admission) {
        admission = (async () => {
          await nextTurn();
          if ((await reader.rowsRead(stat, range, rowBudget)) > rowBudget) throw queryTooLarge();
        })();
        admitted.set(key, admission);
      }
      return admission;
    }
    async function admit(requests: readonly CountRequest[]): Promise<void> {
      // One measure per source and range: statistics of the same rows cost the same.
      const bySource = new Map(
        requests.map((request) => [`${reader.source(request.stat)}|${request.range.from}|${request.range.to}`, request]),
      );
      for (const { stat, range } of bySource.values()) await admitOne(stat, range);
      await nextTurn();
    }
    return {
      async page(stat, range, list) {
        await admit([{ stat, range }]);
        return reader.page(stat, range, list);
      },
      async all(stat, range) {
        await admit([{ stat, range }]);
        return reader.all(stat, range);
      },
      async allOf(requests) {
        await admit(requests);
        return reader.allOf(requests);
      },
      async countsOf(stat, range, values) {
        await admit([{ stat, range }]);
        return reader.countsOf(stat, range, values);
      },
      rowsRead: (stat, range, atMost) => reader.rowsRead(stat, range, atMost),
      source: (stat) => reader.source(stat),
    };
  }

  /** Funnels and journeys read the hits of their range: measured the same way before each statement. */
  function boundedPaths(reader: PathReader): PathReader {
    async function admit(range: DayRange): Promise<void> {
      await nextTurn();
      if ((await reader.rowsRead(range, rowBudget)) > rowBudget) throw queryTooLarge();
      await nextTurn();
    }
    return {
      ...reader,
      async funnelVisitors(steps, range) {
        await admit(range);
        return reader.funnelVisitors(steps, range);
      },
      async journeyCounts(start, range, shape) {
        await admit(range);
        return reader.journeyCounts(start, range, shape);
      },
      async engagementSignals(range) {
        await admit(range);
        return reader.engagementSignals(range);
      },
      async revenue(range) {
        await admit(range);
        return reader.revenue(range);
      },
      async visits(request) {
        if (request.kind !== "session") await admit(request.query);
        return reader.visits(request);
      },
    };
  }

  const runner = createStatsRunner({
    readerFor: (websiteId, query, columnCache) => bounded(readerFor(websiteId, query, columnCache)),
    pathsFor: (websiteId, conditions) => boundedPaths(pathsFor(websiteId, conditions)),
  });
  let queue: Promise<unknown> = Promise.resolve();

  /** One call at a time; one that waited past `timeoutMs` for its turn is refused instead of run. */
  function oneAtATime<T>(read: () => Promise<T>): Promise<T> {
    const queuedAt = performance.now();
    const result = queue.then(() => {
      if (performance.now() - queuedAt > timeoutMs) throw queryTooLarge();
      return read();
    });
    queue = result.catch(() => {});
    return result;
  }

  return {
    page: (websiteId, query) => oneAtATime(() => runner.page(websiteId, query)),
    totals: (websiteId, query) => oneAtATime(() => runner.totals(websiteId, query)),
    hourly: (websiteId, query) => oneAtATime(() => runner.hourly(websiteId, query)),
    totalsOf: (websiteId, queries) => oneAtATime(() => runner.totalsOf(websiteId, queries)),
    totalsBy: (websiteId, query, by) => oneAtATime(() => runner.totalsBy(websiteId, query, by)),
    revenue: (websiteId, query) => oneAtATime(() => runner.revenue(websiteId, query)),
    funnel: (websiteId, query) => oneAtATime(() => runner.funnel(websiteId, query)),
    journey: (websiteId, query) => oneAtATime(() => runner.journey(websiteId, query)),
    visits: (websiteId, request) => oneAtATime(() => runner.visits(websiteId, request)),
  };
}
