import type { WriteDialect } from "../../storage/dialect.js";

/** What the flush writes differently on PostgreSQL: rows locked in one order, ids from the sequences, lists as JSON. */
export const postgresWriteDialect: WriteDialect = {
  lockRows: true,
  greatestFunction: "greatest",
  rowLocator: "tableoid, ctid",
  reserveIdsSql: "select nextval(pg_get_serial_sequence(?, 'id'))::int as id from generate_series(1, ?::int)",
  jsonLists: true,
};
