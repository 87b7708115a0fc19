import type { Kysely } from "kysely";
import { HIT_DIMENSIONS, type DimensionValues } from "../../model/dimensions.js";
import type { CheckedVitals } from "../../model/hit-input.js";
import type { Hit, HitKind } from "../../model/hit.js";
import { TallyError } from "../../shared/errors.js";
import type { Database } from "../../storage/schema.js";
import type { EngineStore } from "../../storage/store.js";
import { WEBSITE_EVENT_TABLES } from "../../ingest/engine-writes.js";
import type { ClickhouseClient } from "./connect.js";
import { HITS_TABLE, quoted } from "./schema.js";

/** Hits and engagement signals per write into the database: each write is one batch id, skipped when run again. */
export const COPY_OUT_HITS_PER_WRITE = 5000;

/** The batch ids of a copy out of ClickHouse begin with this, then `website:day:part`. */
const BATCH_PREFIX = "from-clickhouse:";

export interface HitsCopyOutOptions {
  /** Told after each write of the rows copied (or found copied before) so far. */
  onProgress?: ((progress: HitsCopyOutProgress) => void) | undefined;
  /** @default COPY_OUT_HITS_PER_WRITE */
  hitsPerWrite?: number | undefined;
  /**
   * Deletes the events the database holds of ClickHouse's websites first (those it kept from
   * before ClickHouse was configured: ClickHouse holds them too), instead of refusing.
   * @default false
   */
  force?: boolean | undefined;
}

export interface HitsCopyOutProgress {
  /** The website and local day being copied. */
  websiteId: number;
  day: string;
  /** Hits and engagement signals copied so far, and of every website. */
  rows: number;
  totalRows: number;
}

/** A row of `tally_hits` as read here: times as numbers, 64-bit integers as ClickHouse quotes them. */
type HitRow = Record<string, unknown> & {
  kind: HitKind;
  website_id: number;
  local_day: string;
  visitor: string;
  previous_visitor: string;
  next_visitor: string;
  local_seconds: string | number;
  ms: string | number;
  engaged_ms: number;
  scroll_depth: number | null;
  vitals: Record<string, number>;
  props: Record<string, string>;
  revenue_amount: string | number;
  revenue_currency: string;
};

const VITALS = ["lcp", "inp", "cls", "fcp", "ttfb"] as const;

/** The columns read of each row: every column a hit is made of, its times as epoch seconds and milliseconds. */
const SELECTED = [
  "kind",
  "website_id",
  "toString(day) AS local_day",
  "visitor",
  "previous_visitor",
  "next_visitor",
  "toUnixTimestamp(local_time) AS local_seconds",
  "toUnixTimestamp64Milli(timestamp) AS ms",
  "engaged_ms",
  "scroll_depth",
  "vitals",
  "props",
  "revenue_amount",
  "revenue_currency",
  ...HIT_DIMENSIONS.map(quoted),
].join(", ");

/**
 * A row of `tally_hits` as the hit the collector made of it: what the database's writer
 * counts. Its values spend an import's daily budget of new values (the row does not say
 * which source brought them).
 */
function hitOf(row: HitRow): Hit {
  const localTime = Number(row.local_seconds);
  const values = {} as DimensionValues;
  for (const kind of HIT_DIMENSIONS) values[kind] = String(row[kind] ?? "");
  const vitals = Object.fromEntries(VITALS.map((name) => [name, row.vitals[name] ?? null])) as CheckedVitals;
  const amount = Number(row.revenue_amount);
  return {
    kind: row.kind,
    websiteId: Number(row.website_id),
    timestamp: Number(row.ms),
    localTime,
    day: row.local_day,
    hour: new Date(localTime * 1000).toISOString().slice(11, 13),
    visitorHash: row.visitor,
    previousVisitorHash: row.previous_visitor === "" ? null : row.previous_visitor,
    nextVisitorHash: row.next_visitor === "" ? null : row.next_visitor,
    engagedMs: Number(row.engaged_ms),
    scrollDepth: row.scroll_depth === null ? null : Number(row.scroll_depth),
    vitals: row.kind === "engagement" && Object.keys(row.vitals).length > 0 ? vitals : null,
    props: Object.keys(row.props).length > 0 ? row.props : null,
    revenue: row.revenue_currency === "" ? null : { amount, currency: row.revenue_currency },
    values,
    source: "import",
  };
}

async function rowsOf<T>(client: ClickhouseClient, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  return (await client.query({ query, query_params: params, format: "JSONEachRow" })).json<T>();
}

/** The events a database holds of a website (hits, engagement signals, visits): none before a copy into it begins. */
async function holdsEvents(db: Kysely<Database>, websiteId: number): Promise<boolean> {
  for (const table of ["hits", "page_engagement", "visits"] as const) {
    const row = await db.selectFrom(table).select("website_id").where("website_id", "=", websiteId).limit(1).executeTakeFirst();
    if (row) return true;
  }
  return false;
}

/** The batch ids of this copy the database recorded: the parts a copy stopped halfway wrote already. */
async function writtenParts(db: Kysely<Database>): Promise<Set<string>> {
  const rows = await db.selectFrom("written_batches").select("id").where("id", "like", `${BATCH_PREFIX}%`).execute();
  return new Set(rows.map((row) => row.id));
}

/**
 * Every hit and engagement signal ClickHouse's `tally_hits` holds, of every website, into a
 * database through its own writer: visits, visitor-days and rollups are formed as when they
 * were collected. Each website's days in order, each day's rows in time order (a visitor's
 * state carries into the next day, as a visit past midnight needs), written a part at a
 * time under a batch id of its website, day and place: a copy run again after it stopped
 * skips the parts the database recorded and writes the rest. Refuses, before writing, a
 * website of ClickHouse the database does not have, or one it holds events of that no
 * copy of this kind wrote (unless `force`: then those events are deleted first).
 */
export async function copyHitsIntoDatabase(
  client: ClickhouseClient,
  db: Kysely<Database>,
  writer: Pick<EngineStore, "write">,
  options: HitsCopyOutOptions = {},
): Promise<{ websites: number; rows: number }> {
  const days = (
    await rowsOf<{ website_id: number; local_day: string; n: string }>(
      client,
      `SELECT website_id, toString(day) AS local_day, count() AS n FROM ${HITS_TABLE} GROUP BY website_id, day ORDER BY website_id, day`,
    )
  ).map((row) => ({ websiteId: Number(row.website_id), day: row.local_day, rows: Number(row.n) }));
  const websites = [...new Set(days.map((day) => day.websiteId))];
  const known = new Set((await db.selectFrom("websites").select("id").execute()).map((row) => row.id));
  const missing = websites.filter((id) => !known.has(id));
  if (missing.length > 0)
    throw new TallyError(
      `ClickHouse holds hits of websites the database does not have (${missing.join(", ")}): copy into the installation's own database`,
    );
  const written = await writtenParts(db);
  const begun = new Set([...written].map((id) => Number(id.slice(BATCH_PREFIX.length).split(":")[0])));
  const filled: number[] = [];
  for (const id of websites) if (!begun.has(id) && (await holdsEvents(db, id))) filled.push(id);
  if (filled.length > 0 && options.force)
    await db.transaction().execute(async (trx) => {
      for (const table of WEBSITE_EVENT_TABLES) await trx.deleteFrom(table).where("website_id", "in", filled).execute();
    });
  else if (filled.length > 0)
    throw new TallyError(
      `the database already holds hits of website${filled.length === 1 ? "" : "s"} ${filled.join(", ")}: nothing copied ` +
        "(hits kept there from before ClickHouse was configured, or written since): pass --force to delete them first",
    );

  const perWrite = options.hitsPerWrite ?? COPY_OUT_HITS_PER_WRITE;
  const totalRows = days.reduce((sum, day) => sum + day.rows, 0);
  let done = 0;
  for (const { websiteId, day, rows } of days) {
    for (let part = 0; part * perWrite < rows; part++) {
      const batchId = `${BATCH_PREFIX}${websiteId}:${day}:${part}`;
      if (!written.has(batchId)) {
        const read = await rowsOf<HitRow>(
          client,
          `SELECT ${SELECTED} FROM ${HITS_TABLE} WHERE website_id = {website:UInt32} AND day = {day:Date}
           ORDER BY timestamp, arrival, visitor, kind, local_time, page, event LIMIT {limit:UInt64} OFFSET {offset:UInt64}`,
          { website: websiteId, day, limit: perWrite, offset: part * perWrite },
        );
        await writer.write(read.map(hitOf), batchId);
      }
      done += Math.min(perWrite, rows - part * perWrite);
      options.onProgress?.({ websiteId, day, rows: done, totalRows });
    }
  }
  return { websites: websites.length, rows: done };
}
