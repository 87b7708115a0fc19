import { existsSync } from "node:fs";
import type { Kysely } from "kysely";
import { migrateToLatest } from "../storage/migrations.js";
import type { OpenDatabase } from "../storage/connection.js";
import type { Database } from "../storage/schema.js";
import { TallyError } from "../shared/errors.js";

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
  funnels: 10,
  imports: 11,
  salts: 12,
  visitors: 13,
  dimensions: 14,
  visits: 15,
  hits: 16,
  event_props: 17,
  event_revenue: 33,
  // After its visits, like hits.
  page_engagement: 24,
  rollups: 18,
  day_versions: 19,
  day_blocks: 20,
  written_batches: 21,
  // Conversions committed and not yet counted.
  tally_outbox: 22,
  rollup_watermarks: 23,
  // After their websites; deliveries after their rules.
  alert_rules: 25,
  alert_deliveries: 26,
  goals: 27,
  annotations: 28,
  // After users, whose personal segments they may be.
  saved_segments: 29,
  share_links: 30,
  // The secret two-factor secrets are encrypted with (when none is configured), and where people signed in from.
  server_secrets: 31,
  familiar_places: 32,
  // Windows of sign-in limits: minutes long, each database's own.
  attempts: null,
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

export type Row = Record<string, unknown>;

/** Rows per read and per insert statement (far below both databases' parameter limits: visits have 24 columns). */
export const COPY_BATCH = 500;

/** A consistent read of the source: one snapshot for every table. */
export interface SnapshotReader {
  count(table: string): Promise<number>;
  /** The table's rows, a batch of at most COPY_BATCH at a time. */
  rows(table: string): AsyncGenerator<Row[]>;
}

/** What a copy needs of each database beyond the connection: each backend implements it (backends/<name>/index.ts). */
export interface CopyEnd extends OpenDatabase {
  /** Runs `read` on one consistent snapshot of every table. */
  snapshot<T>(read: (reader: SnapshotReader) => Promise<T>): Promise<T>;
  /** After rows were written with their own ids: new rows continue after them. */
  continueIds(): Promise<void>;
}

async function countRows(db: Kysely<Database>, table: keyof Database): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Opens a database by URL: given by the composition root, the only place that knows the backends. */
export type OpenByUrl = (url: string) => Promise<CopyEnd>;

/** Opens one side of a copy, migrated; a source must exist (a file is not created by reading it). */
export async function openSide<End extends CopyEnd>(
  open: (url: string) => Promise<End>,
  url: string,
  role: "source" | "target",
): Promise<End> {
  const path = url.replace(/^file:(\/\/)?/, "");
  if (role === "source" && !/^postgres(ql)?:\/\//i.test(url) && url !== ":memory:" && !existsSync(path))
    throw new TallyError(`${url}: no such database file`);
  const side = await open(url);
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
export async function copyInstallation(options: CopyOptions, open: OpenByUrl): Promise<CopyResult> {
  if (options.from === options.to) throw new TallyError("--from and --to name the same database");
  const source = await openSide(open, options.from, "source");
  try {
    const target = await openSide(open, options.to, "target");
    try {
      const filled = [];
      for (const table of COPIED_TABLES) if ((await countRows(target.db, table)) > 0) filled.push(table);
      if (filled.length > 0 && !options.force)
        throw new TallyError(`${options.to} already holds data (${filled.join(", ")}); pass --force to replace it`);
      if (filled.length > 0) await emptyTarget(target);
      const tables = await source.snapshot((reader) => copyTables(reader, target, options));
      await target.continueIds();
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
    for (const value of Object.values(row))
      size += value instanceof Uint8Array ? value.byteLength : typeof value === "string" ? value.length : 8;
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
      for (const part of byteSizedParts(batch))
        await target.db
          .insertInto(table)
          .values(part as never)
          .execute();
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
