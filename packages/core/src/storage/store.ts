import type { Hit } from "../model/hit.js";

/**
 * Where the engine's own tables are written: visitor states, visits, hits and rollup
 * counters (atomically, per write), the daily salts, and retention deletes.
 */
export interface EngineStore {
  /**
   * Most hits one `write` may carry. A store that writes on the caller's thread
   * (better-sqlite3 in memory) blocks the event loop for a whole write, so the
   * collector splits a flush into writes of at most this many and yields between them.
   * Unset: one write per flush.
   */
  readonly maxHitsPerWrite?: number;
  /**
   * Counts the hits (in the order given) into visitor states and rollups, atomically,
   * recording `batchId` in the same transaction: a batch whose id is recorded already
   * (its earlier write committed, though its answer was lost) is not written again.
   */
  write(hits: readonly Hit[], batchId: string): Promise<void>;
  /** A small write that proves the store takes writes now (`GET /health` on an idle store). */
  probe(): Promise<void>;
  /** Throws a StoreUnavailableError (`replaced`) when the database file was deleted or replaced since it was opened. */
  check?(): void;
  deleteWebsite(websiteId: number): Promise<void>;
  /** The salt of a day: `candidate` unless another process stored one first. */
  salt(day: string, candidate: string): Promise<string>;
  /** Deletes the salts and visitor rows of days before `day`, and batch ids older than a month. */
  forgetBefore(day: string): Promise<void>;
  /**
   * Deletes up to `limit` rows of each of a website's visits, hits and event properties
   * older than a local time (retention); answers how many went. Bounded: no long lock.
   */
  deleteOlderThan(websiteId: number, localSeconds: number, limit: number): Promise<number>;
  /** After a retention run over every website, with each website's local cutoff: a hit log beside the store deletes its hits past them at once. */
  retainHits?(cutoffs: ReadonlyMap<number, number>): Promise<void>;
  close(): Promise<void>;
}
