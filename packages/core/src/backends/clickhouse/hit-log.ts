import type { Hit } from "../../model/hit.js";
import type { EngineStore } from "../../storage/store.js";
import type { ClickhouseClient } from "./connect.js";
import { paramSettings } from "./query.js";
import { HIT_DIMENSIONS } from "../../model/dimensions.js";
import {
  HITS_TABLE,
  schemaStatements,
  upgradeStatements,
  VISIT_DAYS_TABLE,
  VISITOR_DAYS_TABLE,
  VISITS_TABLE,
  visitSchemaStatements,
  type SchemaPlace,
} from "./schema.js";
import { clickhouseFaultOf, StoreUnavailableError } from "../../storage/store-faults.js";

/** The columns of `tally_hits` a hit's row gives, in the order `hitRow` gives them. */
export const HIT_ROW_COLUMNS = [
  "website_id",
  "day",
  "visitor",
  "local_time",
  "timestamp",
  "kind",
  "previous_visitor",
  "next_visitor",
  "engaged_ms",
  "scroll_depth",
  "vitals",
  "props",
  ...HIT_DIMENSIONS,
  "arrival",
  "revenue_amount",
  "revenue_currency",
] as const;

const NONE: Readonly<Record<string, never>> = {};

/** An engagement signal's vitals that were sent (a Map column holds no nulls). */
function sentVitals(vitals: Hit["vitals"]): Record<string, number> {
  if (!vitals) return NONE;
  const sent: Record<string, number> = {};
  for (const [name, value] of Object.entries(vitals)) if (value !== null) sent[name] = value;
  return sent;
}

/**
 * A hit as a row of `tally_hits` (JSONCompactEachRow, the columns of HIT_ROW_COLUMNS: an
 * array, a third of the text of an object with the names), `arrival` its place in the order
 * hits were written; an event's revenue beside it.
 */
export function hitRow(hit: Hit, arrival = 0): unknown[] {
  const row: unknown[] = [
    hit.websiteId,
    hit.day,
    hit.visitorHash,
    hit.localTime,
    hit.timestamp,
    hit.kind,
    hit.previousVisitorHash ?? "",
    hit.nextVisitorHash ?? "",
    hit.engagedMs,
    hit.scrollDepth,
    sentVitals(hit.vitals),
    hit.props ?? NONE,
  ];
  for (const kind of HIT_DIMENSIONS) row.push(hit.values[kind]);
  row.push(arrival, hit.revenue?.amount ?? 0, hit.revenue?.currency ?? "");
  return row;
}

/** The hit log in ClickHouse: hits appended once per batch, deleted by website or age. */
export interface HitLog {
  /** Appends the hits; a batch id written before (its answer lost) is not written again. */
  append(hits: readonly Hit[], batchId: string): Promise<void>;
  /** Resolves when ClickHouse answers (`GET /health` of an idle Tally). */
  probe(): Promise<void>;
  deleteWebsite(websiteId: number): Promise<void>;
  /**
   * Retention: deletes each website's hits older than its local cutoff (seconds, at a day's
   * start). A month every website's hits of which are past their cutoffs goes whole (its
   * partition dropped: a file operation); a website's older hits in months kept are deleted
   * row by row, and only when there are some. Websites not named keep their hits.
   */
  retain(cutoffs: ReadonlyMap<number, number>): Promise<void>;
  close(): Promise<void>;
}

/** Makes the tables (idempotent) and answers the hit log on them. */
export async function openHitLog(client: ClickhouseClient, place: SchemaPlace = {}): Promise<HitLog> {
  for (const query of [...schemaStatements(place), ...upgradeStatements(place), ...visitSchemaStatements(place)])
    await client.command({ query });
  /** The last arrival given: about the time in microseconds, one more for each hit. */
  let arrival = 0;
  // A cluster's hits are deleted on every shard, through each shard's own table.
  const onCluster = place.cluster === undefined ? "" : ` ON CLUSTER \`${place.cluster}\``;
  const own = (table: string) => (place.cluster === undefined ? table : `${table}_local`);
  /** The hits, and the stored visits formed from them, each table with the name of its day column. */
  const tables = [
    [own(HITS_TABLE), "day"],
    [own(VISITS_TABLE), "vday"],
    [own(VISITOR_DAYS_TABLE), "day"],
    [own(VISIT_DAYS_TABLE), "day"],
  ] as const;
  /** Deletes a website's rows (`where`, on the day column `day`) from the tables (every one, or the stored visits' only). */
  async function remove(
    where: (day: string) => string,
    params: Record<string, unknown>,
    from: readonly (readonly [string, string])[] = tables,
  ): Promise<void> {
    const settings = { mutations_sync: "2", ...paramSettings(params) };
    for (const [table, day] of from)
      await client.command({ query: `ALTER TABLE ${table}${onCluster} DELETE WHERE ${where(day)}`, clickhouse_settings: settings });
  }
  const olderThan = (website: number, cutoffDay: number) => ({
    website,
    before: new Date(cutoffDay * 86_400_000).toISOString().slice(0, 10),
  });
  const older = (day: string) => `website_id = {website:UInt32} AND ${day} < {before:Date}`;
  return {
    async append(hits, batchId) {
      if (hits.length === 0) return;
      arrival = Math.max(arrival, Date.now() * 1000);
      await client.insert({
        table: HITS_TABLE,
        columns: HIT_ROW_COLUMNS,
        values: hits.map((hit) => hitRow(hit, ++arrival)),
        format: "JSONCompactEachRow",
        clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: batchId, date_time_input_format: "best_effort" },
      });
    },
    async probe() {
      await client.command({ query: "SELECT 1" });
    },
    deleteWebsite: (websiteId) => remove(() => "website_id = {website:UInt32}", { website: websiteId }),
    async retain(cutoffs) {
      const result = await client.query({
        query: `SELECT toYYYYMM(day) AS month, website_id, toUInt32(min(day)) AS earliest, toUInt32(max(day)) AS latest FROM ${HITS_TABLE} GROUP BY month, website_id`,
        format: "JSONEachRow",
      });
      const held = (await result.json<{ month: number; website_id: number; earliest: number; latest: number }>()).map((row) => ({
        month: Number(row.month),
        website: Number(row.website_id),
        earliest: Number(row.earliest),
        latest: Number(row.latest),
      }));
      const cutoffDay = (website: number) => {
        const cutoff = cutoffs.get(website);
        return cutoff === undefined ? -Infinity : Math.floor(cutoff / 86_400);
      };
      const months = new Set(held.map((row) => row.month));
      for (const row of held) if (row.latest >= cutoffDay(row.website)) months.delete(row.month);
      for (const month of months)
        for (const [table] of tables) await client.command({ query: `ALTER TABLE ${table}${onCluster} DROP PARTITION ${month}` });
      const olderHits = new Set(
        held.filter((row) => !months.has(row.month) && row.earliest < cutoffDay(row.website)).map((row) => row.website),
      );
      for (const website of olderHits) await remove(older, olderThan(website, cutoffDay(website)));
      // Stored days past the cutoff that no hits held (a day without hits is stored too) go with the stored visits.
      const stored = await client.query({
        query: `SELECT website_id, toUInt32(min(day)) AS earliest FROM ${VISIT_DAYS_TABLE} GROUP BY website_id`,
        format: "JSONEachRow",
      });
      for (const row of await stored.json<{ website_id: number; earliest: number }>()) {
        const website = Number(row.website_id);
        if (!olderHits.has(website) && Number(row.earliest) < cutoffDay(website))
          await remove(older, olderThan(website, cutoffDay(website)), tables.slice(1));
      }
    },
    close: () => client.close(),
  };
}

/** Runs a call to ClickHouse; its failure is a fault named after ClickHouse (503 and `GET /health` say which store refuses). */
async function atClickhouse(call: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch (error) {
    throw new StoreUnavailableError(clickhouseFaultOf(error));
  }
}

/**
 * The engine's writer with ClickHouse holding the events: every batch goes to the hit log
 * only, under its batch id (a batch retried after its insert failed, or after its answer was
 * lost, is kept once: ClickHouse skips an insert token it saw among the last 10,000). The
 * database keeps what is not an event: the daily salts, and `probe` proves it takes writes;
 * it writes no visitor rows, visits, hits or rollups. Conversions of the outbox (claimed
 * under their batch id first) have their rows deleted by `conversionsWritten` once ClickHouse
 * took them. While ClickHouse refuses, the write queue keeps the batches, in order, as it does
 * while the database refuses.
 */
export function withHitLog(
  store: EngineStore,
  log: HitLog,
  conversionsWritten: (outboxIds: readonly number[]) => Promise<void>,
): EngineStore {
  return {
    async probe() {
      await store.probe();
      await atClickhouse(() => log.probe());
    },
    ...(store.check ? { check: store.check.bind(store) } : {}),
    async write(hits, batchId) {
      await atClickhouse(() => log.append(hits, batchId));
      const outboxIds = hits.flatMap((hit) => (hit.outboxId === undefined ? [] : [hit.outboxId]));
      if (outboxIds.length > 0) await conversionsWritten(outboxIds);
    },
    salt: (day, candidate) => store.salt(day, candidate),
    forgetBefore: (day) => store.forgetBefore(day),
    async deleteWebsite(websiteId) {
      await store.deleteWebsite(websiteId);
      await log.deleteWebsite(websiteId);
    },
    // Rows the database kept before ClickHouse was configured (or copied from it) go by its retention too.
    deleteOlderThan: (websiteId, localSeconds, limit) => store.deleteOlderThan(websiteId, localSeconds, limit),
    retainHits: (cutoffs) => log.retain(cutoffs),
    async close() {
      await store.close();
      await log.close();
    },
  };
}
