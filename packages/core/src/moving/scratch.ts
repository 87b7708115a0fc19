import { join } from "node:path";
import type Database from "better-sqlite3";
import { lazyRequire } from "../shared/lazy-require.js";

const BetterSqlite3 = lazyRequire<typeof Database>("better-sqlite3");

/**
 * A throw-away SQLite file in the import's temporary directory: joins (Umami's sessions)
 * and sorting (rows out of time order) in bounded memory, whatever the input's size.
 */
export function openScratch(directory: string, name: string): Database.Database {
  const db = new (BetterSqlite3())(join(directory, `${name}.sqlite`));
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  return db;
}

/** Inserts rows in transactions of `size`; returns a function to add a row and one to finish. */
export function batchedInsert(db: Database.Database, sql: string, size = 5000) {
  const statement = db.prepare(sql);
  let pending: unknown[][] = [];
  const write = db.transaction((rows: unknown[][]) => {
    for (const row of rows) statement.run(...row);
  });
  return {
    add(row: unknown[]) {
      pending.push(row);
      if (pending.length >= size) {
        write(pending);
        pending = [];
      }
    },
    finish() {
      if (pending.length > 0) write(pending);
      pending = [];
    },
  };
}
