import type { SqlRunner } from "../../storage/sql-runner.js";

/** A prepared better-sqlite3 statement, as the runner uses it. */
export interface SqliteStatement {
  readonly reader?: boolean;
  run(...params: unknown[]): { lastInsertRowid: number | bigint; changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** Statements kept prepared per handle: a flush's texts repeat (chunk sizes vary a little). */
const MAX_PREPARED = 2_000;

/** Runs SQL text synchronously on a better-sqlite3 handle, each text prepared once. */
export function sqliteRunner(sqlite: { prepare(text: string): SqliteStatement }): SqlRunner {
  const prepared = new Map<string, SqliteStatement>();
  const statement = (text: string) => {
    let found = prepared.get(text);
    if (!found) {
      if (prepared.size >= MAX_PREPARED) prepared.clear();
      prepared.set(text, (found = sqlite.prepare(text)));
    }
    return found;
  };
  return {
    rowsPerStatement: 1,
    all: (text, params) => statement(text).all(...params) as Record<string, unknown>[],
    runEach(text, paramLists) {
      const prepared = statement(text);
      let changed = 0;
      for (const params of paramLists) changed += prepared.run(...params).changes;
      return changed;
    },
    allEach(text, paramLists) {
      const prepared = statement(text);
      const rows: Record<string, unknown>[] = [];
      for (const params of paramLists) rows.push(...(prepared.all(...params) as Record<string, unknown>[]));
      return rows;
    },
    run(text, params) {
      const { changes, lastInsertRowid } = statement(text).run(...params);
      return { changes, insertId: Number(lastInsertRowid) };
    },
  };
}
