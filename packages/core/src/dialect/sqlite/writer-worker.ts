/**
 * The SQLite writer thread: owns a connection of its own to the database file and does
 * every engine write there (visit processing included), so the host's event loop
 * never waits on a flush. Messages are answered in the order they arrive.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { createSqliteWriter } from "./writer.js";
import type { WriterRequest, WriterResponse } from "./worker-store.js";

const { path, busyTimeout } = workerData as { path: string; busyTimeout: number };
const database = new Database(path);
database.pragma("journal_mode = WAL");
database.pragma("synchronous = NORMAL");
database.pragma(`busy_timeout = ${busyTimeout}`);
const writer = createSqliteWriter(database);

function run(request: WriterRequest): unknown {
  switch (request.type) {
    case "write":
      return writer.write(request.hits);
    case "delete-website":
      return writer.deleteWebsite(request.websiteId);
    case "salt":
      return writer.salt(request.day, request.candidate);
    case "forget-before":
      return writer.forgetBefore(request.day);
    case "close":
      database.close();
      return undefined;
  }
}

parentPort!.on("message", (request: WriterRequest) => {
  let response: WriterResponse;
  try {
    response = { id: request.id, ok: true, value: run(request) };
  } catch (error) {
    response = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response);
});
