import type { WriteDialect } from "../../storage/dialect.js";

/** What the flush writes differently on SQLite: one writer per file, so the file itself is the lock. */
export const sqliteWriteDialect: WriteDialect = {
  lockRows: false,
  greatestFunction: "max",
  rowLocator: "rowid",
};
