import { Worker } from "node:worker_threads";
import { asStoreUnavailable } from "../../storage/store-faults.js";
import { packHits, type PackedHits } from "../../model/hit-wire.js";
import type { EngineStore } from "../../storage/store.js";
import { watchFileIdentity } from "./file-identity.js";
import { createThreadClient, type ThreadClient, type ThreadRequest } from "./thread-messages.js";
import { workerUrl } from "./worker-url.js";

type RequestBody =
  | { type: "write"; hits: PackedHits; batchId: string }
  | { type: "probe" }
  | { type: "delete-website"; websiteId: number }
  | { type: "salt"; day: string; candidate: string }
  | { type: "forget-before"; day: string }
  | { type: "delete-older-than"; websiteId: number; localSeconds: number; limit: number }
  | { type: "heap" }
  | { type: "close" };

/** The writer thread's V8 heap: its ceiling (old and young generations) and what it holds now, in bytes. */
export interface WriterHeap {
  limit: number;
  used: number;
  total: number;
}

export type WriterRequest = ThreadRequest<RequestBody>;

/** The error a failed request rejects with: a store fault (locked, disk full, read-only…) as a StoreUnavailableError. */
function writerError(response: { message: string; code?: string }): Error {
  return asStoreUnavailable(
    Object.assign(new Error(response.message), response.code === undefined ? {} : { code: response.code }),
  ) as Error;
}

/**
 * Most hits one message to the writer thread carries: a write's working set there (the
 * copied hits, their rows and counts) stays small whatever the batch.
 */
const HITS_PER_THREAD_WRITE = 10_000;

/**
 * The writer thread's heap. A write's objects live only while its transaction runs, so a
 * young generation of 8 MB holds them (left to itself V8 grows it to 32 MB while hits
 * arrive at full speed; 4 MB cost its collections more CPU). Under a 1 GB ceiling V8 lets
 * the old generation grow by smaller steps between full collections than the ~4× of what
 * it keeps alive it allows under a process's default of several GB. A writer holds a few
 * MB to a few hundred: one write, its dictionary cache, its visitor cache (~77 bytes a
 * visitor-day, three days' worth).
 */
export const WRITER_HEAP_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 1024 } as const;

/** A writer thread idle this long exits (an idle app holds no second isolate); the next write starts another. */
export const WRITER_IDLE_EXIT_MS = 60_000;

/**
 * The SQLite store for a database file: writes go to a worker thread with its own
 * connection (SQLite's WAL lets this thread keep reading meanwhile). The event loop
 * only hands hits over; it never waits on a transaction, and the flush runs on the
 * other core while the next hits are collected. The thread starts with the first
 * request and exits after `idleExitMs` without one.
 */
export function createSqliteWorkerStore(
  path: string,
  busyTimeout: number,
  idleExitMs = WRITER_IDLE_EXIT_MS,
): EngineStore & { writerHeap(): Promise<WriterHeap> } {
  const check = watchFileIdentity(path);
  let thread: { worker: Worker; client: ThreadClient<RequestBody> } | null = null;
  let outstanding = 0;
  let idleTimer: NodeJS.Timeout | null = null;
  let closed = false;

  function current() {
    if (thread) return thread;
    const worker = new Worker(workerUrl("writer-worker.js"), { workerData: { path, busyTimeout }, resourceLimits: WRITER_HEAP_LIMITS });
    const client = createThreadClient<RequestBody>(worker, writerError);
    client.listen();
    return (thread = { worker, client });
  }

  async function stop(idle: NonNullable<typeof thread>): Promise<void> {
    if (!idle.client.failed) await idle.client.send({ type: "close" }).answer.catch(() => {});
    await idle.worker.terminate();
  }

  function retireWhenIdle(): void {
    idleTimer = null;
    // A failed thread stays: its failure answers every later request.
    if (!thread || outstanding > 0 || thread.client.failed) return;
    const idle = thread;
    thread = null;
    void stop(idle);
  }

  async function send(body: RequestBody): Promise<unknown> {
    const { client } = current();
    outstanding++;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    try {
      return await client.send(body).answer;
    } finally {
      if (--outstanding === 0 && !closed) (idleTimer = setTimeout(retireWhenIdle, idleExitMs)).unref();
    }
  }

  return {
    check,
    maxHitsPerWrite: HITS_PER_THREAD_WRITE,
    write: async (hits, batchId) => {
      await send({ type: "write", hits: packHits(hits), batchId });
    },
    probe: async () => {
      await send({ type: "probe" });
    },
    deleteWebsite: async (websiteId) => {
      await send({ type: "delete-website", websiteId });
    },
    salt: async (day, candidate) => (await send({ type: "salt", day, candidate })) as string,
    forgetBefore: async (day) => {
      await send({ type: "forget-before", day });
    },
    deleteOlderThan: async (websiteId, localSeconds, limit) =>
      (await send({ type: "delete-older-than", websiteId, localSeconds, limit })) as number,
    /** The writer thread's heap (the thread starts if it is not running). */
    writerHeap: async () => (await send({ type: "heap" })) as WriterHeap,
    async close() {
      closed = true;
      if (idleTimer) clearTimeout(idleTimer);
      if (thread) await stop(thread);
      thread = null;
    },
  };
}
