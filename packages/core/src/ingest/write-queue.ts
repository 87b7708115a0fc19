import { randomBytes } from "node:crypto";
import { UnavailableError } from "../shared/errors.js";
import type { OutageReport } from "./outage-log.js";
import type { Hit } from "../model/hit.js";
import { storeFaultOf, StoreUnavailableError, type StoreFault } from "../storage/store-faults.js";
import type { EngineStore } from "../storage/store.js";

/**
 * Hits written together, under an id the store records in the same transaction: a chunk
 * whose write failed is retried as it was, with its id, so a write that committed although
 * its answer was lost (a connection cut at COMMIT) is skipped, never counted twice.
 */
export interface Chunk {
  id: string;
  hits: Hit[];
}

/** How the store takes writes now, for `GET /health` and the `Warning` of statistics. */
export interface WriteHealth {
  /** `ok`: the last write (or probe) worked; `failing`: the store refuses writes now. */
  status: "ok" | "failing";
  /** Hits accepted and not yet written. */
  buffered: number;
  /** Epoch ms of the last write that worked (hits or probe); null before the first. */
  lastWrite: number | null;
  /** Why writes fail, while they do. */
  fault: StoreFault | null;
}

export interface WriteQueueOptions {
  store: Pick<EngineStore, "write" | "maxHitsPerWrite" | "probe" | "check">;
  /** @default 1000 */
  flushIntervalMs?: number;
  /** A flush starts as soon as this many hits wait; also the most hits one write carries. @default 2000 */
  batchSize?: number;
  /** Past this many unwritten hits, `admit` refuses with UnavailableError. @default 200000 */
  maxBufferedHits?: number;
  /** Told of every failed write, and of the first that works after failures. */
  report?: OutageReport | undefined;
  /** Told of each failure (the user's `onError`). */
  onError?: ((error: unknown) => void) | undefined;
  /** Awaited after each write that worked, with the hits written (the collector moves its clock and rotates salts). */
  written?(hits: readonly Hit[]): Promise<void>;
  /** Hits of websites deleted meanwhile are not written. */
  isDeleted?(websiteId: number): boolean;
}

/** Longest wait between two attempts while writes fail. */
const MAX_BACKOFF_MS = 5000;
/** `health()` writes a probe when nothing was written for this long. */
const PROBE_AFTER_MS = 10_000;

const newChunkId = () => randomBytes(12).toString("base64url");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
/** While a write is under way, `add` lets the event loop turn once per this many hits. */
const ADDS_PER_TURN = 256;

/**
 * The hits accepted and not yet written, and their way into the store: a flush every
 * interval (or when a batch is full), chunks retried as they were, a backoff while the
 * store refuses, a bound on memory, and at close whatever could not be written handed
 * over (to be spilled to a file) rather than lost.
 */
export function createWriteQueue(options: WriteQueueOptions) {
  const { store } = options;
  const intervalMs = options.flushIntervalMs ?? 1000;
  const batchSize = options.batchSize ?? 2000;
  const maxBuffered = options.maxBufferedHits ?? 200_000;
  const chunkSize = Math.min(store.maxHitsPerWrite ?? batchSize, batchSize);
  let buffer: Hit[] = [];
  /** Chunks formed from the buffer and not written yet, in order; the first may have failed before. */
  const ready: Chunk[] = [];
  let flushing: Promise<void> | null = null;
  let lastWrite: number | null = null;
  let failure: { fault: StoreFault | null; since: number; attempts: number } | null = null;
  let retryAt = 0;
  let probing: Promise<void> | null = null;
  /** Settled when the write under way ends (worked or failed): what a caller held back by back-pressure waits for. */
  let writeEnd: { ended: Promise<void>; settle: () => void } | null = null;
  let addsSinceTurn = 0;

  const unwritten = () => buffer.length + ready.reduce((total, chunk) => total + chunk.hits.length, 0);
  const backingOff = () => Date.now() < retryAt;
  const nextWriteEnd = (): Promise<void> => {
    if (!writeEnd) {
      let settle = () => {};
      const ended = new Promise<void>((resolve) => (settle = resolve));
      writeEnd = { ended, settle };
    }
    return writeEnd.ended;
  };
  function writeEnded(): void {
    writeEnd?.settle();
    writeEnd = null;
  }

  const timer = setInterval(() => {
    try {
      store.check?.();
    } catch (error) {
      failed(error);
    }
    if (unwritten() > 0 && !backingOff()) flush().catch(() => {});
  }, intervalMs);
  timer.unref();

  function failed(error: unknown): void {
    const fault = storeFaultOf(error);
    failure ??= { fault, since: Date.now(), attempts: 0 };
    failure.fault = fault;
    failure.attempts++;
    retryAt = Date.now() + Math.min(MAX_BACKOFF_MS, intervalMs * 2 ** (failure.attempts - 1));
    options.report?.failed(error);
    options.onError?.(error);
  }

  /** `waiting`: the hits that waited when the write that worked began. */
  function succeeded(waiting: number): void {
    lastWrite = Date.now();
    retryAt = 0;
    if (!failure) return;
    const outage = failure;
    failure = null;
    if (outage.fault?.kind === "replaced") return;
    options.report?.recovered({ ms: Date.now() - outage.since, waiting, fault: outage.fault });
  }

  /** The chunks of the buffer as it is now, each with a new id. */
  function formChunks(): void {
    const hits = buffer;
    buffer = [];
    for (let start = 0; start < hits.length; start += chunkSize)
      ready.push({ id: newChunkId(), hits: hits.slice(start, start + chunkSize) });
  }

  async function writeReady(): Promise<void> {
    while (ready.length > 0) {
      const chunk = ready[0]!;
      const waiting = unwritten();
      store.check?.();
      const hits = options.isDeleted ? chunk.hits.filter((hit) => !options.isDeleted!(hit.websiteId)) : chunk.hits;
      if (hits.length > 0) await store.write(hits, chunk.id);
      ready.shift();
      writeEnded();
      succeeded(waiting);
      await options.written?.(hits);
      // A synchronous store (in memory) blocks the event loop for a write: let I/O in between.
      if (ready.length > 0) await nextTurn();
    }
  }

  /** Writes everything buffered, in order; rejects with the store's error (the hits stay, in order). */
  function flush(): Promise<void> {
    if (flushing) return flushing;
    // Cleared in `.finally`, which runs after the assignment below even when there is nothing to write.
    const run: Promise<void> = (async () => {
      while (unwritten() > 0) {
        if (ready.length === 0) formChunks();
        try {
          await writeReady();
        } catch (error) {
          writeEnded();
          failed(error);
          throw error;
        }
      }
    })().finally(() => {
      if (flushing === run) flushing = null;
    });
    flushing = run;
    return run;
  }

  /**
   * A full batch starts a write; past two batches unwritten the caller waits for the write
   * under way to end. Undefined when there is nothing to wait for (almost every hit).
   */
  function startFullBatch(): Promise<void> | undefined {
    if (buffer.length < batchSize || backingOff()) return undefined;
    const flushed = flush().catch(() => {});
    return unwritten() >= 2 * batchSize ? Promise.race([flushed, nextWriteEnd()]) : undefined;
  }

  function refuseIfReplaced(): void {
    if (failure?.fault?.kind === "replaced") throw new StoreUnavailableError(failure.fault);
  }

  return {
    /** Throws a StoreUnavailableError (503) once the database file is gone: nothing may go to a ghost. */
    refuseIfReplaced,
    /** Refuses (503) while the file is gone or too many hits wait; the caller then adds its hit. */
    admit(): void {
      refuseIfReplaced();
      if (unwritten() >= maxBuffered) throw new UnavailableError("Too many hits are waiting to be written; try again shortly.");
    },
    /**
     * Adds an accepted hit; a full batch starts a write. Past two batches unwritten the
     * caller waits for the write under way to end (back-pressure), not for the whole
     * backlog: the store then always has the next batch ready instead of idling while
     * the callers refill an emptied queue.
     */
    add(hit: Hit): Promise<void> | undefined {
      buffer.push(hit);
      // While a write is under way, a caller that never yields (a loop of awaited collects)
      // would hear of its end only when held back: let its answer in now and then, so the
      // next batch goes out as soon as the store is free.
      if (flushing && ++addsSinceTurn >= ADDS_PER_TURN) {
        addsSinceTurn = 0;
        return nextTurn().then(startFullBatch);
      }
      return startFullBatch();
    },
    flush,
    /**
     * Before a read: writes what waits; never rejects. While writes fail, the read goes on
     * with what is stored (a lock is waited for up to its `busy_timeout` first).
     */
    async settleForRead(): Promise<void> {
      await flush().catch(() => {});
    },
    get buffered(): number {
      return unwritten();
    },
    /** How writes go; with `probe`, a store idle for a while is tried with a small write first. */
    async health(probe: boolean): Promise<WriteHealth> {
      const idle = lastWrite === null || Date.now() - lastWrite > PROBE_AFTER_MS;
      if (probe && idle && unwritten() === 0 && failure?.fault?.kind !== "replaced") {
        probing ??= Promise.resolve()
          .then(() => {
            store.check?.();
            return store.probe();
          })
          .then(() => succeeded(0), failed)
          .finally(() => (probing = null));
        await probing;
      }
      return { status: failure ? "failing" : "ok", buffered: unwritten(), lastWrite, fault: failure?.fault ?? null };
    },
    /**
     * Stops the timer and writes everything, retrying until `timeoutMs` has passed; answers
     * the chunks that could not be written (empty when all were) and the last error.
     */
    async drain(timeoutMs: number): Promise<{ left: Chunk[]; lastError: unknown }> {
      clearInterval(timer);
      const deadline = Date.now() + timeoutMs;
      let lastError: unknown = null;
      for (let attempt = 0; attempt === 0 || Date.now() < deadline; attempt++) {
        if (failure?.fault?.kind === "replaced") break;
        if (attempt > 0) await sleep(Math.min(deadline - Date.now(), 100 * 2 ** Math.min(attempt - 1, 4)));
        const attempted = flush().then(
          () => true,
          (error: unknown) => {
            lastError = error;
            return false;
          },
        );
        // An attempt may wait on a lock (SQLite's busy_timeout) or a connection: never past the deadline.
        let expire: NodeJS.Timeout | undefined;
        const expired = new Promise<null>((resolve) => (expire = setTimeout(resolve, Math.max(0, deadline - Date.now()), null)));
        const outcome = await Promise.race([attempted, expired]);
        clearTimeout(expire);
        if (outcome === true) return { left: [], lastError: null };
        if (outcome === null) break;
      }
      if (failure?.fault?.kind === "replaced") lastError = new StoreUnavailableError(failure.fault);
      formChunks();
      return { left: ready.splice(0), lastError };
    },
  };
}

export type WriteQueue = ReturnType<typeof createWriteQueue>;
