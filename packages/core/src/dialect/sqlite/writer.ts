import type { VisitorsTable } from "../../database/schema.js";
import { applyHits, flushWork } from "../../engine/apply-hits.js";
import type { PendingHit, VisitorState } from "../../engine/pending-hit.js";
import type { EngineStore } from "../../engine/store.js";

/** The parts of a better-sqlite3 Database the SQLite store uses. */
export interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
}

interface SqliteStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
}

/** The engine's writes on a better-sqlite3 handle, synchronously: prepared statements, one transaction per call. */
export interface SqliteWriter {
  write(hits: readonly PendingHit[]): void;
  deleteWebsite(websiteId: number): void;
  salt(day: string, candidate: string): string;
  forgetBefore(day: string): void;
}

/** SQLite has a single writer, so no row locking is needed: load, apply, save. */
export function createSqliteWriter(sqlite: SqliteHandle): SqliteWriter {
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
  const insertSalt = sqlite.prepare("insert into salts (day, salt) values (?, ?) on conflict (day) do nothing");
  const selectSalt = sqlite.prepare("select salt from salts where day = ?");
  const deleteOldSalts = sqlite.prepare("delete from salts where day < ?");
  const deleteOldVisitors = sqlite.prepare("delete from visitors where day < ?");

  function loadStates(hashes: readonly string[]): Map<string, VisitorState> {
    const states = new Map<string, VisitorState>();
    for (const hash of hashes) {
      const row = selectVisitor.get(hash) as VisitorsTable | undefined;
      if (!row) continue;
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
    return states;
  }

  return {
    write: sqlite.transaction((hits: readonly PendingHit[]) => {
      const { touched, counts } = applyHits(hits, loadStates(flushWork(hits).read));
      for (const s of touched) upsertVisitor.run(s.hash, s.websiteId, s.day, s.lastSeen, s.visitReferrer, s.visitCampaign, s.seen);
      for (const c of counts) addCount.run(c.websiteId, c.name, c.period, c.value, c.count);
    }),
    deleteWebsite: sqlite.transaction((websiteId: number) => {
      deleteRollups.run(websiteId);
      deleteVisitors.run(websiteId);
    }),
    salt(day, candidate) {
      insertSalt.run(day, candidate);
      return (selectSalt.get(day) as { salt: string }).salt;
    },
    forgetBefore: sqlite.transaction((day: string) => {
      deleteOldSalts.run(day);
      deleteOldVisitors.run(day);
    }),
  };
}

/** Writes on the caller's thread, in bounded writes (for databases a worker cannot open, like `:memory:`). */
export function createSqliteStore(sqlite: SqliteHandle): EngineStore {
  const writer = createSqliteWriter(sqlite);
  return {
    maxHitsPerWrite: 2_000,
    write: async (hits) => writer.write(hits),
    deleteWebsite: async (websiteId) => writer.deleteWebsite(websiteId),
    salt: async (day, candidate) => writer.salt(day, candidate),
    forgetBefore: async (day) => writer.forgetBefore(day),
    close: async () => {},
  };
}
