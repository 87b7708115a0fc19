import { UnavailableError } from "../shared/errors.js";

/**
 * Why the store cannot be written right now. Each kind is logged at most once a minute
 * and named by `GET /health`:
 * - `unreachable`: the database server cannot be reached (PostgreSQL stopped, restarting, a killed connection);
 * - `disk-full`: the disk under the database is full;
 * - `read-only`: the database (or its file system) refuses writes;
 * - `locked`: another connection holds the write lock past `busy_timeout` (SQLite);
 * - `replaced`: the SQLite file was deleted or replaced under the running process;
 * - `failed`: any other error of the database.
 */
export type StoreFaultKind = "unreachable" | "disk-full" | "read-only" | "locked" | "replaced" | "failed";

/** What the store's error means for whoever waits on it: a kind and a short reason in words. */
export interface StoreFault {
  kind: StoreFaultKind;
  /** One line: what is wrong, and the driver's own code and message. */
  reason: string;
  /** Which store refused, when it is not the database: ClickHouse, which every hit also goes to. */
  store?: "ClickHouse";
}

/** An UnavailableError that knows which fault caused it. */
export class StoreUnavailableError extends UnavailableError {
  override name = "StoreUnavailableError";
  constructor(readonly fault: StoreFault) {
    // A fault of the database lasts seconds (a restart) or longer: no point in retrying at once.
    super(`${fault.store ?? "The database"} cannot be written: ${fault.reason}.`, 5);
  }
}

const WORDS: Record<StoreFaultKind, string> = {
  unreachable: "the database is unreachable",
  "disk-full": "the disk is full",
  "read-only": "the database is read-only",
  locked: "the database is locked by another connection",
  replaced: "the database file was deleted or replaced",
  failed: "a database write failed",
};

/** Node's network errors that mean "the server is not there right now". */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** pg's own messages for a connection that broke or never came (they carry no code). */
const CONNECTION_MESSAGE =
  /connection terminated|terminating connection|connection (?:timeout|ended)|timeout exceeded when trying to connect|not queryable|server closed the connection|the database system is (?:starting up|shutting down|in recovery mode)/i;

function kindOf(code: string, message: string): StoreFaultKind | null {
  if (code === "SQLITE_FULL" || code === "53100" || code === "ENOSPC") return "disk-full";
  if (code.startsWith("SQLITE_READONLY") || code === "25006" || code === "EROFS") return "read-only";
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "locked";
  // SQLSTATE class 08 (connection exception), 57P01-57P03 (shut down, crashed, cannot connect now).
  if (NETWORK_CODES.has(code) || code.startsWith("08") || /^57P0[1-3]$/.test(code) || CONNECTION_MESSAGE.test(message))
    return "unreachable";
  if (code.startsWith("SQLITE_") || /^(53|58|XX)/.test(code)) return "failed";
  return null;
}

const codeOf = (error: object) => {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : "";
};

/** An AggregateError's first error (pg trying ::1 and then 127.0.0.1). */
function innermost(error: unknown): unknown {
  return error instanceof AggregateError && error.errors.length > 0 ? innermost(error.errors[0]) : error;
}

/**
 * The store fault an error stands for, or null when it is not the database's (a bug,
 * a refused input). Only the error's code and message are read: a driver's error may
 * carry its whole connection (with secrets), which is never logged.
 */
export function storeFaultOf(thrown: unknown): StoreFault | null {
  if (thrown instanceof StoreUnavailableError) return thrown.fault;
  const error = innermost(thrown);
  if (!(error instanceof Error)) return null;
  const code = codeOf(error);
  const kind = kindOf(code, error.message);
  if (kind === null) return null;
  const said = error.message.split("\n", 1)[0]!.trim();
  return { kind, reason: `${WORDS[kind]} (${code === "" ? said : `${code}: ${said}`})` };
}

/** ClickHouse's error codes for a full disk and a read-only server or table (NOT_ENOUGH_SPACE, READONLY, TABLE_IS_READ_ONLY). */
const CLICKHOUSE_KINDS: Record<string, StoreFaultKind> = { "243": "disk-full", "164": "read-only", "242": "read-only" };

const CLICKHOUSE_WORDS: Partial<Record<StoreFaultKind, string>> = {
  unreachable: "ClickHouse is unreachable",
  "disk-full": "the disk under ClickHouse is full",
  "read-only": "ClickHouse is read-only",
};

/**
 * What an error of ClickHouse (its client's, or the network's) means: every error of a
 * write to ClickHouse is a fault of ClickHouse, named after it in `GET /health` and the log.
 */
export function clickhouseFaultOf(thrown: unknown): StoreFault {
  if (thrown instanceof StoreUnavailableError) return thrown.fault;
  const error = innermost(thrown);
  const code = error instanceof Error ? codeOf(error) : "";
  const message = error instanceof Error ? error.message : String(error);
  const network = kindOf(code, message) === "unreachable" || /socket hang up|ECONNREFUSED|ECONNRESET/.test(message);
  const kind = network ? "unreachable" : (CLICKHOUSE_KINDS[code] ?? "failed");
  const said = message.split("\n", 1)[0]!.trim();
  const words = CLICKHOUSE_WORDS[kind] ?? "ClickHouse refused the write";
  return { kind, reason: `${words} (${code === "" ? said : `${code}: ${said}`})`, store: "ClickHouse" };
}

/** A fault in words without a driver error behind it (a vanished file). */
export function storeFault(kind: StoreFaultKind, detail: string): StoreFault {
  return { kind, reason: `${WORDS[kind]} (${detail})` };
}

/** The error to answer with: a store fault becomes a StoreUnavailableError (HTTP 503), anything else is left as it is. */
export function asStoreUnavailable(error: unknown): unknown {
  if (error instanceof UnavailableError) return error;
  const fault = storeFaultOf(error);
  return fault ? new StoreUnavailableError(fault) : error;
}
