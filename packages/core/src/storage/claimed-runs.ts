import type { Kysely, Selectable } from "kysely";
import type { Database, RunColumns } from "./schema.js";

/** The tables of things done once each (an e-mail report, an alert's delivery), by one process at a time. */
export type RunTable = "report_runs" | "alert_deliveries";

/** How a run is retried: a claim's lease, then waits from `firstRetryMs` doubling up to `maxRetryMs`, `maxAttempts` in all. */
export interface RetrySchedule {
  /** Longer than any attempt takes: a process that dies mid-attempt leaves its run to be taken over after it. */
  leaseMs: number;
  firstRetryMs: number;
  maxRetryMs: number;
  /** Then the run is marked failed. */
  maxAttempts: number;
}

/** A run this process has claimed: only it attempts the run until the lease passes. */
export interface Claim {
  id: number;
  /** This attempt's number, from 1: it also proves the claim is still ours when the outcome is written. */
  attempt: number;
}

export type RunOutcome = { status: "sent" | "skipped"; now: number } | { status: "failed"; error: string; now: number };

/** A run not yet finished: waiting for its turn, or being attempted. */
export const OPEN_RUNS = ["pending", "sending"];

/**
 * Runs of `table`: each row is inserted once by whichever process sees it due first (a
 * unique key of the table's own, ON CONFLICT DO NOTHING), then claimed by a compare-and-set
 * UPDATE that only one process can win: PostgreSQL re-checks its condition on the row it
 * locked, after the other writer committed; SQLite runs one writer at a time. Every statement
 * is its own transaction: no lock is held across an await (a SQLite connection waiting for a
 * lock blocks its thread, which could be the one holding it).
 */
export function createClaimedRuns<T extends RunTable>(db: Kysely<Database>, table: T, schedule: RetrySchedule) {
  // Every run table has the run columns: one typing of them serves each.
  const runs = db as unknown as Kysely<Record<RunTable, RunColumns & { id: number }>>;
  /** Wait after failed attempt number `attempt` (1, 2, …). */
  const retryDelayMs = (attempt: number) => Math.min(schedule.firstRetryMs * 2 ** (attempt - 1), schedule.maxRetryMs);

  return {
    schedule,
    retryDelayMs,

    /** Runs that may be attempted now, oldest first: pending and due, or claimed by a process whose lease ran out. */
    async due(now: number): Promise<(Selectable<Database[T]> & { id: number; attempts: number })[]> {
      const rows = await runs
        .selectFrom(table as RunTable)
        .selectAll()
        .where("status", "in", OPEN_RUNS)
        .where("next_attempt_at", "<=", now)
        .orderBy("id")
        .execute();
      // PostgreSQL hands serial and bigint columns back as text.
      return rows.map((row) => ({ ...row, id: Number(row.id), attempts: Number(row.attempts) })) as never;
    },

    /** Takes a due run for this process; null when another one got it first. */
    async claim(run: { id: number; attempts: number }, now: number): Promise<Claim | null> {
      const attempt = run.attempts + 1;
      const result = await runs
        .updateTable(table as RunTable)
        .set({ status: "sending", attempts: attempt, next_attempt_at: now + schedule.leaseMs })
        .where("id", "=", run.id)
        .where("attempts", "=", run.attempts)
        .where("status", "in", OPEN_RUNS)
        .where("next_attempt_at", "<=", now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1 ? { id: run.id, attempt } : null;
    },

    /** Records the outcome of a claimed attempt; false when the claim had lapsed and another process took the run over. */
    async finish(claim: Claim, outcome: RunOutcome): Promise<boolean> {
      const values =
        outcome.status === "failed"
          ? {
              status: claim.attempt >= schedule.maxAttempts ? "failed" : "pending",
              next_attempt_at: outcome.now + retryDelayMs(claim.attempt),
              last_error: outcome.error.slice(0, 1000),
            }
          : { status: outcome.status, sent_at: new Date(outcome.now).toISOString(), last_error: null };
      const result = await runs
        .updateTable(table as RunTable)
        .set(values)
        .where("id", "=", claim.id)
        .where("attempts", "=", claim.attempt)
        .where("status", "=", "sending")
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** What a failed attempt's report says next: `retrying in 60 s`, or `giving up`. */
    nextStep(claim: Claim): string {
      return claim.attempt >= schedule.maxAttempts ? "giving up" : `retrying in ${retryDelayMs(claim.attempt) / 1000} s`;
    },
  };
}

export type ClaimedRuns<T extends RunTable> = ReturnType<typeof createClaimedRuns<T>>;
