import { copyDatabase, parseDatabaseUrl } from "@tally-analytics/core/internal";
import { defineCommand, UsageError } from "../command.js";
import { createProgress } from "../progress.js";

/** A `--from`/`--to` database URL, checked before anything is opened. */
function databaseFrom(label: string, text: string | undefined): string {
  if (text === undefined || text === "") throw new UsageError(`${label} URL is required`);
  try {
    parseDatabaseUrl(text);
  } catch (error) {
    throw new UsageError(`${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return text;
}

/** `tally copy --from URL --to URL`: a whole installation into another database (SQLite ↔ PostgreSQL). */
export const copyCommand = defineCommand({
  name: "copy",
  summary: "copy the whole installation into another database (SQLite ↔ PostgreSQL)",
  description:
    "Accounts, keys, websites, statistics, the visits store and salts; the target is created and\n" +
    "migrated, and every table's row count is compared at the end. DATABASE_URL is not read.",
  options: {
    from: { type: "string", value: "URL", description: "the database to copy (file:… or postgres://…)" },
    to: { type: "string", value: "URL", description: "the database to copy into" },
    force: { type: "boolean", description: "copy into a target that holds data (deleting it first)" },
  },
  async run({ values, print }) {
    const from = databaseFrom("--from", values.from);
    const to = databaseFrom("--to", values.to);
    const progress = createProgress();
    try {
      const result = await copyDatabase({
        from,
        to,
        force: values.force === true,
        onProgress: (p) => progress.update({ label: "copying", done: p.rows, total: p.totalRows, rows: p.rows }),
      });
      progress.stop();
      const total = result.tables.reduce((sum, table) => sum + table.rows, 0);
      print(`Copied ${total.toLocaleString("en-US")} rows of ${result.tables.length} tables; every table has as many rows in the target:`);
      const width = Math.max(...result.tables.map(({ table }) => table.length));
      for (const { table, rows } of result.tables) print(`  ${table.padEnd(width)}  ${rows.toLocaleString("en-US")}`);
    } finally {
      progress.stop();
    }
  },
});
