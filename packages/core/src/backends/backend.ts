import type { CopyEnd } from "../moving/copy.js";
import type { StatsRunner } from "../stats/stats.js";
import type { EngineStore } from "../storage/store.js";

/** Statistics read under a bound, until closed. */
export interface StatsReads extends StatsRunner {
  close(): Promise<void>;
}

/**
 * What Tally needs of a database: the connection (accounts, websites, reports, imports),
 * where the engine writes, where statistics are read within `timeoutMs` (the reading code
 * loaded with the first statistic: an app that only collects never holds it), and what a
 * copy needs. One implementation per folder beside this file (`sqlite/`, `postgres/`, each
 * with the same file names); only the composition root (open-database.ts) picks one.
 */
export interface Backend extends CopyEnd {
  openWriter(): EngineStore;
  openReads(timeoutMs: number): Promise<StatsReads>;
}
