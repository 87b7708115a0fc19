import { storeFaultOf, type StoreFault, type StoreFaultKind } from "../storage/store-faults.js";

/** Shortest time between two lines about the same kind of failure. */
export const OUTAGE_LOG_INTERVAL_MS = 60_000;

/** What the collector tells about the store: a failed write (retried), and the first write that works again. */
export interface OutageReport {
  failed(error: unknown): void;
  recovered(outage: { ms: number; waiting: number; fault?: StoreFault | null }): void;
}

export interface OutageLogOptions {
  /** Hits accepted and not yet written, for the lines. */
  waiting(): number;
  /** @default console.warn */
  log?: (line: string) => void;
  /** @default OUTAGE_LOG_INTERVAL_MS */
  intervalMs?: number;
  /** With a stack after each line (`DEBUG=tally`). @default process.env.DEBUG names tally or * */
  withStacks?: boolean;
}

const debugging = () => /(^|,)\s*(tally|\*)\s*(,|$)/.test(process.env.DEBUG ?? "");

/**
 * The default `onError`: one line per kind of failure per minute (a vanished file only
 * once), and one when writes work again. A line holds the error's code and message,
 * never the error object: a driver's error may carry its connection, secrets included.
 */
export function createOutageLog(options: OutageLogOptions): OutageReport {
  const log = options.log ?? ((line: string) => console.warn(line));
  const intervalMs = options.intervalMs ?? OUTAGE_LOG_INTERVAL_MS;
  const withStacks = options.withStacks ?? debugging();
  const lastLine = new Map<StoreFaultKind | "bug", number>();

  return {
    failed(error) {
      const fault = storeFaultOf(error);
      const kind = fault?.kind ?? "bug";
      const now = Date.now();
      const last = lastLine.get(kind);
      if (last !== undefined && (kind === "replaced" || now - last < intervalMs)) return;
      lastLine.set(kind, now);
      const waiting = `${options.waiting()} hits wait to be written`;
      if (fault?.kind === "replaced")
        log(
          `tally: ${fault.reason}: writes stop and requests answer 503 until Tally is restarted; ${waiting} (kept in a file at shutdown)`,
        );
      else {
        const reason = fault
          ? fault.reason
          : `${error instanceof Error ? `${error.name}: ${error.message.split("\n", 1)[0]}` : String(error)}`;
        log(`tally: ${waiting}, retrying: ${reason} (this line repeats at most once every ${Math.round(intervalMs / 1000)} s)`);
      }
      if (withStacks && error instanceof Error && error.stack) log(error.stack);
    },
    recovered({ ms, waiting, fault }) {
      lastLine.clear();
      log(
        `tally: ${fault?.store ?? "the database"} takes writes again after ${Math.round(ms / 1000)} s; the ${waiting} hits kept meanwhile are being written`,
      );
    },
  };
}
