import { existsSync } from "node:fs";
import { sql, type Kysely } from "kysely";
import { migrateToLatest } from "../database/migrations.js";
import { openDatabase, type OpenDatabase } from "../database/open-database.js";
import type { Database } from "../database/schema.js";
import { TallyError } from "../errors.js";

/**
 * Every table of Tally's schema, in an order that satisfies foreign keys. `satisfies`
 * makes a table added to schema.ts without being added here a compile error: a copy can
 * never leave one behind silently (and test/moving/copy.test.ts compares every table).
 */
const COPY_ORDER = {
  accounts: 1,
  users: 2,
  sessions: 3,
  user_tokens: 4,
  recovery_codes: 5,
  api_keys: 6,
  report_runs: 7,
  report_secrets: 8,
  websites: 9,
  imports: 10,
  salts: 11,
  visitors: 12,
  dimensions: 13,
  visits: 14,
  hits: 15,
  event_props: 16,
  rollups: 17,
  day_versions: 18,
  day_blocks: 19,
  written_batches: 20,
  // Each database's own (its id names the files of hits kept at shutdown): never copied.
  tally_meta: null,
} satisfies Record<keyof Database, number | null>;

export const COPIED_TABLES = (Object.keys(COPY_ORDER) as (keyof Database)[])
  .filter((table) => COPY_ORDER[table] !== null)
  .sort((a, b) => COPY_ORDER[a]! - COPY_ORDER[b]!);

export interface CopyOptions {
  /** The installation to copy: `file:./data/tally.sqlite`, a path, or `postgres://…`. */
  from: string;
  /** Where to: the same kinds of URL; created and migrated when empty. */
  to: string;
  /**
   * Copy into a target that already holds data, deleting it first.
   * @default false
   */
  force?: boolean;
  /** Told of the rows copied so far (a few times a second). */
  onProgress?: (progress: CopyProgress) => void;
}

export interface CopyProgress {
  table: string;
  rows: number;
  totalRows: number;
}

export interface CopyResult {
  /** Rows of each table, the same on both sides (checked). */
  tables: { table: string; rows: number }[];
}

type Row = Record<string, unknown>;

/** Rows per read and per insert statement (far below both databases' parameter limits: visits have 24 columns). */
const BATCH = 500;

/** A consistent read of the source: one snapshot for every table. */
interface SnapshotReader {
  count(table: string): Promise<number>;
  rows(table: string): AsyncGenerator<Row[]>;
}

async function withSnapshot<T>(source: OpenDatabase, read: (reader: SnapshotReader) => Promise<T>): Promise<T> {
  if (source.sqlite) {
    const handle = source.sqlite;
    handle.prepare("begin").run();
    try {
      return await read({
        count: async (table) => Number((handle.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n),
        async *rows(table) {
          let batch: Row[] = [];
          // Opened from a URL, this is better-sqlite3 itself: rows are streamed, not loaded.
          const statement = handle.prepare(`select * from ${table}`) as unknown as { iterate(): Iterable<Row> };
          for (const row of statement.iterate()) {
            batch.push(row);
            if (batch.length === BATCH) {
              yield batch;
              batch = [];
            }
          }
          if (batch.length > 0) yield batch;
        },
      });
    } finally {
      handle.prepare("commit").run();
    }
  }
  return source.db.connection().execute(async (connection) => {
    await sql`begin isolation level repeatable read read only`.execute(connection);
    try {
      return await read({
        count: async (table) => Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(connection)).rows[0]?.n ?? 0),
        async *rows(table) {
          await sql`declare tally_copy no scroll cursor for select * from ${sql.table(table)}`.execute(connection);
          for (;;) {
            const { rows } = await sql<Row>`fetch ${sql.raw(String(BATCH))} from tally_copy`.execute(connection);
            if (rows.length === 0) break;
            yield rows;
          }
          await sql`close tally_copy`.execute(connection);
        },
      });
    } finally {
      await sql`commit`.execute(connection);
    }
  });
}

async function countRows(db: Kysely<Database>, table: keyof Database): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** PostgreSQL: serial columns continue after the copied ids (SQLite's AUTOINCREMENT follows inserted ids by itself). */
async function resetSequences(target: OpenDatabase): Promise<void> {
  if (target.dialect.name !== "postgres") return;
  const { rows } = await sql<{ table_name: string; column_name: string }>`select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and column_default like 'nextval(%'`.execute(target.db);
  for (const { table_name: table, column_name: column } of rows) {
    await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(target.db);
  }
}

async function openSide(url: string, role: "source" | "target"): Promise<OpenDatabase> {
  const path = url.replace(/^file:(\/\/)?/, "");
  if (role === "source" && !/^postgres(ql)?:\/\//i.test(url) && url !== ":memory:" && !existsSync(path)) throw new TallyError(`${url}: no such database file`);
  const side = await openDatabase(url);
  try {
    await migrateToLatest(side.db, side.dialect);
  } catch (error) {
    await side.close();
    throw error;
  }
  return side;
}

/** Deletes every row of the target's tables (children first). */
async function emptyTarget(target: OpenDatabase): Promise<void> {
  await target.db.transaction().execute(async (trx) => {
    for (const table of [...COPIED_TABLES].reverse()) await trx.deleteFrom(table).execute();
  });
}

/**
 * `tally copy`: every table of one installation into another database (SQLite ↔
 * PostgreSQL), read from one snapshot of the source, written in batches; refuses a target
 * that holds data unless `force`, then checks that every table has as many rows on both sides.
 */
export async function copyDatabase(options: CopyOptions): Promise<CopyResult> {
  if (options.from === options.to) throw new TallyError("--from and --to name the same database");
  const source = await openSide(options.from, "source");
  try {
    const target = await openSide(options.to, "target");
    try {
      const filled = [];
      for (const table of COPIED_TABLES) if ((await countRows(target.db, table)) > 0) filled.push(table);
      if (filled.length > 0 && !options.force) throw new TallyError(`${options.to} already holds data (${filled.join(", ")}); pass --force to replace it`);
      if (filled.length > 0) await emptyTarget(target);
      const tables = await withSnapshot(source, (reader) => copyTables(reader, target, options));
      await resetSequences(target);
      for (const { table, rows } of tables) {
        const copied = await countRows(target.db, table as keyof Database);
        if (copied !== rows) throw new TallyError(`table ${table}: ${rows} rows in the source, ${copied} in the target`);
      }
      return { tables };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** Most bytes of values one insert statement carries: day blocks are up to a few hundred kilobytes a row. */
const PART_BYTES = 8 * 1024 * 1024;

/** A batch in parts of at most PART_BYTES of binary and text values (a row too big alone is a part of its own). */
function* byteSizedParts(batch: readonly Row[]): Generator<Row[]> {
  let part: Row[] = [];
  let bytes = 0;
  for (const row of batch) {
    let size = 0;
    for (const value of Object.values(row)) size += value instanceof Uint8Array ? value.byteLength : typeof value === "string" ? value.length : 8;
    if (part.length > 0 && bytes + size > PART_BYTES) {
      yield part;
      part = [];
      bytes = 0;
    }
    part.push(row);
    bytes += size;
  }
  if (part.length > 0) yield part;
}

async function copyTables(reader: SnapshotReader, target: OpenDatabase, options: CopyOptions): Promise<CopyResult["tables"]> {
  const counts = [];
  for (const table of COPIED_TABLES) counts.push({ table, rows: await reader.count(table) });
  const totalRows = counts.reduce((sum, { rows }) => sum + rows, 0);
  let done = 0;
  let reported = 0;
  for (const { table } of counts) {
    for await (const batch of reader.rows(table)) {
      for (const part of byteSizedParts(batch)) await target.db.insertInto(table).values(part as never).execute();
      done += batch.length;
      if (Date.now() - reported > 200) {
        reported = Date.now();
        options.onProgress?.({ table, rows: done, totalRows });
      }
    }
  }
  options.onProgress?.({ table: "", rows: done, totalRows });
  return counts;
}
