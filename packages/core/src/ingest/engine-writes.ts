import type { Hit } from "../model/hit.js";
import type { Steps } from "../shared/steps.js";
import type { WriteDialect } from "../storage/dialect.js";
import { allRows, holdStatement, runStatement, type SqlRunner } from "../storage/sql-runner.js";
import { batchesKeptFrom, PROBE_KEY } from "../storage/write-safety.js";
import type { Dictionary } from "./dictionary.js";
import { createFlushIo } from "./flush-io.js";
import { OLD_VISITORS, type VisitorRows } from "./visitor-rows.js";
import { writeFlush } from "./write-flush.js";

/** Tables holding a website's events and what is counted of them: hits, signals, visits, visitor rows, rollups. */
export const WEBSITE_EVENT_TABLES = [
  "rollups",
  "rollup_watermarks",
  "visitors",
  "visits",
  "hits",
  "event_props",
  "event_revenue",
  "page_engagement",
  "day_versions",
  "day_blocks",
] as const;

/** Tables holding a website's statistics, visitor rows, funnels, goals, annotations, saved segments and share links (deleted with the website). */
const WEBSITE_TABLES = [...WEBSITE_EVENT_TABLES, "dimensions", "funnels", "goals", "annotations", "saved_segments", "share_links"] as const;

/** Tables whose rows retention deletes by a local time, bounded per call. */
const TIMED_TABLES = [
  ["hits", "time"],
  ["event_props", "time"],
  ["event_revenue", "time"],
  ["page_engagement", "time"],
  ["visits", "start"],
] as const;

/**
 * Every write of the engine's own tables, written once as steps on a runner: a backend
 * runs each in one transaction, synchronously (better-sqlite3 on its writer thread) or
 * with promises (kysely). docs/architecture.md, "A hit's path".
 */
export function engineWrites(runner: SqlRunner, dialect: WriteDialect, dictionary: Dictionary, visitorRows?: VisitorRows) {
  const io = createFlushIo(runner, dialect, visitorRows);
  return {
    /** One flush (ingest/write-flush.ts). */
    write: (hits: readonly Hit[], batchId: string): Steps<void> => writeFlush(io, dictionary, hits, batchId),

    *probe(): Steps<void> {
      const text = "insert into tally_meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value";
      yield* runStatement(runner, text, [PROBE_KEY, new Date().toISOString()]);
    },

    *deleteWebsite(websiteId: number): Steps<void> {
      for (const table of WEBSITE_TABLES) yield* runStatement(runner, `delete from ${table} where website_id = ?`, [websiteId]);
      visitorRows?.forget();
    },

    *salt(day: string, candidate: string): Steps<string> {
      // One statement: the day's salt as stored, even when retention deletes old days' salts meanwhile.
      const [row] = yield* allRows<{ salt: string }>(
        runner,
        "insert into salts (day, salt) values (?, ?) on conflict (day) do update set salt = salts.salt returning salt",
        [day, candidate],
      );
      return row!.salt;
    },

    *forgetBefore(day: string): Steps<void> {
      yield* holdStatement(runner, "salts", "delete from salts where day < ?", [day]);
      if (visitorRows) yield* visitorRows.deleteBefore(runner, day);
      else yield* holdStatement(runner, "visitors", `delete from visitors where ${OLD_VISITORS}`, [day]);
      yield* holdStatement(runner, "written_batches", "delete from written_batches where written_at < ?", [batchesKeptFrom(day)]);
    },

    *deleteOlderThan(websiteId: number, localSeconds: number, limit: number): Steps<number> {
      // The versions and blocks of the days that went (a few rows a day), not counted as rows deleted.
      for (const table of ["day_versions", "day_blocks"]) {
        yield* runStatement(runner, `delete from ${table} where website_id = ? and day < ?`, [websiteId, Math.ceil(localSeconds / 86_400)]);
      }
      let deleted = 0;
      const at = dialect.rowLocator;
      for (const [table, column] of TIMED_TABLES) {
        const text = `delete from ${table} where (${at}) in (select ${at} from ${table} where website_id = ? and ${column} < ? limit ?)`;
        deleted += yield* runStatement(runner, text, [websiteId, localSeconds, limit]);
      }
      return deleted;
    },
  };
}

export type EngineWrites = ReturnType<typeof engineWrites>;
