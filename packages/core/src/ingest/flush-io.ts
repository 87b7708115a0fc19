import type { Insertable } from "kysely";
import type { EventPropsTable, HitsTable, VisitorsTable, VisitsTable } from "../storage/schema.js";
import type { CounterRow } from "../model/counters.js";
import type { DimensionIo } from "./dictionary.js";
import { VISIT_COLUMNS } from "../model/dimensions.js";
import type { SqlDialect } from "../storage/dialect.js";
import { allRows, runStatement, type SqlRunner } from "../storage/sql-runner.js";
import type { Steps } from "../shared/steps.js";
import { newVisitorState, type VisitorState } from "../model/hit.js";
import { MAX_SEEN_PER_VISITOR } from "./visit-processor.js";

/** Column `visitor` holds the id of the visitor-day's first visit; 0: this visit is that one. */
export type VisitRow = Omit<Insertable<VisitsTable>, "id">;

/** A change to a stored visit: counts to add, and the duration and exit page it grows to. */
export interface VisitUpdateRow {
  id: number;
  pageviews: number;
  events: number;
  duration: number;
  /** 0: unchanged. */
  exit_page: number;
  engaged: number;
}

/** A day whose visits a flush added or changed: its version goes up, its latest hit to `last_hit`. */
export interface TouchedDay {
  website_id: number;
  day: number;
  last_hit: number;
}

export interface VisitorClaim {
  hash: string;
  websiteId: number;
  day: string;
}

/**
 * The statements one flush runs, inside one transaction the store opens around it: each
 * a step answered synchronously (better-sqlite3) or with a promise (kysely).
 */
export interface FlushIo extends DimensionIo {
  /** Records a batch's id; answers false when it was recorded before (that batch is written already). */
  claimBatch(id: string, now: number): Steps<boolean>;
  /** Where rows are locked (PostgreSQL): creates today's rows first and locks them, so two processes never count one visitor twice. */
  claimVisitors(claims: readonly VisitorClaim[]): Steps<void>;
  loadVisitors(hashes: readonly string[]): Steps<readonly VisitorsTable[]>;
  /** Ids for new visits, where the database hands them out before inserting (PostgreSQL sequences). */
  reserveVisitIds?(count: number): Steps<number[]>;
  /** Stores visits with the ids reserveVisitIds gave. */
  insertVisitsWithIds(rows: readonly (VisitRow & { id: number })[]): Steps<void>;
  /** Stores one visit; answers its new id. */
  insertVisit(row: VisitRow): Steps<number>;
  updateVisits(rows: readonly VisitUpdateRow[]): Steps<void>;
  insertHits(rows: readonly HitsTable[]): Steps<void>;
  insertProps(rows: readonly EventPropsTable[]): Steps<void>;
  saveVisitors(rows: readonly VisitorsTable[]): Steps<void>;
  addCounts(rows: readonly CounterRow[]): Steps<void>;
  /** Bumps the versions of the days whose visits changed (their day blocks are out of date). */
  touchDays(rows: readonly TouchedDay[]): Steps<void>;
}

/** Rows per statement: well under both SQLite's (32,766) and PostgreSQL's (65,535) parameter limits. */
const CHUNK = 500;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const list = (count: number, width: number) => Array.from({ length: count }, () => `(${Array.from({ length: width }, () => "?").join(", ")})`).join(", ");

/** `insert into table (columns) values (…), (…) [suffix]` for each chunk of rows. */
function* insertRows<R>(runner: SqlRunner, table: string, columns: readonly (keyof R & string)[], rows: readonly R[], suffix = ""): Steps<number> {
  let changed = 0;
  for (const part of chunks(rows)) {
    const params = part.flatMap((row) => columns.map((column) => row[column]));
    changed += yield* runStatement(runner, `insert into ${table} (${columns.join(", ")}) values ${list(part.length, columns.length)} ${suffix}`, params);
  }
  return changed;
}

/** Counter rows in one order for every process: concurrent flushes lock rows without deadlocking. */
function compareCounterRows(a: CounterRow, b: CounterRow): number {
  if (a.websiteId !== b.websiteId) return a.websiteId - b.websiteId;
  for (const key of ["name", "period", "value"] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return 0;
}

const VISITOR_COLUMNS = [
  "hash", "website_id", "day", "last_seen", "visit_referrer", "visit_campaign", "seen", "visitor", "visit",
  "visit_start", "visit_day", "visit_pageviews", "visit_events", "visit_exit",
] as const satisfies readonly (keyof VisitorsTable)[];

/** A visit row's columns: its counts, then a dimension value's id per visit column of the registry. */
const VISIT_ROW_COLUMNS = [
  ...(["website_id", "visitor", "start", "duration", "pageviews", "events", "engaged"] as const satisfies readonly (keyof VisitRow)[]),
  ...VISIT_COLUMNS.map(({ column }) => column),
];

const INSERT_VISIT = `insert into visits (${VISIT_ROW_COLUMNS.join(", ")}) values ${list(1, VISIT_ROW_COLUMNS.length)} returning id`;

/** The flush's statements, written once for SQLite and PostgreSQL. */
export function createFlushIo(runner: SqlRunner, dialect: SqlDialect): FlushIo {
  const greatest = (a: string, b: string) => `${dialect.greatestFunction}(${a}, ${b})`;
  const io: FlushIo = {
    *claimBatch(id, now) {
      return (yield* runStatement(runner, "insert into written_batches (id, written_at) values (?, ?) on conflict do nothing", [id, now])) === 1;
    },
    *findDimensions(websiteId, kind, values) {
      const found: { value: string; id: number }[] = [];
      for (const part of chunks(values)) {
        const rows = yield* allRows<{ id: number; value: string }>(
          runner,
          `select id, value from dimensions where website_id = ? and kind = ? and value in (${part.map(() => "?").join(", ")})`,
          [websiteId, kind, ...part],
        );
        found.push(...rows.map((row) => ({ value: row.value, id: Number(row.id) })));
      }
      return found;
    },
    *countNewDimensions(websiteId, kind, day) {
      const [row] = yield* allRows<{ n: number }>(runner, "select count(*) as n from dimensions where website_id = ? and kind = ? and created_day = ?", [websiteId, kind, day]);
      return Number(row?.n ?? 0);
    },
    *insertDimensions(rows) {
      yield* insertRows(runner, "dimensions", ["website_id", "kind", "value", "search", "created_day"], rows, "on conflict (website_id, kind, value) do nothing");
    },
    *claimVisitors(claims) {
      if (!dialect.lockRows) return;
      // Claiming rows first makes a second process wait for this one to commit before it
      // reads (in one order for all), so one visitor is never counted new twice.
      const sorted = [...claims].sort((a, b) => (a.hash < b.hash ? -1 : 1));
      yield* insertRows(runner, "visitors", VISITOR_COLUMNS, sorted.map(claimedRow), "on conflict (hash) do nothing");
    },
    *loadVisitors(hashes) {
      const rows: VisitorsTable[] = [];
      for (const part of chunks([...hashes].sort())) {
        const lock = dialect.lockRows ? " for update" : "";
        rows.push(...(yield* allRows<VisitorsTable>(runner, `select * from visitors where hash in (${part.map(() => "?").join(", ")})${lock}`, part)));
      }
      return rows;
    },
    *insertVisitsWithIds(rows) {
      yield* insertRows(runner, "visits", ["id", ...VISIT_ROW_COLUMNS], rows);
    },
    *insertVisit(row) {
      const [inserted] = yield* allRows<{ id: number }>(runner, INSERT_VISIT, VISIT_ROW_COLUMNS.map((column) => row[column] ?? 0));
      return Number(inserted!.id);
    },
    *updateVisits(rows) {
      // One statement per chunk: the changes as a VALUES list joined to the visits (cast: PostgreSQL types bare VALUES parameters as text).
      const cell = "cast(? as integer)";
      for (const part of chunks(rows, 100)) {
        const values = part.map(() => `(${Array.from({ length: 6 }, () => cell).join(", ")})`).join(", ");
        yield* runStatement(
          runner,
          `with changes (id, pageviews, events, duration, exit_page, engaged) as (values ${values})
          update visits set pageviews = visits.pageviews + changes.pageviews, events = visits.events + changes.events,
            duration = ${greatest("visits.duration", "changes.duration")},
            exit_page = case when changes.exit_page = 0 then visits.exit_page else changes.exit_page end,
            engaged = visits.engaged + changes.engaged
          from changes where visits.id = changes.id`,
          part.flatMap((r) => [r.id, r.pageviews, r.events, r.duration, r.exit_page, r.engaged]),
        );
      }
    },
    *insertHits(rows) {
      yield* insertRows(runner, "hits", ["website_id", "visit_id", "time", "page", "event", "seq"], rows);
    },
    *insertProps(rows) {
      yield* insertRows(runner, "event_props", ["website_id", "visit_id", "time", "event", "seq", "name", "value"], rows);
    },
    *saveVisitors(rows) {
      const updates = VISITOR_COLUMNS.slice(3).map((column) => `${column} = excluded.${column}`).join(", ");
      yield* insertRows(runner, "visitors", VISITOR_COLUMNS, rows, `on conflict (hash) do update set ${updates}`);
    },
    *addCounts(rows) {
      const sorted = dialect.lockRows ? [...rows].sort(compareCounterRows) : rows;
      const stored = sorted.map((r) => ({ website_id: r.websiteId, name: r.name, period: r.period, value: r.value, count: r.count }));
      yield* insertRows(runner, "rollups", ["website_id", "name", "period", "value", "count"], stored, "on conflict (website_id, name, period, value) do update set count = rollups.count + excluded.count");
    },
    *touchDays(rows) {
      // One order for every process, as for the rollups.
      const sorted = [...rows].sort((a, b) => a.website_id - b.website_id || a.day - b.day).map((row) => ({ ...row, version: 1 }));
      yield* insertRows(runner, "day_versions", ["website_id", "day", "version", "last_hit"], sorted,
        `on conflict (website_id, day) do update set version = day_versions.version + 1, last_hit = ${greatest("day_versions.last_hit", "excluded.last_hit")}`);
    },
  };
  const { reserveIdsSql } = dialect;
  if (reserveIdsSql) {
    io.reserveVisitIds = function* (count) {
      return (yield* allRows<{ id: number }>(runner, reserveIdsSql, ["visits", count])).map((row) => Number(row.id));
    };
  }
  return io;
}

export function stateOf(row: VisitorsTable): VisitorState {
  return {
    hash: row.hash,
    websiteId: Number(row.website_id),
    day: row.day,
    lastSeen: Number(row.last_seen),
    visitReferrer: row.visit_referrer,
    visitCampaign: row.visit_campaign,
    seen: new Set(row.seen === "" ? [] : row.seen.split("\n")),
    firstVisitId: Number(row.visitor),
    visit: Number(row.visit),
    visitStart: Number(row.visit_start),
    visitDay: row.visit_day,
    visitPageviews: Number(row.visit_pageviews),
    visitEvents: Number(row.visit_events),
    visitExit: row.visit_exit,
  };
}

export function rowOf(state: VisitorState): VisitorsTable {
  return {
    hash: state.hash,
    website_id: state.websiteId,
    day: state.day,
    last_seen: state.lastSeen,
    visit_referrer: state.visitReferrer,
    visit_campaign: state.visitCampaign,
    seen: [...state.seen].slice(0, MAX_SEEN_PER_VISITOR).join("\n"),
    visitor: state.firstVisitId,
    visit: state.visit,
    visit_start: state.visitStart,
    visit_day: state.visitDay,
    visit_pageviews: state.visitPageviews,
    visit_events: state.visitEvents,
    visit_exit: state.visitExit,
  };
}

/** A row just claimed: today's, with nothing counted yet. */
export const claimedRow = (claim: VisitorClaim): VisitorsTable => rowOf(newVisitorState(claim.hash, claim.websiteId, claim.day));
