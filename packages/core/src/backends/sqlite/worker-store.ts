import { Worker } from "node:worker_threads";
import { asStoreUnavailable } from "../../storage/store-faults.js";
import type { Hit } from "../../model/hit.js";
import type { EngineStore } from "../../storage/store.js";
import { watchFileIdentity } from "./file-identity.js";
import { workerUrl } from "./worker-url.js";

type RequestBody =
  | { type: "write"; hits: readonly Hit[]; batchId: string }
  | { type: "probe" }
  | { type: "delete-website"; websiteId: number }
  | { type: "salt"; day: string; candidate: string }
  | { type: "forget-before"; day: string }
  | { type: "delete-older-than"; websiteId: number; localSeconds: number; limit: number }
  | { type: "close" };

export type WriterRequest = RequestBody & { id: number };
export type WriterResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string; code?: string };

/** The error a failed request rejects with: a store fault (locked, disk full, read-only…) as a StoreUnavailableError. */
function writerError(response: { message: string; code?: string }): unknown {
  return asStoreUnavailable(Object.assign(new Error(response.message), response.code === undefined ? {} : { code: response.code }));
}

/**
 * The SQLite store for a database file: writes go to a worker thread with its own
 * connection (SQLite's WAL lets this thread keep reading meanwhile). The event loop
 * only hands hits over; it never waits on a transaction, and the flush runs on the
 * other core while the next hits are collected.
 */
export function createSqliteWorkerStore(path: string, busyTimeout: number): EngineStore {
  const check = watchFileIdentity(path);
  const worker = new Worker(workerUrl("writer-worker.js"), { workerData: { path, busyTimeout } });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let failure: Error | null = null;

  function settle(id: number, settleWith: (entry: { resolve(value: unknown): void; reject(error: Error): void }) => void): void {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    settleWith(entry);
  }

  worker.on("message", (response: WriterResponse) => {
    settle(response.id, (entry) => (response.ok ? entry.resolve(response.value) : entry.reject(writerError(response) as Error)));
  });
  worker.on("error", (error) => {
    failure = error;
    for (const id of [...pending.keys()]) settle(id, (entry) => entry.reject(error));
  });

  // After the listeners: adding a "message" listener references the worker's port again.
  worker.unref();

  function send(body: RequestBody): Promise<unknown> {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    // Referenced while a request is out, so the process waits for writes it started.
    worker.ref();
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...body, id });
    });
  }

  return {
    check,
    write: async (hits, batchId) => {
      await send({ type: "write", hits, batchId });
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
    async close() {
      if (!failure) await send({ type: "close" }).catch(() => {});
      await worker.terminate();
    },
  };
}
