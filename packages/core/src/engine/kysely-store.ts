import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../database/schema.js";
import type { SqlDialect } from "../dialect/dialect.js";
import { applyHits, flushWork, type FlushWork } from "./apply-hits.js";
import type { CounterRow } from "./counters.js";
import type { PendingHit, VisitorState } from "./pending-hit.js";
import type { EngineStore } from "./store.js";

/** Rows per statement: well under both SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}


function compareCounterRows(a: CounterRow, b: CounterRow): number {
  if (a.websiteId !== b.websiteId) return a.websiteId - b.websiteId;
  for (const key of ["name", "period", "value"] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return 0;
}

/** Writes a flush in one transaction through kysely; the same SQL on SQLite and PostgreSQL. */
export function createKyselyStore(db: Kysely<Database>, dialect: SqlDialect): EngineStore {
  async function loadStates(trx: Transaction<Database>, work: FlushWork): Promise<Map<string, VisitorState>> {
    if (dialect.lockRows) {
      // Claiming rows first makes a second process wait for this one to commit
      // before it reads, so one visitor is never counted new twice.
      const claims = [...work.claim].sort((a, b) => (a.hash < b.hash ? -1 : 1));
      for (const part of chunks(claims)) {
        await trx
          .insertInto("visitors")
          .values(part.map((c) => ({ hash: c.hash, website_id: c.websiteId, day: c.day, last_seen: 0, visit_referrer: "", visit_campaign: "", seen: "" })))
          .onConflict((oc) => oc.column("hash").doNothing())
          .execute();
      }
    }
    const states = new Map<string, VisitorState>();
    for (const part of chunks([...work.read].sort())) {
      let query = trx.selectFrom("visitors").selectAll().where("hash", "in", part);
      if (dialect.lockRows) query = query.forUpdate();
      for (const row of await query.execute()) {
        states.set(row.hash, {
          hash: row.hash,
          websiteId: Number(row.website_id),
          day: row.day,
          lastSeen: Number(row.last_seen),
          visitReferrer: row.visit_referrer,
          visitCampaign: row.visit_campaign,
          seen: row.seen,
        });
      }
    }
    return states;
  }

  async function saveStates(trx: Transaction<Database>, states: Iterable<VisitorState>): Promise<void> {
    for (const part of chunks([...states])) {
      await trx
        .insertInto("visitors")
        .values(
          part.map((s) => ({
            hash: s.hash,
            website_id: s.websiteId,
            day: s.day,
            last_seen: s.lastSeen,
            visit_referrer: s.visitReferrer,
            visit_campaign: s.visitCampaign,
            seen: s.seen,
          })),
        )
        .onConflict((oc) =>
          oc.column("hash").doUpdateSet({
            last_seen: sql`excluded.last_seen`,
            visit_referrer: sql`excluded.visit_referrer`,
            visit_campaign: sql`excluded.visit_campaign`,
            seen: sql`excluded.seen`,
          }),
        )
        .execute();
    }
  }

  async function addCounts(trx: Transaction<Database>, rows: readonly CounterRow[]): Promise<void> {
    // One order for every process, so concurrent flushes lock rows without deadlocking.
    const sorted = dialect.lockRows ? [...rows].sort(compareCounterRows) : rows;
    for (const part of chunks(sorted)) {
      await trx
        .insertInto("rollups")
        .values(part.map((r) => ({ website_id: r.websiteId, name: r.name, period: r.period, value: r.value, count: r.count })))
        .onConflict((oc) =>
          oc.columns(["website_id", "name", "period", "value"]).doUpdateSet({ count: sql`rollups.count + excluded.count` }),
        )
        .execute();
    }
  }

  return {
    async write(hits) {
      const work = flushWork(hits);
      await db.transaction().execute(async (trx) => {
        const { touched, counts } = applyHits(hits, await loadStates(trx, work));
        await saveStates(trx, touched);
        await addCounts(trx, counts);
      });
    },

    async deleteWebsite(websiteId) {
      await db.deleteFrom("rollups").where("website_id", "=", websiteId).execute();
      await db.deleteFrom("visitors").where("website_id", "=", websiteId).execute();
    },

    async salt(day, candidate) {
      await db.insertInto("salts").values({ day, salt: candidate }).onConflict((oc) => oc.column("day").doNothing()).execute();
      const row = await db.selectFrom("salts").select("salt").where("day", "=", day).executeTakeFirstOrThrow();
      return row.salt;
    },

    async forgetBefore(day) {
      await db.deleteFrom("salts").where("day", "<", day).execute();
      await db.deleteFrom("visitors").where("day", "<", day).execute();
    },

    close: async () => {},
  };
}
