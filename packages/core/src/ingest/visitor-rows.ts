import type { VisitorsTable } from "../storage/schema.js";
import { allRows, runStatement, type SqlRunner } from "../storage/sql-runner.js";
import type { Steps } from "../shared/steps.js";
import { compileFieldList } from "../shared/compiled-literal.js";

/**
 * Where each visitor row of a SQLite database is: its rowid by hash, kept by the writer
 * instead of an index on the hash. A flush creates the rows of the visitors new that day,
 * and their hashes are random: each insert into an index on them changed a page of its own,
 * so every flush wrote most of that index to the WAL again (docs/performance.md). The rows
 * themselves are in the order they were created, so a flush writes the last pages.
 *
 * What is kept is checked at every flush: when another connection has committed since this
 * one last read (`data_version`), or the table's last rowid is not the one this writer knows
 * of, the rowids are read again (one pass over the table). A row is also only taken for a
 * hash when it still holds that hash (a row deleted since is simply not found).
 */
export interface VisitorRows {
  /** The stored rows of these hashes (those there are). */
  load(runner: SqlRunner, hashes: readonly string[]): Steps<readonly VisitorsTable[]>;
  /** Updates the rows `load` found, inserts the others. */
  save(runner: SqlRunner, rows: readonly VisitorsTable[]): Steps<void>;
  /** Deletes the rows of the days before `day` (OLD_VISITORS). */
  deleteBefore(runner: SqlRunner, day: string): Steps<void>;
  /** The transaction committed: what it inserted and deleted is kept. */
  commit(): void;
  /** It rolled back; or rows were deleted: everything is read again at the next flush. */
  forget(): void;
}

/** A visitor row's columns: its hash, website and day, then its state (all a flush saves). */
export const VISITOR_COLUMNS = [
  "hash",
  "website_id",
  "day",
  "last_seen",
  "visit_referrer",
  "visit_campaign",
  "visit_hostname",
  "seen",
  "visitor",
  "visit",
  "visit_start",
  "visit_day",
  "visit_pageviews",
  "visit_events",
  "visit_exit",
] as const satisfies readonly (keyof VisitorsTable)[];

const SAVED_COLUMNS = VISITOR_COLUMNS.slice(3);
/** A row's parameters for UPDATE (its state, then the rowid put after them) and INSERT. */
const savedParams = compileFieldList<VisitorsTable>(SAVED_COLUMNS);
const insertParams = compileFieldList<VisitorsTable>(VISITOR_COLUMNS);

/** Visitor rows of the days before `?`: those salt rotation deletes (an import under way, `~…`, removes its own). */
export const OLD_VISITORS = "day < ? and hash not like '~%'";

const STATE = "select (select data_version from pragma_data_version) as version, (select max(rowid) from visitors) as last";
const ALL = "select rowid as row_id, hash from visitors";
const BY_ROWID = "select rowid as row_id, * from visitors where rowid = ?";
const UPDATE = `update visitors set ${SAVED_COLUMNS.map((column) => `${column} = ?`).join(", ")} where rowid = ?`;
const INSERT = `insert into visitors (${VISITOR_COLUMNS.join(", ")}) values (${VISITOR_COLUMNS.map(() => "?").join(", ")})`;

export function createVisitorRows(): VisitorRows {
  /** hash → rowid, as of the last commit; null: to be read. */
  let rowids: Map<string, number> | null = null;
  let version = -1;
  let last = 0;
  /** This flush's rows: those found, and those inserted. */
  let found = new Map<string, number>();
  let inserted = new Map<string, number>();
  let deleted = new Set<number>();

  function clear(): void {
    found = new Map();
    inserted = new Map();
    deleted = new Set();
  }

  function* known(runner: SqlRunner): Steps<Map<string, number>> {
    const [state] = yield* allRows<{ version: number; last: number | null }>(runner, STATE, []);
    const now = { version: Number(state!.version), last: Number(state!.last ?? 0) };
    if (rowids === null || now.version !== version || now.last !== last) {
      const rows = yield* allRows<{ row_id: number; hash: string }>(runner, ALL, []);
      rowids = new Map(rows.map((row) => [row.hash, Number(row.row_id)]));
    }
    version = now.version;
    last = now.last;
    return rowids;
  }

  return {
    *load(runner, hashes) {
      clear();
      const ids = yield* known(runner);
      /** rowid → the hash it is asked for. */
      const asked = new Map<number, string>();
      for (const hash of hashes) {
        const rowid = ids.get(hash);
        if (rowid !== undefined) asked.set(rowid, hash);
      }
      if (asked.size === 0) return [];
      const rows = (yield runner.allEach(
        BY_ROWID,
        [...asked.keys()].sort((a, b) => a - b).map((rowid) => [rowid]),
      )) as (VisitorsTable & { row_id: number })[];
      const stored: VisitorsTable[] = [];
      for (const { row_id: rowid, ...row } of rows) {
        if (asked.get(Number(rowid)) !== row.hash) continue;
        found.set(row.hash, Number(rowid));
        stored.push(row);
      }
      return stored;
    },
    *save(runner, rows) {
      const updates: unknown[][] = [];
      for (const row of rows) {
        const rowid = found.get(row.hash) ?? inserted.get(row.hash);
        if (rowid !== undefined) {
          const params = savedParams(row);
          params.push(rowid);
          updates.push(params);
          continue;
        }
        const { insertId } = (yield runner.run(INSERT, insertParams(row))) as { insertId: number | null };
        if (insertId === null) throw new Error("the database did not tell the new visitor row's id");
        inserted.set(row.hash, insertId);
        last = Math.max(last, insertId);
      }
      if (updates.length > 0) yield runner.runEach(UPDATE, updates);
    },
    *deleteBefore(runner, day) {
      clear();
      const gone = yield* allRows<{ row_id: number }>(runner, `select rowid as row_id from visitors where ${OLD_VISITORS}`, [day]);
      yield* runStatement(runner, `delete from visitors where ${OLD_VISITORS}`, [day]);
      deleted = new Set(gone.map((row) => Number(row.row_id)));
    },
    commit() {
      if (rowids !== null) {
        for (const [hash, rowid] of inserted) rowids.set(hash, rowid);
        if (deleted.size > 0) for (const [hash, rowid] of rowids) if (deleted.has(rowid)) rowids.delete(hash);
      }
      clear();
    },
    forget() {
      rowids = null;
      clear();
    },
  };
}
