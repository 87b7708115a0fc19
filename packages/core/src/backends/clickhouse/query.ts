import { addDays } from "../../shared/calendar.js";
import type { StatRow } from "../../model/stats-schemas.js";
import { localBounds, pageRows, type CountRange, type CountReader, type Statistic } from "../../stats/count-reader.js";
import type { VisitDimension } from "../../model/filters.js";
import { queryTooLong } from "../../stats/database-readers.js";
import type { ClickhouseClient } from "./connect.js";

/**
 * The values a statement takes as query parameters (`{p0:String}`): every value a request
 * brings (filter values, patterns, property names) reaches ClickHouse this way, never in
 * the statement's text.
 */
export interface QueryParams {
  /** The placeholder of a new parameter holding `value`, of a ClickHouse type (`String`, `Array(String)`). */
  add(value: unknown, type: string): string;
  readonly values: Readonly<Record<string, unknown>>;
}

export function queryParams(): QueryParams {
  const values: Record<string, unknown> = {};
  let next = 0;
  return {
    add(value, type) {
      const name = `p${next++}`;
      values[name] = value;
      return `{${name}:${type}}`;
    },
    values,
  };
}

/** Query parameters as settings (`param_name`), which `command` passes like `query_params`. */
export const paramSettings = (params: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(params).map(([name, value]) => [`param_${name}`, String(value)]));

/**
 * Runs one website's statements within the query timeout: the range (`from`, `to`, `lo`, `hi`
 * around it, and `start`, `end`: its local seconds, a part of its days or all of them) and
 * the statistic's event and property as parameters.
 */
export type RunQuery = <Row>(query: string, range: CountRange, options?: RunOptions) => Promise<Row[]>;

export interface RunOptions {
  stat?: Statistic;
  params?: QueryParams;
  /** The first day whose visits are formed (`split`): the days before it have stored visits (stored-visits.ts); `lo` is two days before it. */
  split?: string;
}

export function queryRunner(client: ClickhouseClient, websiteId: number, timeoutMs: number): RunQuery {
  return async function run<Row>(query: string, range: CountRange, { stat, params, split }: RunOptions = {}) {
    const [start, end] = localBounds(range);
    const values = {
      ...params?.values,
      website: websiteId,
      from: range.from,
      to: range.to,
      // Visits started two days before the range may hold its hits; visits started on its last day may end the day after.
      lo: addDays(split ?? range.from, -2),
      split: split ?? range.from,
      hi: addDays(range.to, 1),
      start,
      end,
      event: stat?.event ?? "",
      property: stat?.property ?? "",
    };
    try {
      const result = await client.query({
        query,
        query_params: values,
        format: "JSONEachRow",
        clickhouse_settings: { max_execution_time: Math.max(1, Math.ceil(timeoutMs / 1000)) },
      });
      return await result.json<Row>();
    } catch (error) {
      if (/TIMEOUT_EXCEEDED|Timeout exceeded/i.test(String(error))) throw queryTooLong();
      throw error;
    }
  };
}

/** How a ClickHouse reader counts: one statistic's rows, and the day series of visits of a range together (the range's visits formed once). */
export interface Counts {
  all(stat: Statistic, range: CountRange): Promise<StatRow[]>;
  /** The series `visitSeries` counts, by name. */
  series: readonly string[];
  /** Those series over a range, by day or (`by`) by a visit column. */
  visitSeries(range: CountRange, by?: VisitDimension): Promise<Map<string, StatRow[]>>;
}

/** A count reader from its counts: pages and searches in memory, each range's visit series asked once per plan. */
export function countReader({ all, series: names, visitSeries }: Counts): CountReader {
  return {
    async page(stat, range, list) {
      return pageRows(await all(stat, range), list);
    },
    all,
    async allOf(requests) {
      const series = new Map<string, Promise<Map<string, StatRow[]>>>();
      return Promise.all(
        requests.map(async ({ stat, range }) => {
          if (!names.includes(stat.name)) return all(stat, range);
          const key = JSON.stringify([range.from, range.to, range.seconds, stat.by]);
          if (!series.has(key)) series.set(key, visitSeries(range, stat.by));
          return (await series.get(key)!).get(stat.name)!;
        }),
      );
    },
    async countsOf(stat, range, values) {
      const wanted = new Set(values);
      return new Map((await all(stat, range)).filter((row) => wanted.has(row.value)).map((row) => [row.value, row.count]));
    },
    rowsRead: async () => 0,
    source: (stat) => stat.name,
  };
}

/** Rows of several figures by value (`value`, then one column per name) as each figure's rows, without zeros. */
export const figureRows = (rows: readonly Record<string, string | number>[], names: readonly string[]): Map<string, StatRow[]> =>
  new Map(
    names.map((name) => [name, rows.map((row) => ({ value: String(row.value), count: Number(row[name]) })).filter((row) => row.count > 0)]),
  );
