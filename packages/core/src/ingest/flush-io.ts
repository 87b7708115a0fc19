import type { Insertable } from "kysely";
import type {
  EventPropsTable,
  EventRevenueTable,
  HitsTable,
  PageEngagementTable,
  RollupWatermarksTable,
  VisitorsTable,
  VisitsTable,
} from "../storage/schema.js";
import type { CounterRow } from "../model/counters.js";
import type { DimensionIo, FoundDimension, NewDimension } from "./dictionary.js";
import { VISIT_COLUMNS } from "../model/dimensions.js";
import type { ClosingPeriod } from "../model/periods.js";
import { WIDER_ROLLUPS } from "../model/stat-names.js";
import type { WriteDialect } from "../storage/dialect.js";
import { allRows, holdStatement, runStatement, type RunResult, type SqlRunner } from "../storage/sql-runner.js";
import type { Steps } from "../shared/steps.js";
import { compileFieldList } from "../shared/compiled-literal.js";
import { shiftTrailing } from "../storage/trailing-rollup.js";
import { VITALS } from "../model/hit-input.js";
import { newVisitorState, type VisitorState } from "../model/hit.js";
import { MAX_SEEN_PER_VISITOR } from "./visit-processor.js";
import { VISITOR_COLUMNS, type VisitorRows } from "./visitor-rows.js";

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
  /** Stores one visit; answers its new id (where ids are not reserved first: SQLite). */
  insertVisit(row: VisitRow): Steps<number>;
  updateVisits(rows: readonly VisitUpdateRow[]): Steps<void>;
  insertHits(rows: readonly HitsTable[]): Steps<void>;
  insertProps(rows: readonly EventPropsTable[]): Steps<void>;
  insertRevenues(rows: readonly EventRevenueTable[]): Steps<void>;
  insertEngagements(rows: readonly PageEngagementTable[]): Steps<void>;
  saveVisitors(rows: readonly VisitorsTable[]): Steps<void>;
  addCounts(rows: readonly CounterRow[]): Steps<void>;
  /** The websites' rollup watermarks (model/periods.ts): website → the day its closed periods end by ("" or none: none closed). Locked until commit where rows are locked. */
  lockWatermarks(websiteIds: readonly number[]): Steps<Map<number, string>>;
  /** Replaces a closed period's rows of every wider rollup with the sums of its parts' rows. */
  sumPeriod(websiteId: number, closing: ClosingPeriod): Steps<void>;
  saveWatermark(websiteId: number, closedThrough: string): Steps<void>;
  /** Moves the website's trailing rollup rows from watermark `before` ("": none) to `after` (storage/trailing-rollup.ts). */
  shiftTrailing(websiteId: number, before: string, after: string): Steps<void>;
  /** Bumps the versions of the days whose visits changed (their day blocks are out of date). */
  touchDays(rows: readonly TouchedDay[]): Steps<void>;
  /** Deletes the outbox rows of the conversions this flush counts. */
  deleteOutboxRows(ids: readonly number[]): Steps<void>;
}

const placeholders = (count: number) => Array.from({ length: count }, () => "?").join(", ");

const list = (count: number, width: number) => Array.from({ length: count }, () => `(${placeholders(width)})`).join(", ");

/** A text per number of rows (or values), built once: a flush repeats the same few. */
function textsByCount(build: (count: number) => string): (count: number) => string {
  const texts: string[] = [];
  return (count) => (texts[count] ??= build(count));
}

/** `insert into table (columns) values (…), (…) [suffix]`, a statement per `rowsPerStatement` rows. */
function valuesInserter<R>(table: string, columns: readonly (keyof R & string)[], suffix = "") {
  const textFor = textsByCount((count) => `insert into ${table} (${columns.join(", ")}) values ${list(count, columns.length)} ${suffix}`);
  const paramsOf = compileFieldList<R>(columns);
  return function* insert(runner: SqlRunner, rows: readonly R[]): Steps<void> {
    for (const [count, paramLists] of batches(rows, runner.rowsPerStatement, paramsOf)) {
      yield runner.runEach(textFor(count), paramLists);
    }
  };
}

/** Rows a JSON list carries at most: bounds one parameter's size. */
const JSON_LIST_ROWS = 20_000;

/**
 * A JSON list as PostgreSQL reads it: JSON.stringify escapes a lone UTF-16 surrogate (a value
 * cut inside a pair, or sent that way) as `\udxxx`, which PostgreSQL's JSON refuses; it
 * becomes U+FFFD, what a UTF-8 encoder writes for one (and so what a parameter stored).
 */
export function jsonList(items: readonly unknown[], keys?: string[]): string {
  const json = JSON.stringify(items, keys);
  if (!json.includes("\\ud")) return json;
  // An escape ends a backslash run of odd length: `\\ud800` in the JSON is a backslash and the text "ud800".
  return json.replace(/(\\+)u(d[89a-f][0-9a-f]{2})/g, (match, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes.slice(1)}\ufffd` : match,
  );
}

/**
 * The same insert with the rows as one JSON parameter, typed by the table's own row type
 * (WriteDialect.jsonLists): one statement and one plan a list, whatever its length, held to go
 * out with the flush's other writes (SqlRunner.hold).
 */
function jsonInserter<R>(table: string, columns: readonly (keyof R & string)[], suffix = "") {
  const names = columns.join(", ");
  const keys: string[] = [...columns];
  const text = `insert into ${table} (${names}) select ${names} from json_populate_recordset(null::${table}, cast(? as json)) ${suffix}`;
  return function* insert(runner: SqlRunner, rows: readonly R[]): Steps<void> {
    for (let start = 0; start < rows.length; start += JSON_LIST_ROWS) {
      // The replacer list keeps each row's own columns, in the statement's order.
      const json = jsonList(rows.slice(start, start + JSON_LIST_ROWS), keys);
      yield* holdStatement(runner, table, text, [json]);
    }
  };
}

/**
 * Numbers as a PostgreSQL array literal, `{1,2,NULL}`: a list of numbers is one text parameter,
 * cheaper to write than JSON and to read than `json_populate_recordset`. What JSON would write
 * as null (a missing value, NaN, an infinity) is NULL.
 */
export function numberArray(values: readonly unknown[]): string {
  let text = "{";
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (index > 0) text += ",";
    text += typeof value === "number" && Number.isFinite(value) ? String(value) : "NULL";
  }
  return text + "}";
}

/** Texts as a PostgreSQL array literal, each quoted: `{"a","b\\"c"}`. */
export function textArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`;
}

/** A constant of the code as SQL text (a number, or a string quoted). */
const sqlLiteral = (value: string | number): string => (typeof value === "number" ? String(value) : `'${value.replace(/'/g, "''")}'`);

/** A column's SQL type in an array of numbers: `bigint` (read into integer columns too) unless given. */
type NumberTypes<R> = Partial<Record<keyof R & string, "double precision">>;

/**
 * An insert of rows whose columns are all numbers, each column one array parameter
 * (`unnest`), where lists are parameters (WriteDialect.jsonLists); held to go out with the
 * flush's other writes (SqlRunner.hold). Elsewhere a VALUES insert.
 */
function numbersInserter(dialect: WriteDialect) {
  return function inserter<R>(table: string, columns: readonly (keyof R & string)[], suffix = "", types: NumberTypes<R> = {}) {
    if (!dialect.jsonLists) return valuesInserter<R>(table, columns, suffix);
    const arrays = columns.map((column) => `cast(? as ${types[column] ?? "bigint"}[])`).join(", ");
    const text = `insert into ${table} (${columns.join(", ")}) select * from unnest(${arrays}) ${suffix}`;
    return function* insert(runner: SqlRunner, rows: readonly R[]): Steps<void> {
      for (let start = 0; start < rows.length; start += JSON_LIST_ROWS) {
        const part = rows.slice(start, start + JSON_LIST_ROWS);
        yield* holdStatement(
          runner,
          table,
          text,
          columns.map((column) => numberArray(part.map((row) => row[column]))),
        );
      }
    };
  };
}

/**
 * Items in statements of `size` (the last one shorter): each statement's parameters, grouped
 * by how many items it holds, so that one step runs every statement of the same text.
 */
function batches<T>(
  items: readonly T[],
  size: number,
  paramsOf: (item: T) => unknown[],
  before: readonly unknown[] = [],
): Map<number, unknown[][]> {
  // One item a statement (better-sqlite3, the hot path): one parameter list an item, nothing copied.
  if (size === 1) return new Map([[1, before.length === 0 ? items.map(paramsOf) : items.map((item) => [...before, ...paramsOf(item)])]]);
  const grouped = new Map<number, unknown[][]>();
  for (let start = 0; start < items.length; start += size) {
    const part = items.slice(start, start + size);
    const params = [...before];
    for (const item of part) params.push(...paramsOf(item));
    let lists = grouped.get(part.length);
    if (!lists) grouped.set(part.length, (lists = []));
    lists.push(params);
  }
  return grouped;
}

/** `select … where <column> in (?, …)` (and more), a statement per `rowsPerStatement` values. */
function selecter<R>(build: (matches: string) => string) {
  // `= ?` for one value: SQLite plans an IN list as a temporary index even for one.
  const textFor = textsByCount((count) => build(count === 1 ? "= ?" : `in (${placeholders(count)})`));
  return function* select(runner: SqlRunner, before: readonly unknown[], values: readonly unknown[]): Steps<R[]> {
    const found: R[] = [];
    for (const [count, paramLists] of batches(values, runner.rowsPerStatement, (value) => [value], before)) {
      found.push(...((yield runner.allEach(textFor(count), paramLists)) as R[]));
    }
    return found;
  };
}

/**
 * The same select with the values as one array parameter (WriteDialect.jsonLists), for a
 * text column: `= any(array)` is read through the column's index, where a JSON list
 * unpacked in a subquery was joined and cost several times more.
 */
function arrayTextSelecter<R>(build: (matches: string) => string) {
  const text = build("= any(cast(? as text[]))");
  return function* select(runner: SqlRunner, before: readonly unknown[], values: readonly unknown[]): Steps<R[]> {
    const found: R[] = [];
    for (let start = 0; start < values.length; start += JSON_LIST_ROWS) {
      found.push(...(yield* allRows<R>(runner, text, [...before, values.slice(start, start + JSON_LIST_ROWS)])));
    }
    return found;
  };
}

/** Tuples as one array per position (for `unnest` of array parameters). */
function columnsOf<T extends readonly unknown[]>(tuples: readonly T[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const tuple of tuples) for (let c = 0; c < width; c++) columns[c]!.push(tuple[c]);
  return columns;
}

/** A step per `JSON_LIST_ROWS` items, their answers together. */
function* eachList<T, R>(items: readonly T[], step: (list: readonly T[]) => Steps<R[]>): Steps<R[]> {
  if (items.length <= JSON_LIST_ROWS) return yield* step(items);
  const found: R[] = [];
  for (let start = 0; start < items.length; start += JSON_LIST_ROWS)
    found.push(...(yield* step(items.slice(start, start + JSON_LIST_ROWS))));
  return found;
}

/** A visit row's columns: its counts, then a dimension value's id per visit column of the registry. */
const VISIT_ROW_COLUMNS = [
  ...(["website_id", "visitor", "start", "duration", "pageviews", "events", "engaged"] as const satisfies readonly (keyof VisitRow)[]),
  ...VISIT_COLUMNS.map(({ column }) => column),
];

/** A visit row's parameters, in VISIT_ROW_COLUMNS' order (0 for a column the row lacks). */
const visitParams = compileFieldList<VisitRow>(VISIT_ROW_COLUMNS, 0);

/** A changed visit: id, then what to add or grow to. */
const VISIT_UPDATE_COLUMNS = [
  "id",
  "pageviews",
  "events",
  "duration",
  "exit_page",
  "engaged",
] as const satisfies readonly (keyof VisitUpdateRow)[];

/** An engagement row's columns: where it was, then what it reported. */
const ENGAGEMENT_COLUMNS = [
  "website_id",
  "visit_id",
  "time",
  "page",
  "engaged_ms",
  "scroll_depth",
  ...VITALS,
] as const satisfies readonly (keyof PageEngagementTable)[];

/** The texts of a dialect's flush statements, built once. */
function flushStatements(dialect: WriteDialect) {
  const inserter = dialect.jsonLists ? jsonInserter : valuesInserter;
  const numbersOnly = numbersInserter(dialect);
  const textSelecter = dialect.jsonLists ? arrayTextSelecter : selecter;
  const greatest = (a: string, b: string) => `${dialect.greatestFunction}(${a}, ${b})`;
  const cell = "cast(? as integer)"; // PostgreSQL types bare VALUES parameters as text
  const changes = textsByCount((count) =>
    Array.from({ length: count }, () => `(${VISIT_UPDATE_COLUMNS.map(() => cell).join(", ")})`).join(", "),
  );
  return {
    dimensions: textSelecter<{ id: number; value: string }>(
      (values) => `select id, value from dimensions where website_id = ? and kind = ? and value ${values}`,
    ),
    /** Every website's and kind's values at once (WriteDialect.jsonLists): one statement a flush. */
    dimensionsOf: `select d.website_id, d.kind, d.value, d.id
      from unnest(cast(? as integer[]), cast(? as integer[]), cast(? as text[])) as wanted (website_id, kind, value)
      join dimensions d on d.website_id = wanted.website_id and d.kind = wanted.kind and d.value = wanted.value`,
    createdCount: "select count(*) as n from dimensions where website_id = ? and kind = ? and created_day = ? and created_by = ?",
    /** The same counts for many keys at once, by their position (WriteDialect.jsonLists). */
    createdCounts: `select asked.n, count(d.id) as count
      from unnest(cast(? as integer[]), cast(? as integer[]), cast(? as integer[]), cast(? as integer[])) with ordinality
        as asked (website_id, kind, created_day, created_by, n)
      join dimensions d on d.website_id = asked.website_id and d.kind = asked.kind
        and d.created_day = asked.created_day and d.created_by = asked.created_by
      group by asked.n`,
    insertDimensions: inserter<NewDimension>(
      "dimensions",
      ["website_id", "kind", "value", "search", "created_day", "created_by"],
      "on conflict (website_id, kind, value) do nothing",
    ),
    outboxRows: textsByCount((count) => `delete from tally_outbox where id in (${placeholders(count)})`),
    /**
     * Today's visitor rows, new (claimedRow) where missing: the hashes, websites and days as three
     * array parameters, the rest of a new row the same for all; in the order of the hashes, so
     * concurrent flushes wait for each other instead of deadlocking (where rows are locked).
     */
    claimVisitors: `insert into visitors (${VISITOR_COLUMNS.join(", ")})
      select claimed.hash, claimed.website_id, claimed.day, ${VISITOR_COLUMNS.slice(3)
        .map((column) => sqlLiteral(NEW_VISITOR[column]))
        .join(", ")}
      from unnest(cast(? as text[]), cast(? as bigint[]), cast(? as text[])) as claimed (hash, website_id, day)
      order by claimed.hash on conflict (hash) do nothing`,
    visitors: textSelecter<VisitorsTable>(
      (hashes) => `select * from visitors where hash ${hashes}${dialect.lockRows ? " for update" : ""}`,
    ),
    insertVisitsWithIds: numbersOnly<VisitRow & { id: number }>("visits", ["id", ...VISIT_ROW_COLUMNS]),
    insertVisit: `insert into visits (${VISIT_ROW_COLUMNS.join(", ")}) values ${list(1, VISIT_ROW_COLUMNS.length)}`,
    // One visit a statement (better-sqlite3): a plain UPDATE by id; a VALUES list joined costs a plan per row.
    updateVisit: `update visits set pageviews = pageviews + ?, events = events + ?, duration = ${greatest("duration", "?")},
        exit_page = case when ? = 0 then exit_page else ? end, engaged = engaged + ? where id = ?`,
    updateVisits: textsByCount(
      (count) => `with changes (${VISIT_UPDATE_COLUMNS.join(", ")}) as (values ${changes(count)})
        update visits set pageviews = visits.pageviews + changes.pageviews, events = visits.events + changes.events,
          duration = ${greatest("visits.duration", "changes.duration")},
          exit_page = case when changes.exit_page = 0 then visits.exit_page else changes.exit_page end,
          engaged = visits.engaged + changes.engaged
        from changes where visits.id = changes.id`,
    ),
    /** The same update with each column of the changes as one array parameter (WriteDialect.jsonLists). */
    updateVisitsArrays: `update visits set pageviews = visits.pageviews + changes.pageviews, events = visits.events + changes.events,
        duration = ${greatest("visits.duration", "changes.duration")},
        exit_page = case when changes.exit_page = 0 then visits.exit_page else changes.exit_page end,
        engaged = visits.engaged + changes.engaged
      from unnest(${VISIT_UPDATE_COLUMNS.map(() => "cast(? as bigint[])").join(", ")}) as changes (${VISIT_UPDATE_COLUMNS.join(", ")})
      where visits.id = changes.id`,
    insertHits: numbersOnly<HitsTable>("hits", ["website_id", "visit_id", "time", "page", "event", "seq"]),
    insertProps: numbersOnly<EventPropsTable>("event_props", ["website_id", "visit_id", "time", "event", "seq", "name", "value"]),
    insertRevenues: inserter<EventRevenueTable>("event_revenue", ["website_id", "visit_id", "time", "event", "seq", "amount", "currency"]),
    insertEngagements: numbersOnly<PageEngagementTable>("page_engagement", ENGAGEMENT_COLUMNS, "", { cls: "double precision" }),
    saveVisitors: inserter<VisitorsTable>(
      "visitors",
      VISITOR_COLUMNS,
      `on conflict (hash) do update set ${VISITOR_COLUMNS.slice(3)
        .map((column) => `${column} = excluded.${column}`)
        .join(", ")}`,
    ),
    addCounts: inserter<RollupRow>(
      "rollups",
      ["website_id", "name", "period", "value", "count"],
      // Where rows are locked, in one order for every process: concurrent flushes lock rows without deadlocking.
      `${dialect.lockRows ? "order by website_id, name, period, value " : ""}on conflict (website_id, name, period, value)
        do update set count = rollups.count + excluded.count`,
    ),
    watermarks: selecter<{ website_id: number; closed_through: string }>(
      (ids) => `select website_id, closed_through from rollup_watermarks where website_id ${ids}${dialect.lockRows ? " for update" : ""}`,
    ),
    claimWatermarks: inserter<RollupWatermarksTable>(
      "rollup_watermarks",
      ["website_id", "closed_through"],
      "on conflict (website_id) do nothing",
    ),
    saveWatermark: `insert into rollup_watermarks (website_id, closed_through) values (?, ?)
      on conflict (website_id) do update set closed_through = excluded.closed_through`,
    deletePeriod: `delete from rollups where website_id = ? and name in (${placeholders(WIDER_ROLLUPS.length)}) and period = ?`,
    sumParts: textsByCount(
      (parts) => `insert into rollups (website_id, name, period, value, count)
        select website_id, name, cast(? as text), value, sum(count) from rollups
        where website_id = ? and name in (${placeholders(WIDER_ROLLUPS.length)}) and period in (${placeholders(parts)})
        group by website_id, name, value having sum(count) <> 0
        on conflict (website_id, name, period, value) do update set count = excluded.count`,
    ),
    touchDays: inserter<TouchedDay & { version: number }>(
      "day_versions",
      ["website_id", "day", "version", "last_hit"],
      `on conflict (website_id, day) do update set version = day_versions.version + 1, last_hit = ${greatest("day_versions.last_hit", "excluded.last_hit")}`,
    ),
  };
}

interface RollupRow {
  website_id: number;
  name: string;
  period: string;
  value: string;
  count: number;
}

const STATEMENTS = new WeakMap<WriteDialect, ReturnType<typeof flushStatements>>();

/**
 * The flush's statements, written once for SQLite and PostgreSQL. With `visitorRows`
 * (SQLite), visitor rows are found by the rowids it keeps, not by their hash.
 */
export function createFlushIo(runner: SqlRunner, dialect: WriteDialect, visitorRows?: VisitorRows): FlushIo {
  let statements = STATEMENTS.get(dialect);
  if (!statements) STATEMENTS.set(dialect, (statements = flushStatements(dialect)));
  const s = statements;
  const io: FlushIo = {
    *claimBatch(id, now) {
      return (
        (yield* runStatement(runner, "insert into written_batches (id, written_at) values (?, ?) on conflict do nothing", [id, now])) === 1
      );
    },
    *findDimensions(wants) {
      const found: FoundDimension[] = [];
      if (dialect.jsonLists) {
        const rows = yield* eachList(
          wants.flatMap(({ websiteId, kind, values }) => values.map((value) => [websiteId, kind, value] as const)),
          (list) => allRows<{ website_id: number; kind: number; value: string; id: number }>(runner, s.dimensionsOf, columnsOf(list, 3)),
        );
        for (const row of rows)
          found.push({ websiteId: Number(row.website_id), kind: Number(row.kind), value: row.value, id: Number(row.id) });
        return found;
      }
      for (const { websiteId, kind, values } of wants) {
        for (const row of yield* s.dimensions(runner, [websiteId, kind], values))
          found.push({ websiteId, kind, value: row.value, id: Number(row.id) });
      }
      return found;
    },
    *countNewDimensions(keys) {
      if (dialect.jsonLists) {
        const rows = yield* allRows<{ n: number; count: number }>(
          runner,
          s.createdCounts,
          columnsOf(
            keys.map((key) => [key.websiteId, key.kind, key.day, key.createdBy] as const),
            4,
          ),
        );
        const counts = keys.map(() => 0);
        for (const row of rows) counts[Number(row.n) - 1] = Number(row.count);
        return counts;
      }
      const counts: number[] = [];
      for (const { websiteId, kind, day, createdBy } of keys) {
        const [row] = yield* allRows<{ n: number }>(runner, s.createdCount, [websiteId, kind, day, createdBy]);
        counts.push(Number(row?.n ?? 0));
      }
      return counts;
    },
    *insertDimensions(rows) {
      yield* s.insertDimensions(runner, rows);
    },
    *claimVisitors(claims) {
      if (!dialect.lockRows) return;
      // Claiming rows first makes a second process wait for this one to commit before it
      // reads (in one order for all), so one visitor is never counted new twice.
      if (claims.length === 0) return;
      yield* holdStatement(runner, "visitors", s.claimVisitors, [
        textArray(claims.map((claim) => claim.hash)),
        numberArray(claims.map((claim) => claim.websiteId)),
        textArray(claims.map((claim) => claim.day)),
      ]);
    },
    loadVisitors: (hashes) => (visitorRows ? visitorRows.load(runner, hashes) : s.visitors(runner, [], [...hashes].sort())),
    *insertVisitsWithIds(rows) {
      yield* s.insertVisitsWithIds(runner, rows);
    },
    *insertVisit(row) {
      const { insertId } = (yield runner.run(s.insertVisit, visitParams(row))) as RunResult;
      if (insertId === null) throw new Error("the database did not tell the new visit's id");
      return insertId;
    },
    *updateVisits(rows) {
      if (runner.rowsPerStatement === 1) {
        const paramLists = rows.map((r) => [r.pageviews, r.events, r.duration, r.exit_page, r.exit_page, r.engaged, r.id]);
        yield runner.runEach(s.updateVisit, paramLists);
        return;
      }
      if (dialect.jsonLists) {
        if (rows.length === 0) return;
        const arrays = VISIT_UPDATE_COLUMNS.map((column) => numberArray(rows.map((row) => row[column])));
        // Only visits stored by earlier flushes change here, never a row this flush inserts: the update may go out with the insert.
        yield* holdStatement(runner, "visits stored before", s.updateVisitsArrays, arrays);
        return;
      }
      // Many a statement: the changes as a VALUES list joined to the visits.
      for (let start = 0; start < rows.length; start += 100) {
        const part = rows.slice(start, start + 100);
        yield* runStatement(
          runner,
          s.updateVisits(part.length),
          part.flatMap((row) => VISIT_UPDATE_COLUMNS.map((column) => row[column])),
        );
      }
    },
    *insertHits(rows) {
      yield* s.insertHits(runner, rows);
    },
    *insertEngagements(rows) {
      yield* s.insertEngagements(runner, rows);
    },
    *insertProps(rows) {
      yield* s.insertProps(runner, rows);
    },
    *insertRevenues(rows) {
      yield* s.insertRevenues(runner, rows);
    },
    *saveVisitors(rows) {
      yield* visitorRows ? visitorRows.save(runner, rows) : s.saveVisitors(runner, rows);
    },
    *addCounts(rows) {
      yield* s.addCounts(
        runner,
        rows.map((r) => ({ website_id: r.websiteId, name: r.name, period: r.period, value: r.value, count: r.count })),
      );
    },
    *lockWatermarks(websiteIds) {
      // Where rows are locked, each website's row exists before it is locked: two processes'
      // first flushes of a website then wait for each other, as later ones do.
      if (dialect.lockRows)
        yield* s.claimWatermarks(
          runner,
          websiteIds.map((website_id) => ({ website_id, closed_through: "" })),
        );
      const rows = yield* s.watermarks(runner, [], websiteIds);
      return new Map(rows.map((row) => [Number(row.website_id), row.closed_through]));
    },
    *sumPeriod(websiteId, { period, parts }) {
      yield* runStatement(runner, s.deletePeriod, [websiteId, ...WIDER_ROLLUPS, period]);
      yield* runStatement(runner, s.sumParts(parts.length), [period, websiteId, ...WIDER_ROLLUPS, ...parts]);
    },
    *saveWatermark(websiteId, closedThrough) {
      yield* holdStatement(runner, "rollup_watermarks", s.saveWatermark, [websiteId, closedThrough]);
    },
    shiftTrailing: (websiteId, before, after) => shiftTrailing(runner, websiteId, before, after),
    *deleteOutboxRows(ids) {
      for (let start = 0; start < ids.length; start += 100) {
        const part = ids.slice(start, start + 100);
        yield* holdStatement(runner, "tally_outbox", s.outboxRows(part.length), part);
      }
    },
    *touchDays(rows) {
      // One order for every process, as for the rollups.
      yield* s.touchDays(
        runner,
        [...rows].sort((a, b) => a.website_id - b.website_id || a.day - b.day).map((row) => ({ ...row, version: 1 })),
      );
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
    visitHostname: row.visit_hostname,
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
    visit_hostname: state.visitHostname,
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

/** What a claimed row holds beside its hash, website and day. */
const NEW_VISITOR = claimedRow({ hash: "", websiteId: 0, day: "" });
