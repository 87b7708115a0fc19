import type { Hit } from "../../model/hit.js";
import type { EngineStore } from "../../storage/store.js";
import type { ClickhouseClient } from "./connect.js";
import { HIT_DIMENSIONS } from "../../model/dimensions.js";
import { HITS_TABLE, schemaStatements, type SchemaPlace } from "./schema.js";
import { clickhouseFaultOf, StoreUnavailableError } from "../../storage/store-faults.js";

/** A hit as a row of `tally_hits` (JSONEachRow). */
export function hitRow(hit: Hit): Record<string, unknown> {
  const row: Record<string, unknown> = {
    website_id: hit.websiteId,
    day: hit.day,
    visitor: hit.visitorHash,
    local_time: hit.localTime,
    timestamp: hit.timestamp,
    kind: hit.kind,
    previous_visitor: hit.previousVisitorHash ?? "",
    next_visitor: hit.nextVisitorHash ?? "",
    engaged_ms: hit.engagedMs,
    scroll_depth: hit.scrollDepth,
    vitals: Object.fromEntries(Object.entries(hit.vitals ?? {}).filter((entry): entry is [string, number] => entry[1] !== null)),
    props: hit.props ?? {},
  };
  for (const kind of HIT_DIMENSIONS) row[kind] = hit.values[kind];
  return row;
}

/** The hit log in ClickHouse: hits appended once per batch, deleted by website or age. */
export interface HitLog {
  /** Appends the hits; a batch id written before (its answer lost) is not written again. */
  append(hits: readonly Hit[], batchId: string): Promise<void>;
  /** Resolves when ClickHouse answers (`GET /health` of an idle Tally). */
  probe(): Promise<void>;
  deleteWebsite(websiteId: number): Promise<void>;
  /** Deletes a website's hits older than a local time (retention). */
  deleteOlderThan(websiteId: number, localSeconds: number): Promise<void>;
  close(): Promise<void>;
}

/** Makes the tables (idempotent) and answers the hit log on them. */
export async function openHitLog(client: ClickhouseClient, place: SchemaPlace = {}): Promise<HitLog> {
  for (const query of schemaStatements(place)) await client.command({ query });
  // A cluster's hits are deleted on every shard, through each shard's own table.
  const onCluster = place.cluster === undefined ? "" : ` ON CLUSTER \`${place.cluster}\``;
  const table = place.cluster === undefined ? HITS_TABLE : `${HITS_TABLE}_local`;
  async function remove(where: string, params: Record<string, unknown>): Promise<void> {
    const settings = { mutations_sync: "2", ...paramSettings(params) };
    await client.command({ query: `ALTER TABLE ${table}${onCluster} DELETE WHERE ${where}`, clickhouse_settings: settings });
  }
  return {
    async append(hits, batchId) {
      if (hits.length === 0) return;
      await client.insert({
        table: HITS_TABLE,
        values: hits.map(hitRow),
        format: "JSONEachRow",
        clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: batchId, date_time_input_format: "best_effort" },
      });
    },
    async probe() {
      await client.command({ query: "SELECT 1" });
    },
    deleteWebsite: (websiteId) => remove("website_id = {website:UInt32}", { website: websiteId }),
    deleteOlderThan: (websiteId, localSeconds) =>
      remove("website_id = {website:UInt32} AND local_time < toDateTime({before:UInt32}, 'UTC')", {
        website: websiteId,
        before: localSeconds,
      }),
    close: () => client.close(),
  };
}

/** Query parameters as settings (`param_name`), which `command` passes like `query_params`. */
const paramSettings = (params: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(params).map(([name, value]) => [`param_${name}`, String(value)]));

/** Runs a call to ClickHouse; its failure is a fault named after ClickHouse (503 and `GET /health` say which store refuses). */
async function atClickhouse(call: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch (error) {
    throw new StoreUnavailableError(clickhouseFaultOf(error));
  }
}

/**
 * The engine's writer with every written batch also appended to the hit log, under the same
 * batch id: a batch retried after either write failed is counted once in each (the database
 * skips an id it recorded, ClickHouse an insert token it saw). While ClickHouse refuses, the
 * write queue keeps the batches, in order, as it does while the database refuses.
 */
export function withHitLog(store: EngineStore, log: HitLog): EngineStore {
  return {
    ...store,
    async probe() {
      await store.probe();
      await atClickhouse(() => log.probe());
    },
    ...(store.check ? { check: store.check.bind(store) } : {}),
    async write(hits, batchId) {
      await store.write(hits, batchId);
      await atClickhouse(() => log.append(hits, batchId));
    },
    async deleteWebsite(websiteId) {
      await store.deleteWebsite(websiteId);
      await log.deleteWebsite(websiteId);
    },
    async deleteOlderThan(websiteId, localSeconds, limit) {
      const deleted = await store.deleteOlderThan(websiteId, localSeconds, limit);
      if (deleted < limit) await log.deleteOlderThan(websiteId, localSeconds);
      return deleted;
    },
    async close() {
      await store.close();
      await log.close();
    },
  };
}
