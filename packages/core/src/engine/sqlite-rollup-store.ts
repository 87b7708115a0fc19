import type { CounterRow } from "./counters.js";
import type { VisitorState } from "./pending-hit.js";
import type { FlushWork, RollupStore } from "./rollup-store.js";

/** The parts of a better-sqlite3 Database the fast path uses. */
export interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
}

interface SqliteStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
}

interface VisitorRow {
  hash: string;
  website_id: number;
  day: string;
  last_seen: number;
  visit_referrer: string;
  visit_campaign: string;
  seen: string;
}

/** Hits per synchronous transaction (see RollupStore.maxHitsPerWrite). */
export const SQLITE_HITS_PER_WRITE = 2_000;

/**
 * The same writes as the kysely store, through prepared statements on the raw
 * better-sqlite3 handle: one synchronous transaction per write (a flush is split into bounded writes), no SQL
 * compiled per row.
 * SQLite has a single writer, so no row locking is needed.
 */
export function createSqliteRollupStore(sqlite: SqliteHandle): RollupStore {
  const selectVisitor = sqlite.prepare("select * from visitors where hash = ?");
  const upsertVisitor = sqlite.prepare(
    `insert into visitors (hash, website_id, day, last_seen, visit_referrer, visit_campaign, seen)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (hash) do update set last_seen = excluded.last_seen, visit_referrer = excluded.visit_referrer,
       visit_campaign = excluded.visit_campaign, seen = excluded.seen`,
  );
  const addCount = sqlite.prepare(
    `insert into rollups (website_id, name, period, value, count) values (?, ?, ?, ?, ?)
     on conflict (website_id, name, period, value) do update set count = count + excluded.count`,
  );
  const deleteRollups = sqlite.prepare("delete from rollups where website_id = ?");
  const deleteVisitors = sqlite.prepare("delete from visitors where website_id = ?");

  const writeSync = sqlite.transaction(
    (work: FlushWork, apply: (states: Map<string, VisitorState>) => { touched: Iterable<VisitorState>; counts: CounterRow[] }) => {
      const states = new Map<string, VisitorState>();
      for (const hash of work.read) {
        const row = selectVisitor.get(hash) as VisitorRow | undefined;
        if (row) {
          states.set(hash, {
            hash,
            websiteId: row.website_id,
            day: row.day,
            lastSeen: row.last_seen,
            visitReferrer: row.visit_referrer,
            visitCampaign: row.visit_campaign,
            seen: row.seen,
          });
        }
      }
      const { touched, counts } = apply(states);
      for (const s of touched) upsertVisitor.run(s.hash, s.websiteId, s.day, s.lastSeen, s.visitReferrer, s.visitCampaign, s.seen);
      for (const c of counts) addCount.run(c.websiteId, c.name, c.period, c.value, c.count);
    },
  );

  return {
    // One synchronous transaction of 2,000 hits takes tens of milliseconds: short
    // enough not to stall the host's event loop, long enough to keep ingest fast.
    maxHitsPerWrite: SQLITE_HITS_PER_WRITE,
    async write(work, apply) {
      writeSync(work, apply);
    },
    async deleteWebsite(websiteId) {
      sqlite.transaction(() => {
        deleteRollups.run(websiteId);
        deleteVisitors.run(websiteId);
      })();
    },
  };
}
