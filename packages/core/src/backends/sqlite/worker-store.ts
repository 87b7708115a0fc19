import { Worker } from "node:worker_threads";
import { asStoreUnavailable } from "../../storage/store-faults.js";
import type { Hit } from "../../model/hit.js";
import type { EngineStore } from "../../storage/store.js";
import { watchFileIdentity } from "./file-identity.js";
import { createThreadClient, type ThreadRequest } from "./thread-messages.js";
import { workerUrl } from "./worker-url.js";

type RequestBody =
  | { type: "write"; hits: readonly Hit[]; batchId: string }
  | { type: "probe" }
  | { type: "delete-website"; websiteId: number }
  | { type: "salt"; day: string; candidate: string }
  | { type: "forget-before"; day: string }
  | { type: "delete-older-than"; websiteId: number; localSeconds: number; limit: number }
  | { type: "close" };

export type WriterRequest = ThreadRequest<RequestBody>;

/** The error a failed request rejects with: a store fault (locked, disk full, read-only…) as a StoreUnavailableError. */
function writerError(response: { message: string; code?: string }): Error {
  return asStoreUnavailable(
    Object.assign(new Error(response.message), response.code === undefined ? {} : { code: response.code }),
  ) as Error;
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
  const client = createThreadClient<RequestBody>(worker, writerError);
  client.listen();
  const send = (body: RequestBody) => client.send(body).answer;

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
      if (!client.failed) await send({ type: "close" }).catch(() => {});
      await worker.terminate();
    },
  };
}
