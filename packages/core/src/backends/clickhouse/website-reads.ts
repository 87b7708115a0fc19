import { createLocalClock } from "../../model/local-time.js";
import type { AlertReader, WatchedWebsite } from "../../alerts/alert-reader.js";
import type { ClickhouseClient } from "./connect.js";
import { likePattern } from "./conditions.js";
import { queryParams, type QueryParams } from "./query.js";
import { HITS_TABLE } from "./schema.js";

/** One answer of a statement over a website's hits, its parameters given as query parameters. */
async function firstRow<Row>(client: ClickhouseClient, query: string, params: QueryParams, timeoutMs: number): Promise<Row | undefined> {
  const result = await client.query({
    query,
    query_params: params.values,
    format: "JSONEachRow",
    clickhouse_settings: { max_execution_time: Math.max(1, Math.ceil(timeoutMs / 1000)) },
  });
  return (await result.json<Row>())[0];
}

/** The first day with hits of a website (`Y-m-d`, its time zone) in ClickHouse; null before any. */
export function createClickhouseFirstDay(client: ClickhouseClient, timeoutMs: number) {
  return async function firstDay(websiteId: number): Promise<string | null> {
    const params = queryParams();
    const row = await firstRow<{ first: string }>(
      client,
      `SELECT if(count() = 0, '', toString(min(day))) AS first FROM ${HITS_TABLE} WHERE website_id = ${params.add(websiteId, "UInt32")}`,
      params,
      timeoutMs,
    );
    return row?.first ? row.first : null;
  };
}

/**
 * What alert rules count, from `tally_hits`: a span of moments becomes a span of the
 * website's local seconds (rounded up to whole seconds, as the database's reader does), read
 * on the sort key by its local days. A visitor is a visitor-day with a pageview or event in
 * the span.
 */
export function createClickhouseAlertReader(client: ClickhouseClient, timeoutMs: number): AlertReader {
  const localTime = createLocalClock();
  const upTo = (website: WatchedWebsite, at: number) => localTime(website.timezone, at + 999).seconds;

  /** The hits (pageviews and events, `only` narrowing them) of the span, as a WHERE clause. */
  function spanOf(website: WatchedWebsite, from: number, to: number, params: QueryParams, only = "kind != 'engagement'"): string {
    const [start, end] = [upTo(website, from), upTo(website, to)];
    const day = (seconds: number) => new Date(Math.floor(seconds / 86_400) * 86_400_000).toISOString().slice(0, 10);
    return (
      `website_id = ${params.add(website.id, "UInt32")} AND day BETWEEN ${params.add(day(start), "Date")} AND ${params.add(day(end), "Date")}` +
      ` AND toUnixTimestamp(local_time) >= ${params.add(start, "Int64")} AND toUnixTimestamp(local_time) < ${params.add(end, "Int64")} AND ${only}`
    );
  }

  async function countVisitors(where: string, params: QueryParams): Promise<number> {
    const row = await firstRow<{ n: string | number }>(
      client,
      `SELECT toUInt64(uniqExact(day, visitor)) AS n FROM ${HITS_TABLE} WHERE ${where}`,
      params,
      timeoutMs,
    );
    return Number(row?.n ?? 0);
  }

  return {
    visitors(website, from, to) {
      const params = queryParams();
      return countVisitors(spanOf(website, from, to, params), params);
    },
    async hasPageview(website, from, to) {
      const params = queryParams();
      const where = spanOf(website, from, to, params, "kind = 'pageview'");
      return (await firstRow(client, `SELECT 1 AS found FROM ${HITS_TABLE} WHERE ${where} LIMIT 1`, params, timeoutMs)) !== undefined;
    },
    goalVisitors(website, goal, from, to) {
      const params = queryParams();
      const matching =
        goal.kind === "page"
          ? `kind = 'pageview' AND page LIKE ${params.add(likePattern(goal.pattern), "String")}`
          : `kind = 'event' AND event = ${params.add(goal.name, "String")}`;
      return countVisitors(spanOf(website, from, to, params, matching), params);
    },
  };
}
