/**
 * The SQLite writer thread: owns a connection of its own to the database file and does
 * every engine write there (visit processing included), so the host's event loop
 * never waits on a flush. Messages are answered in the order they arrive.
 */
import { getHeapStatistics } from "node:v8";
import { workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { createTightDiskGuard, WAL_CHECKPOINT_PAGES, WAL_SIZE_LIMIT } from "./tight-disk.js";
import { unpackHits } from "../../model/hit-wire.js";
import { createSqliteWriter } from "./writer.js";
import { serveRequests } from "./thread-messages.js";
import type { WriterRequest } from "./worker-store.js";

const { path, busyTimeout } = workerData as { path: string; busyTimeout: number };
const database = new Database(path);
database.pragma("journal_mode = WAL");
database.pragma("synchronous = NORMAL");
database.pragma(`busy_timeout = ${busyTimeout}`);
database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
database.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
const writer = createSqliteWriter(database);
const tightDisk = createTightDiskGuard(database);

function run(request: WriterRequest): unknown {
  switch (request.type) {
    case "write":
      return writer.write(unpackHits(request.hits), request.batchId);
    case "probe":
      return writer.probe();
    case "delete-website":
      return writer.deleteWebsite(request.websiteId);
    case "salt":
      return writer.salt(request.day, request.candidate);
    case "forget-before":
      return writer.forgetBefore(request.day);
    case "delete-older-than":
      return writer.deleteOlderThan(request.websiteId, request.localSeconds, request.limit);
    case "heap": {
      const heap = getHeapStatistics();
      return { limit: heap.heap_size_limit, used: heap.used_heap_size, total: heap.total_heap_size };
    }
    case "close":
      database.close();
      return undefined;
  }
}

serveRequests<WriterRequest>(run, {
  before: () => tightDisk.before(),
  after: (error) => (error === null ? tightDisk.succeeded() : tightDisk.failed((error as { code?: unknown } | null)?.code)),
});
