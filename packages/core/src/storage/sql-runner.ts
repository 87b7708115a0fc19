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
  /**
   * Where each statement is a round trip (PostgreSQL, in a flush): queues a write whose answer
   * nobody reads. The writes queued go out together as one statement (each a data-modifying
   * `WITH` clause) before the runner's next statement, or at `release`. `rows` names what it
   * writes (a table, or rows of one no other write touches): a second write to rows queued
   * already sends the queue first (no statement sees its own changes).
   */
  hold?(rows: string, text: string, params: readonly unknown[]): MaybePromise<void>;
  /** Sends what `hold` queued; the transaction may end only after it. */
  release?(): MaybePromise<void>;
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

/** A write whose answer nobody reads, as one step: queued where the runner holds writes, else run. */
export function* holdStatement(runner: SqlRunner, rows: string, text: string, params: readonly unknown[]): Steps<void> {
  yield runner.hold ? runner.hold(rows, text, params) : runner.run(text, params);
}
