import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import type { CounterRow } from "../model/counters.js";
import { createDictionary } from "./dictionary.js";
import { claimedRow, type FlushIo } from "./flush-io.js";
import type { EngineStore } from "../storage/store.js";
import { runAsync } from "../shared/steps.js";
import { asStoreUnavailable } from "../storage/store-faults.js";
import { writeFlush } from "./write-flush.js";
import { batchesKeptFrom, PROBE_KEY } from "../storage/write-safety.js";

/** Rows per statement: well under both SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 500;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function compareCounterRows(a: CounterRow, b: CounterRow): number {
  if (a.websiteId !== b.websiteId) return a.websiteId - b.websiteId;
  for (const key of ["name", "period", "value"] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return 0;
}

/** The flush's statements through kysely, in the transaction `trx`; the same SQL on SQLite and PostgreSQL. */
export function kyselyFlushIo(trx: Transaction<Database>, dialect: SqlDialect): FlushIo {
  const insertAll = async <T extends keyof Database>(table: T, rows: readonly object[]) => {
    for (const part of chunks(rows)) await trx.insertInto(table).values(part as never).execute();
  };
  const io: FlushIo = {
    async claimBatch(id, now) {
      const result = await trx.insertInto("written_batches").values({ id, written_at: now }).onConflict((oc) => oc.column("id").doNothing()).executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async findDimensions(websiteId, kind, values) {
      const found: { value: string; id: number }[] = [];
      for (const part of chunks(values)) {
        const rows = await trx
          .selectFrom("dimensions")
          .select(["id", "value"])
          .where("website_id", "=", websiteId)
          .where("kind", "=", kind)
          .where("value", "in", part)
          .execute();
        found.push(...rows.map((row) => ({ value: row.value, id: Number(row.id) })));
      }
      return found;
    },
    async countNewDimensions(websiteId, kind, day) {
      const row = await trx
        .selectFrom("dimensions")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("website_id", "=", websiteId)
        .where("kind", "=", kind)
        .where("created_day", "=", day)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async insertDimensions(rows) {
      for (const part of chunks(rows)) {
        await trx
          .insertInto("dimensions")
          .values(part)
          .onConflict((oc) => oc.columns(["website_id", "kind", "value"]).doNothing())
          .execute();
      }
    },
    async loadVisitors(hashes) {
      const rows = [];
      for (const part of chunks([...hashes].sort())) {
        let query = trx.selectFrom("visitors").selectAll().where("hash", "in", part);
        if (dialect.lockRows) query = query.forUpdate();
        rows.push(...(await query.execute()));
      }
      return rows;
    },
    async insertVisit(row) {
      const inserted = await trx.insertInto("visits").values(row).returning("id").executeTakeFirstOrThrow();
      return Number(inserted.id);
    },
    async updateVisits(rows) {
      // One statement per chunk: the changes as a VALUES list joined to the visits.
      for (const part of chunks(rows, 100)) {
        // Cast: PostgreSQL types bare VALUES parameters as text.
        const int = (value: number) => sql`cast(${value} as integer)`;
        const values = sql.join(
          part.map((r) => sql`(${sql.join([r.id, r.pageviews, r.events, r.duration, r.exit_page, r.engaged].map(int))})`),
        );
        await sql`with changes (id, pageviews, events, duration, exit_page, engaged) as (values ${values})
          update visits set pageviews = visits.pageviews + changes.pageviews, events = visits.events + changes.events,
            duration = ${dialect.greatest(sql.ref("visits.duration"), sql.ref("changes.duration"))},
            exit_page = case when changes.exit_page = 0 then visits.exit_page else changes.exit_page end,
            engaged = visits.engaged + changes.engaged
          from changes where visits.id = changes.id`.execute(trx);
      }
    },
    insertHits: (rows) => insertAll("hits", rows),
    insertProps: (rows) => insertAll("event_props", rows),
    async saveVisitors(rows) {
      for (const part of chunks(rows)) {
        await trx
          .insertInto("visitors")
          .values(part)
          .onConflict((oc) =>
            oc.column("hash").doUpdateSet((eb) => ({
              last_seen: eb.ref("excluded.last_seen"),
              visit_referrer: eb.ref("excluded.visit_referrer"),
              visit_campaign: eb.ref("excluded.visit_campaign"),
              seen: eb.ref("excluded.seen"),
              visitor: eb.ref("excluded.visitor"),
              visit: eb.ref("excluded.visit"),
              visit_start: eb.ref("excluded.visit_start"),
              visit_day: eb.ref("excluded.visit_day"),
              visit_pageviews: eb.ref("excluded.visit_pageviews"),
              visit_events: eb.ref("excluded.visit_events"),
              visit_exit: eb.ref("excluded.visit_exit"),
            })),
          )
          .execute();
      }
    },
    async addCounts(rows) {
      // One order for every process, so concurrent flushes lock rows without deadlocking.
      const sorted = dialect.lockRows ? [...rows].sort(compareCounterRows) : rows;
      for (const part of chunks(sorted)) {
        await trx
          .insertInto("rollups")
          .values(part.map((r) => ({ website_id: r.websiteId, name: r.name, period: r.period, value: r.value, count: r.count })))
          .onConflict((oc) => oc.columns(["website_id", "name", "period", "value"]).doUpdateSet({ count: sql`rollups.count + excluded.count` }))
          .execute();
      }
    },
    async touchDays(rows) {
      // One order for every process, as for the rollups.
      const sorted = [...rows].sort((a, b) => a.website_id - b.website_id || a.day - b.day);
      for (const part of chunks(sorted)) {
        await trx
          .insertInto("day_versions")
          .values(part.map((row) => ({ ...row, version: 1 })))
          .onConflict((oc) =>
            oc.columns(["website_id", "day"]).doUpdateSet({
              version: sql`day_versions.version + 1`,
              last_hit: dialect.greatest(sql.ref("day_versions.last_hit"), sql.ref("excluded.last_hit")),
            }),
          )
          .execute();
      }
    },
  };
  if (dialect.lockRows) {
    // Claiming rows first makes a second process wait for this one to commit before it
    // reads (in one order for all), so one visitor is never counted new twice.
    io.claimVisitors = async (claims) => {
      const sorted = [...claims].sort((a, b) => (a.hash < b.hash ? -1 : 1));
      for (const part of chunks(sorted)) {
        await trx.insertInto("visitors").values(part.map(claimedRow)).onConflict((oc) => oc.column("hash").doNothing()).execute();
      }
    };
  }
  if (dialect.reserveIds) {
    const reserve = dialect.reserveIds;
    io.reserveVisitIds = (count) => reserve(trx, "visits", count);
    io.insertVisitsWithIds = (rows) => insertAll("visits", rows);
  }
  return io;
}

/** Writes each flush in one transaction through kysely: PostgreSQL, and SQLite databases no worker thread can open. */
export function createKyselyStore(db: Kysely<Database>, dialect: SqlDialect): EngineStore {
  const dictionary = createDictionary();
  return {
    async write(hits, batchId) {
      try {
        await db.transaction().execute((trx) => runAsync(writeFlush(kyselyFlushIo(trx, dialect), dictionary, hits, batchId)));
        dictionary.commit();
      } catch (error) {
        dictionary.rollback();
        throw asStoreUnavailable(error);
      }
    },

    async probe() {
      const value = new Date().toISOString();
      try {
        await db.insertInto("tally_meta").values({ key: PROBE_KEY, value }).onConflict((oc) => oc.column("key").doUpdateSet({ value })).execute();
      } catch (error) {
        throw asStoreUnavailable(error);
      }
    },

    async deleteWebsite(websiteId) {
      for (const table of ["rollups", "visitors", "visits", "hits", "event_props", "dimensions", "day_versions", "day_blocks"] as const) {
        await db.deleteFrom(table).where("website_id", "=", websiteId).execute();
      }
      dictionary.forgetWebsite(websiteId);
    },

    async salt(day, candidate) {
      await db.insertInto("salts").values({ day, salt: candidate }).onConflict((oc) => oc.column("day").doNothing()).execute();
      const row = await db.selectFrom("salts").select("salt").where("day", "=", day).executeTakeFirstOrThrow();
      return row.salt;
    },

    async forgetBefore(day) {
      await db.deleteFrom("salts").where("day", "<", day).execute();
      // Rows of an import under way (`~…`) are its own to remove.
      await db.deleteFrom("visitors").where("day", "<", day).where("hash", "not like", "~%").execute();
      await db.deleteFrom("written_batches").where("written_at", "<", batchesKeptFrom(day)).execute();
    },

    async deleteOlderThan(websiteId, localSeconds, limit) {
      let deleted = 0;
      // The versions and blocks of the days that went (a few rows a day), not counted as rows deleted.
      for (const table of ["day_versions", "day_blocks"] as const) {
        await db.deleteFrom(table).where("website_id", "=", websiteId).where("day", "<", Math.ceil(localSeconds / 86_400)).execute();
      }
      for (const [table, column] of [["hits", "time"], ["event_props", "time"], ["visits", "start"]] as const) {
        const result = await sql`delete from ${sql.table(table)} where (${sql.raw(dialect.rowLocator)}) in (
          select ${sql.raw(dialect.rowLocator)} from ${sql.table(table)}
          where website_id = ${websiteId} and ${sql.ref(column)} < ${localSeconds} limit ${limit})`.execute(db);
        deleted += Number(result.numAffectedRows ?? 0);
      }
      return deleted;
    },

    close: async () => {},
  };
}
