import { dayText } from "../../shared/calendar.js";
import { liveOfHits, liveWindow, MAX_HITS, type HitRow, type Live } from "../../stats/live.js";
import { REALTIME_WINDOW_MS, type Realtime } from "../../stats/realtime.js";
import type { ClickhouseClient } from "./connect.js";
import { queryParams, queryRunner } from "./query.js";
import { HITS_TABLE } from "./schema.js";
import { at, ELEMENTS, KIND, visitsOf } from "./visits.js";

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** "Right now" from ClickHouse: visitor-days with a hit or signal in the last five minutes (as stats/realtime.ts counts the database's). */
export function createClickhouseRealtimeReader(client: ClickhouseClient, timeoutMs: number) {
  return async function readRealtime(websiteId: number, now: number = Date.now()): Promise<Realtime> {
    const since = now - REALTIME_WINDOW_MS;
    const params = queryParams();
    // The `day` bound (any zone's today is within a day of UTC's) keeps it on the sort key.
    const [row] = await queryRunner(client, websiteId, timeoutMs)<{ n: string | number }>(
      `SELECT toUInt64(uniqExact(day, visitor)) AS n FROM ${HITS_TABLE}
        WHERE website_id = {website:UInt32} AND day >= {lo:Date} AND timestamp >= fromUnixTimestamp64Milli(${params.add(since, "Int64")})`,
      { from: utcDay(since), to: utcDay(now) },
      { params },
    );
    return { visitors: Number(row?.n ?? 0) };
  };
}

/** A hit's row of the live view, its values as text (`visitor`: its visit's visitor-day). */
interface LiveHit {
  time: string | number;
  page: string;
  event: number;
  visitor: string;
  source: string;
  country: string;
}

/**
 * The live view from ClickHouse (stats/live.ts): the window's hits (pageviews and events)
 * by their local time in the website's zone, each with its visit's visitor-day, source and
 * country, from the visits formed at read time over the window's days; counted as the
 * database's, its values numbered here.
 */
export function createClickhouseLiveReader(client: ClickhouseClient, timeoutMs: number) {
  return async function readLive(websiteId: number, now: number, timezone: string): Promise<Omit<Live, "visitors" | "dropped">> {
    const { since, until } = liveWindow(now);
    const params = queryParams();
    const local = `utc + timeZoneOffset(toDateTime(utc, ${params.add(timezone, "String")}))`;
    const rows = await queryRunner(client, websiteId, timeoutMs)<LiveHit>(
      `WITH elements AS (${ELEMENTS})
      SELECT h.time AS time, h.page AS page, h.event AS event, concat(toString(v.vday), ' ', v.day_visitor) AS visitor,
        v.source AS source, v.country AS country
      FROM (
        SELECT visit, e.1 AS ms, toInt64(intDiv(e.1, 1000)) AS utc, ${local} AS time, e.${at("page")} AS page, toUInt8(e.2 = ${KIND.event}) AS event
        FROM elements WHERE e.2 != ${KIND.engagement} AND time >= ${params.add(since, "Int64")} AND time < ${params.add(until, "Int64")}
      ) AS h
      INNER JOIN (${visitsOf(["source", "country"])}) AS v ON v.visit = h.visit
      ORDER BY h.ms DESC LIMIT ${MAX_HITS}`,
      { from: dayText(Math.floor(since / 86_400)), to: dayText(Math.floor(now / 86_400)) },
      { params },
    );
    // The texts as numbers for the database's count (0: no value).
    const numbers = new Map<string, number>([["", 0]]);
    const numberOf = (text: string) => numbers.get(text) ?? numbers.set(text, numbers.size).get(text)!;
    const hits: HitRow[] = rows.map((row) => ({
      time: Number(row.time),
      page: numberOf(row.page),
      event: Number(row.event),
      visit: 0,
      visitor: numberOf(row.visitor),
      source: numberOf(row.source),
      country: numberOf(row.country),
    }));
    const texts = new Map([...numbers].map(([text, id]) => [id, text]));
    return liveOfHits(hits, since, async () => texts);
  };
}
