import { UnavailableError } from "../errors.js";

/** Shortest time between two lines of the default write-failure log. */
export const WRITE_FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * The default `onError`: failed background writes are retried, so they are reported at
 * most once per interval. A database that is only unavailable for now (a SQLite file
 * locked by another connection) gets one line without a stack; anything else is logged
 * whole, since it may be a bug.
 */
export function createWriteFailureLog(
  waiting: () => number,
  log: (...parts: unknown[]) => void = console.warn,
  intervalMs = WRITE_FAILURE_LOG_INTERVAL_MS,
): (error: unknown) => void {
  let last = -Infinity;
  return (error) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    const waitingHits = `${waiting()} hits wait to be written`;
    const repeat = `(this warning repeats at most once every ${Math.round(intervalMs / 1000)} s)`;
    if (error instanceof UnavailableError) log(`tally: ${waitingHits}, retrying: ${error.message} ${repeat}`);
    else log(`tally: a write failed and will be retried; ${waitingHits} ${repeat}:`, error);
  };
}
