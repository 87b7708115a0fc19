import { copyDatabase } from "@tally-analytics/core";
import { UsageError, stringFlag, type ParsedArgs } from "../args.js";
import { createProgress } from "../progress.js";

type Print = (line: string) => void;

const USAGE = "usage: tally copy --from DATABASE_URL --to DATABASE_URL [--force]";

/** `tally copy --from URL --to URL`: a whole installation into another database (SQLite ↔ PostgreSQL). */
export async function copyCommand(args: ParsedArgs, print: Print): Promise<void> {
  const from = stringFlag(args, "from");
  const to = stringFlag(args, "to");
  if (from === undefined || to === undefined) throw new UsageError(USAGE);
  const progress = createProgress();
  try {
    const result = await copyDatabase({
      from,
      to,
      force: args.flags.has("force"),
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
}
