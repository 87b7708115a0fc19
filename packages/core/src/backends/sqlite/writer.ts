import type { SqliteTransaction } from "../../storage/connection.js";
import type { VisitorsTable } from "../../storage/schema.js";
import { createDictionary } from "../../ingest/dictionary.js";
import type { FlushIo, VisitRow } from "../../ingest/flush-io.js";
import type { PendingHit } from "../../model/pending-hit.js";
import type { EngineStore } from "../../storage/store.js";
import { runSync } from "../../shared/steps.js";
import { batchesKeptFrom, PROBE_KEY } from "../../storage/write-safety.js";
import { writeFlush } from "../../ingest/write-flush.js";

/** The parts of a better-sqlite3 Database the SQLite store uses. */
export interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R>;
}

interface SqliteStatement {
  run(...params: unknown[]): { lastInsertRowid: number | bigint; changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The engine's writes on a better-sqlite3 handle, synchronously: prepared statements, one transaction per call. */
export interface SqliteWriter {
  write(hits: readonly PendingHit[], batchId: string): void;
  probe(): void;
  deleteWebsite(websiteId: number): void;
  salt(day: string, candidate: string): string;
  forgetBefore(day: string): void;
  deleteOlderThan(websiteId: number, localSeconds: number, limit: number): number;
}

const VISIT_COLUMNS = [
  "website_id", "visitor", "start", "duration", "pageviews", "events", "engaged", "entry_page", "exit_page", "referrer",
  "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term", "browser", "os", "device", "country",
  "continent", "city", "language", "resolution",
] as const satisfies readonly (keyof VisitRow)[];

const VISITOR_COLUMNS = [
  "hash", "website_id", "day", "last_seen", "visit_referrer", "visit_campaign", "seen", "visitor", "visit",
  "visit_start", "visit_day", "visit_pageviews", "visit_events", "visit_exit",
] as const satisfies readonly (keyof VisitorsTable)[];

const placeholders = (count: number) => Array.from({ length: count }, () => "?").join(", ");

/** Every statement of a flush, prepared once. SQLite has a single writer: no row locks needed. */
function createFlushIo(sqlite: SqliteHandle): FlushIo {
  const claimBatch = sqlite.prepare("insert into written_batches (id, written_at) values (?, ?) on conflict do nothing");
  const findDimension = sqlite.prepare("select id, value from dimensions where website_id = ? and kind = ? and value = ?");
  const countCreated = sqlite.prepare("select count(*) as n from dimensions where website_id = ? and kind = ? and created_day = ?");
  const insertDimension = sqlite.prepare(
    "insert into dimensions (website_id, kind, value, search, created_day) values (?, ?, ?, ?, ?) on conflict do nothing",
  );
  const selectVisitor = sqlite.prepare("select * from visitors where hash = ?");
  const upsertVisitor = sqlite.prepare(
    `insert into visitors (${VISITOR_COLUMNS.join(", ")}) values (${placeholders(VISITOR_COLUMNS.length)})
     on conflict (hash) do update set ${VISITOR_COLUMNS.slice(3).map((c) => `${c} = excluded.${c}`).join(", ")}`,
  );
  const insertVisit = sqlite.prepare(`insert into visits (${VISIT_COLUMNS.join(", ")}) values (${placeholders(VISIT_COLUMNS.length)})`);
  const updateVisit = sqlite.prepare(
    `update visits set pageviews = pageviews + ?, events = events + ?, duration = max(duration, ?),
       exit_page = case when ? = 0 then exit_page else ? end, engaged = engaged + ? where id = ?`,
  );
  const insertHit = sqlite.prepare("insert into hits (website_id, visit_id, time, page, event, seq) values (?, ?, ?, ?, ?, ?)");
  const insertProp = sqlite.prepare("insert into event_props (website_id, visit_id, time, event, seq, name, value) values (?, ?, ?, ?, ?, ?, ?)");
  const touchDay = sqlite.prepare(
    "insert into day_versions (website_id, day, version, last_hit) values (?, ?, 1, ?) on conflict (website_id, day) do update set version = version + 1, last_hit = max(last_hit, excluded.last_hit)",
  );
  const addCount = sqlite.prepare(
    `insert into rollups (website_id, name, period, value, count) values (?, ?, ?, ?, ?)
     on conflict (website_id, name, period, value) do update set count = count + excluded.count`,
  );

  return {
    claimBatch: (id, now) => claimBatch.run(id, now).changes === 1,
    findDimensions(websiteId, kind, values) {
      const found: { value: string; id: number }[] = [];
      for (const value of values) {
        const row = findDimension.get(websiteId, kind, value) as { id: number; value: string } | undefined;
        if (row) found.push(row);
      }
      return found;
    },
    countNewDimensions: (websiteId, kind, day) => (countCreated.get(websiteId, kind, day) as { n: number }).n,
    insertDimensions(rows) {
      for (const r of rows) insertDimension.run(r.website_id, r.kind, r.value, r.search, r.created_day);
    },
    loadVisitors(hashes) {
      const rows: VisitorsTable[] = [];
      for (const hash of hashes) {
        const row = selectVisitor.get(hash) as VisitorsTable | undefined;
        if (row) rows.push(row);
      }
      return rows;
    },
    insertVisit: (row) => Number(insertVisit.run(...VISIT_COLUMNS.map((column) => row[column] ?? 0)).lastInsertRowid),
    updateVisits(rows) {
      for (const r of rows) updateVisit.run(r.pageviews, r.events, r.duration, r.exit_page, r.exit_page, r.engaged, r.id);
    },
    insertHits(rows) {
      for (const r of rows) insertHit.run(r.website_id, r.visit_id, r.time, r.page, r.event, r.seq);
    },
    insertProps(rows) {
      for (const r of rows) insertProp.run(r.website_id, r.visit_id, r.time, r.event, r.seq, r.name, r.value);
    },
    saveVisitors(rows) {
      for (const row of rows) upsertVisitor.run(...VISITOR_COLUMNS.map((column) => row[column]));
    },
    addCounts(rows) {
      for (const c of rows) addCount.run(c.websiteId, c.name, c.period, c.value, c.count);
    },
    touchDays(rows) {
      for (const r of rows) touchDay.run(r.website_id, r.day, r.last_hit);
    },
  };
}

/** Rows of one table, of one website, older than a local time: deleted a bounded batch at a time. */
function olderRowsDeleter(sqlite: SqliteHandle, table: string, timeColumn: string) {
  const statement = sqlite.prepare(
    `delete from ${table} where rowid in (select rowid from ${table} where website_id = ? and ${timeColumn} < ? limit ?)`,
  );
  return (websiteId: number, localSeconds: number, limit: number) => statement.run(websiteId, localSeconds, limit).changes;
}

export function createSqliteWriter(sqlite: SqliteHandle): SqliteWriter {
  const io = createFlushIo(sqlite);
  const dictionary = createDictionary();
  const deleteWebsiteRows = ["rollups", "visitors", "visits", "hits", "event_props", "dimensions", "day_versions", "day_blocks"].map((table) =>
    sqlite.prepare(`delete from ${table} where website_id = ?`),
  );
  const insertSalt = sqlite.prepare("insert into salts (day, salt) values (?, ?) on conflict (day) do nothing");
  const selectSalt = sqlite.prepare("select salt from salts where day = ?");
  const deleteOldSalts = sqlite.prepare("delete from salts where day < ?");
  const deleteOldVisitors = sqlite.prepare("delete from visitors where day < ? and hash not like '~%'");
  const deleteOld = [olderRowsDeleter(sqlite, "hits", "time"), olderRowsDeleter(sqlite, "event_props", "time"), olderRowsDeleter(sqlite, "visits", "start")];
  // The versions and blocks of the days that went (a few rows a day), not counted as rows deleted.
  const deleteOldDays = ["day_versions", "day_blocks"].map((table) => sqlite.prepare(`delete from ${table} where website_id = ? and day < ?`));

  // BEGIN IMMEDIATE: the write lock is taken (waiting up to busy_timeout for another
  // connection) before anything is read. A deferred transaction reads first and, when
  // another connection commits meanwhile, fails on its first write at once (SQLITE_BUSY,
  // no wait); nothing would be lost, but every such flush would have to be retried.
  const flush = sqlite.transaction((hits: readonly PendingHit[], batchId: string) => runSync(writeFlush(io, dictionary, hits, batchId)));
  const probe = sqlite.prepare(`insert into tally_meta (key, value) values ('${PROBE_KEY}', ?) on conflict (key) do update set value = excluded.value`);
  const deleteOldBatches = sqlite.prepare("delete from written_batches where written_at < ?");
  const deleteWebsite = sqlite.transaction((websiteId: number) => {
    for (const statement of deleteWebsiteRows) statement.run(websiteId);
    dictionary.forgetWebsite(websiteId);
  });
  const forgetBefore = sqlite.transaction((day: string) => {
    deleteOldSalts.run(day);
    deleteOldVisitors.run(day);
    deleteOldBatches.run(batchesKeptFrom(day));
  });
  const deleteOlderThan = sqlite.transaction((websiteId: number, localSeconds: number, limit: number) => {
    for (const statement of deleteOldDays) statement.run(websiteId, Math.ceil(localSeconds / 86_400));
    return deleteOld.reduce((deleted, remove) => deleted + remove(websiteId, localSeconds, limit), 0);
  });

  return {
    write(hits, batchId) {
      try {
        flush.immediate(hits, batchId);
        dictionary.commit();
      } catch (error) {
        dictionary.rollback();
        throw error;
      }
    },
    probe: () => probe.run(new Date().toISOString()),
    deleteWebsite: (websiteId) => deleteWebsite.immediate(websiteId),
    salt(day, candidate) {
      insertSalt.run(day, candidate);
      return (selectSalt.get(day) as { salt: string }).salt;
    },
    forgetBefore: (day) => forgetBefore.immediate(day),
    deleteOlderThan: (websiteId, localSeconds, limit) => deleteOlderThan.immediate(websiteId, localSeconds, limit),
  };
}

/** Writes on the caller's thread, in bounded writes (for databases a worker cannot open, like `:memory:`). */
export function createSqliteStore(sqlite: SqliteHandle): EngineStore {
  const writer = createSqliteWriter(sqlite);
  return {
    maxHitsPerWrite: 500,
    write: async (hits, batchId) => writer.write(hits, batchId),
    probe: async () => writer.probe(),
    deleteWebsite: async (websiteId) => writer.deleteWebsite(websiteId),
    salt: async (day, candidate) => writer.salt(day, candidate),
    forgetBefore: async (day) => writer.forgetBefore(day),
    deleteOlderThan: async (websiteId, localSeconds, limit) => writer.deleteOlderThan(websiteId, localSeconds, limit),
    close: async () => {},
  };
}
