import { sql, type Kysely } from "kysely";
import { createKyselyStore } from "../../ingest/kysely-store.js";
import { COPY_BATCH, type Row } from "../../moving/copy.js";
import type { Database } from "../../storage/schema.js";
import type { Backend } from "../backend.js";
import { postgresDialect } from "./sql-dialect.js";
import type { PostgresReadOptions } from "./reads.js";

/** PostgreSQL through kysely (a pool Tally opened, or one or a Kysely the app passed: `close` says which). */
export function postgresBackend(db: Kysely<Database>, close: () => Promise<void>, readOptions: PostgresReadOptions = {}): Backend {
  return {
    db,
    dialect: postgresDialect,
    place: "server",
    close,
    openWriter: () => createKyselyStore(db, postgresDialect),
    async openReads(timeoutMs) {
      const [{ databaseSources }, { createBlockColumnStore }, { createPostgresStatsReads }] = await Promise.all([
        import("../../stats/database-readers.js"),
        import("../../stats/block-column-store.js"),
        import("./reads.js"),
      ]);
      // Each request its own transaction; decoded day-block columns kept across them.
      const columnStore = createBlockColumnStore();
      const reads = createPostgresStatsReads(db, (on) => databaseSources(on, postgresDialect, columnStore), timeoutMs, readOptions);
      return { ...reads, close: async () => {} };
    },
    // One transaction, repeatable read: every table as of one moment; rows through a cursor, a batch at a time.
    snapshot: (read) =>
      db.connection().execute(async (connection) => {
        await sql`begin isolation level repeatable read read only`.execute(connection);
        try {
          return await read({
            count: async (table) =>
              Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(connection)).rows[0]?.n ?? 0),
            async *rows(table) {
              // The stored columns, not those computed from them (rollups.trailing_count), which no insert may name.
              const { rows: columns } = await sql<{ column_name: string }>`select column_name from information_schema.columns
                where table_schema = current_schema() and table_name = ${table} and is_generated = 'NEVER' order by ordinal_position`.execute(
                connection,
              );
              const stored = sql.join(columns.map(({ column_name }) => sql.ref(column_name)));
              await sql`declare tally_copy no scroll cursor for select ${stored} from ${sql.table(table)}`.execute(connection);
              for (;;) {
                const { rows } = await sql<Row>`fetch ${sql.raw(String(COPY_BATCH))} from tally_copy`.execute(connection);
                if (rows.length === 0) break;
                yield rows;
              }
              await sql`close tally_copy`.execute(connection);
            },
          });
        } finally {
          await sql`commit`.execute(connection);
        }
      }),
    // Serial columns continue after the copied ids.
    async continueIds() {
      const { rows } = await sql<{ table_name: string; column_name: string }>`select table_name, column_name from information_schema.columns
        where table_schema = current_schema() and column_default like 'nextval(%'`.execute(db);
      for (const { table_name: table, column_name: column } of rows) {
        await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(
          db,
        );
      }
    },
  };
}
