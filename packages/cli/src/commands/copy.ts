import {
  copyDatabase,
  copyHitsFromClickhouse,
  copyHitsIntoClickhouse,
  parseClickhouseUrl,
  parseDatabaseUrl,
} from "@tally-analytics/core/internal";
import { defineCommand, UsageError } from "../command.js";
import { createProgress } from "../progress.js";

/** A `--from`/`--to` database URL (or `--to-clickhouse`'s ClickHouse URL), checked before anything is opened. */
function databaseFrom(label: string, text: string | undefined, parse: (url: string) => unknown = parseDatabaseUrl): string {
  if (text === undefined || text === "") throw new UsageError(`${label} URL is required`);
  try {
    parse(text);
  } catch (error) {
    throw new UsageError(`${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return text;
}

/** A copy of hits (into ClickHouse or out of it) with progress on stderr, then its summary: how many, of how many websites, `where`. */
async function copyHits(
  print: (line: string) => void,
  where: string,
  copy: (onProgress: (p: { rows: number; totalRows: number }) => void) => Promise<{ websites: number; rows: number }>,
): Promise<void> {
  const progress = createProgress();
  try {
    const copied = await copy((p) => progress.update({ label: "copying hits", done: p.rows, total: p.totalRows, rows: p.rows }));
    progress.stop();
    const websites = `${copied.websites} website${copied.websites === 1 ? "" : "s"}`;
    print(`Copied ${copied.rows.toLocaleString("en-US")} hits and engagement signals of ${websites} ${where}.`);
  } finally {
    progress.stop();
  }
}

/**
 * `tally copy --from URL --to URL`: a whole installation into another database (SQLite ↔ PostgreSQL);
 * `--to-clickhouse URL` instead: its hits into ClickHouse; `--from-clickhouse URL --to URL`: them back.
 */
export const copyCommand = defineCommand({
  name: "copy",
  summary: "copy the whole installation into another database (SQLite ↔ PostgreSQL)",
  description:
    "Accounts, keys, websites, statistics, the visits store and salts; the target is created and\n" +
    "migrated, and every table's row count is compared at the end. DATABASE_URL is not read.\n" +
    "With --to-clickhouse instead of --to: every hit of the installation into ClickHouse (its\n" +
    "history, before the app writes there too); run again after a stop, it skips what ClickHouse holds.\n" +
    "With --from-clickhouse instead of --from: every hit in ClickHouse back into the installation's\n" +
    "database (--to), which forms visits and statistics as when they were collected; run again\n" +
    "after a stop, it skips the days written.",
  options: {
    from: { type: "string", value: "URL", description: "the database to copy (file:… or postgres://…)" },
    to: { type: "string", value: "URL", description: "the database to copy into" },
    force: { type: "boolean", description: "copy into a target that holds data (deleting it first; its events, with --from-clickhouse)" },
    "to-clickhouse": { type: "string", value: "URL", description: "copy the hits into this ClickHouse instead (http(s)://… or chdb:PATH)" },
    "from-clickhouse": { type: "string", value: "URL", description: "copy the hits in this ClickHouse into --to instead" },
  },
  async run({ values, env, print }) {
    if (values["from-clickhouse"] !== undefined) {
      if (values.from !== undefined) throw new UsageError("--from and --from-clickhouse: give one");
      if (values["to-clickhouse"] !== undefined) throw new UsageError("--from-clickhouse and --to-clickhouse: give one");
      const clickhouse = databaseFrom("--from-clickhouse", values["from-clickhouse"], parseClickhouseUrl);
      const to = databaseFrom("--to", values.to);
      await copyHits(print, "from ClickHouse into the database", (onProgress) =>
        copyHitsFromClickhouse({ clickhouse, to, force: values.force === true, onProgress }),
      );
      return;
    }
    const from = databaseFrom("--from", values.from);
    if (values["to-clickhouse"] !== undefined) {
      if (values.to !== undefined) throw new UsageError("--to and --to-clickhouse: give one");
      const clickhouse = databaseFrom("--to-clickhouse", values["to-clickhouse"], parseClickhouseUrl);
      await copyHits(print, "into ClickHouse", (onProgress) =>
        copyHitsIntoClickhouse({ from, clickhouse, cluster: env.CLICKHOUSE_CLUSTER, onProgress }),
      );
      return;
    }
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
