import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { SqlDialect } from "./dialect.js";
import type { Database } from "./schema.js";
import type { Steps } from "../shared/steps.js";

type MaybePromise<T> = T | Promise<T>;
export type Row = Record<string, unknown>;

/**
 * Runs SQL text with `?` placeholders: synchronously on a better-sqlite3 handle (the
 * writer thread), with promises through kysely (PostgreSQL, or a Kysely an app passed
 * in). The engine's writes are written once against it (ingest/flush-io.ts,
 * ingest/engine-writes.ts) and driven by `runSync` or `runAsync`.
 */
export interface SqlRunner {
  /**
   * Rows per statement for lists of rows: 1 where running a prepared statement is cheap and
   * preparing one is not (better-sqlite3, in process), hundreds where each statement is a
   * round trip (PostgreSQL).
   */
  readonly rowsPerStatement: number;
  all(text: string, params: readonly unknown[]): MaybePromise<Row[]>;
  run(text: string, params: readonly unknown[]): MaybePromise<RunResult>;
  /** `run` of one text once per parameter list, in order: answers the rows changed in all. One step for a batch (the write path's hot loop). */
  runEach(text: string, paramLists: readonly (readonly unknown[])[]): MaybePromise<number>;
  /** `all` of one text once per parameter list, the rows of every run together. */
  allEach(text: string, paramLists: readonly (readonly unknown[])[]): MaybePromise<Row[]>;
}

/** What a statement changed: how many rows, and the id of the last row it inserted (SQLite). */
export interface RunResult {
  changes: number;
  insertId: number | null;
}

/** `all` as one step of a procedure written with `Steps`. */
export function* allRows<R>(runner: SqlRunner, text: string, params: readonly unknown[]): Steps<R[]> {
  return (yield runner.all(text, params)) as R[];
}

/** `run` as one step; answers the rows changed. */
export function* runStatement(runner: SqlRunner, text: string, params: readonly unknown[]): Steps<number> {
  return ((yield runner.run(text, params)) as RunResult).changes;
}

/** `?` → `$1, $2, …` for PostgreSQL (Tally's statements have no `?` but their placeholders). */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** A runner on a kysely connection or transaction. */
export function kyselyRunner(db: Kysely<Database> | Transaction<Database>, dialect: SqlDialect): SqlRunner {
  const texts = new Map<string, string>();
  const textOf = (text: string) => {
    if (dialect.name !== "postgres") return text;
    let converted = texts.get(text);
    if (converted === undefined) texts.set(text, (converted = numbered(text)));
    return converted;
  };
  return {
    rowsPerStatement: 500,
    async all(text, params) {
      return (await db.executeQuery<Row>(CompiledQuery.raw(textOf(text), [...params]))).rows;
    },
    async run(text, params) {
      const result = await db.executeQuery(CompiledQuery.raw(textOf(text), [...params]));
      return { changes: Number(result.numAffectedRows ?? 0n), insertId: result.insertId === undefined ? null : Number(result.insertId) };
    },
    async runEach(text, paramLists) {
      let changed = 0;
      for (const params of paramLists)
        changed += Number((await db.executeQuery(CompiledQuery.raw(textOf(text), [...params]))).numAffectedRows ?? 0n);
      return changed;
    },
    async allEach(text, paramLists) {
      const rows: Row[] = [];
      for (const params of paramLists) rows.push(...(await db.executeQuery<Row>(CompiledQuery.raw(textOf(text), [...params]))).rows);
      return rows;
    },
  };
}
