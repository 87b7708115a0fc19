import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import { rollupDimensions } from "../storage/segments-backfill.js";
import type { SqlDialect } from "../storage/dialect.js";
import { createCounters } from "../model/counters.js";
import { STAT_KINDS } from "../model/dimensions.js";
import { VALUE_SOURCES, type NewDimension } from "../ingest/dictionary.js";
import { createFlushIo } from "../ingest/flush-io.js";
import { writeCounts } from "../ingest/rollup-counts.js";
import { kyselyRunner } from "../storage/kysely-runner.js";
import { runAsync } from "../shared/steps.js";
import { withoutTrackingParams } from "../ingest/tracking-params.js";
import { DAY_ONLY } from "../model/stat-names.js";
import type { CountDraft } from "./import-items.js";

/** Statistics whose values are pages: cleaned of tracking parameters as a hit's page is. */
const PAGE_STATISTICS: ReadonlySet<string> = new Set(Object.keys(STAT_KINDS).filter((name) => STAT_KINDS[name] === "page"));

/** Days of counts summed in memory before one transaction writes them. */
const ROWS_PER_WRITE = 2000;

/**
 * Adds daily aggregates to a website's rollups (as the engine does: day rows, and the
 * wider periods' once closed) and their values to the dictionary (as values from before any daily limit, like
 * the backfill), a bounded batch per transaction. Page values lose their tracking
 * parameters on the way, as live hits' do.
 */
export function createCountsWriter(db: Kysely<Database>, dialect: SqlDialect, websiteId: number) {
  let counters = createCounters();
  let dimensions = new Map<string, NewDimension>();
  let pending = 0;

  async function write(): Promise<void> {
    if (pending === 0) return;
    const counts = counters;
    const values = [...dimensions.values()];
    counters = createCounters();
    dimensions = new Map();
    pending = 0;
    await db.transaction().execute(async (trx) => {
      const io = createFlushIo(kyselyRunner(trx, dialect), dialect);
      await runAsync(io.insertDimensions(values));
      await runAsync(writeCounts(io, counts));
    });
  }

  return {
    async add(day: string, counts: readonly CountDraft[]): Promise<void> {
      for (const { name, value: given, count } of counts) {
        const value = PAGE_STATISTICS.has(name) ? withoutTrackingParams(given) : given;
        if (DAY_ONLY.has(name)) counters.addDaily(websiteId, name, day, value, count);
        else counters.add(websiteId, name, day, value, count);
        for (const entry of rollupDimensions(websiteId, name, value, 0))
          dimensions.set(`${entry.kind}|${entry.value}`, { ...entry, created_by: VALUE_SOURCES.import });
      }
      if (++pending >= ROWS_PER_WRITE) await write();
    },
    /** Writes what is still summed in memory. */
    flush: write,
  };
}
