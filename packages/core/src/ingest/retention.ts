import { dayNumber } from "../shared/calendar.js";
import { createLocalClock } from "../model/local-time.js";
import { oneRunAtATime } from "../shared/one-run-at-a-time.js";
import type { EngineStore } from "../storage/store.js";

/** What retention needs of a website. */
export interface RetainedWebsite {
  id: number;
  timezone: string;
  retention_days: number;
}

export interface RetentionOptions {
  /** Rows per table deleted in one statement: each statement holds the write lock briefly. @default 5000 */
  batchSize?: number;
}

/** A turn of the event loop between batches, so writes of hits and other work go on meanwhile. */
const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Deletes each website's visits, hits and event properties older than its
 * `retention_days` (the last `retention_days` local days, today included, are kept),
 * in bounded batches. Rollups are never touched: unfiltered statistics keep all history.
 */
export function createRetention(
  store: Pick<EngineStore, "deleteOlderThan" | "retainHits">,
  websites: () => Promise<readonly RetainedWebsite[]>,
  options: RetentionOptions = {},
) {
  const batchSize = options.batchSize ?? 5000;
  const localTime = createLocalClock();

  async function apply(now: number): Promise<number> {
    let deleted = 0;
    const cutoffs = new Map<number, number>();
    for (const website of await websites()) {
      const today = dayNumber(localTime(website.timezone, now).day);
      const cutoff = (today - Number(website.retention_days) + 1) * 86_400;
      cutoffs.set(Number(website.id), cutoff);
      for (;;) {
        const batch = await store.deleteOlderThan(Number(website.id), cutoff, batchSize);
        deleted += batch;
        if (batch === 0) break;
        await pause();
      }
    }
    await store.retainHits?.(cutoffs);
    return deleted;
  }

  /** `run(now)` deletes now (or joins the run under way) and answers how many rows went; `settle()` waits for a run under way (close). */
  return oneRunAtATime((now: number = Date.now()) => apply(now));
}
