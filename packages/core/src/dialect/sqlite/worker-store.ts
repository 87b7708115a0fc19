import { Worker } from "node:worker_threads";
import { UnavailableError } from "../../errors.js";
import type { PendingHit } from "../../engine/pending-hit.js";
import type { EngineStore } from "../../engine/store.js";
import { workerUrl } from "./worker-url.js";

type RequestBody =
  | { type: "write"; hits: readonly PendingHit[] }
  | { type: "delete-website"; websiteId: number }
  | { type: "salt"; day: string; candidate: string }
  | { type: "forget-before"; day: string }
  | { type: "delete-older-than"; websiteId: number; localSeconds: number; limit: number }
  | { type: "close" };

export type WriterRequest = RequestBody & { id: number };
export type WriterResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string; code?: string };

/**
 * The error a failed request rejects with. A lock held by another connection past
 * busy_timeout (SQLITE_BUSY) is an UnavailableError: nothing was written, try again later.
 */
function writerError(response: { message: string; code?: string }): Error {
  if (response.code?.startsWith("SQLITE_BUSY")) {
    return new UnavailableError(`The SQLite database is locked by another connection (${response.message}).`);
  }
  return Object.assign(new Error(response.message), response.code === undefined ? {} : { code: response.code });
}

/**
 * The SQLite store for a database file: writes go to a worker thread with its own
 * connection (SQLite's WAL lets this thread keep reading meanwhile). The event loop
 * only hands hits over; it never waits on a transaction, and the flush runs on the
 * other core while the next hits are collected.
 */
export function createSqliteWorkerStore(path: string, busyTimeout: number): EngineStore {
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
    settle(response.id, (entry) => (response.ok ? entry.resolve(response.value) : entry.reject(writerError(response))));
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
    write: async (hits) => {
      await send({ type: "write", hits });
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
