import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";

/** A report this process has claimed: only it sends, until `next_attempt_at` (the lease) passes. */
export interface ClaimedRun {
  id: number;
  accountId: number;
  period: string;
  /** This attempt's number, from 1: it also proves the claim is still ours when the result is written. */
  attempt: number;
}

/** How long a claim lasts: longer than any send (SMTP timeouts are 30 s + 60 s). A process that dies mid-send leaves its run to be taken over after it. */
export const CLAIM_LEASE_MS = 15 * 60_000;
/** First retry after a minute, doubling, at most six hours apart. */
export const RETRY_BASE_MS = 60_000;
export const RETRY_MAX_MS = 6 * 3_600_000;
/** Then the run is marked failed: about three days of trying. */
export const MAX_ATTEMPTS = 20;

/** Wait after failed attempt number `attempt` (1, 2, …). */
export const retryDelayMs = (attempt: number) => Math.min(RETRY_BASE_MS * 2 ** (attempt - 1), RETRY_MAX_MS);

const OPEN = ["pending", "sending"];

/**
 * The `report_runs` table: one row per account and period (unique, inserted with ON CONFLICT
 * DO NOTHING by whichever process sees it due first), then claimed by a compare-and-set
 * UPDATE that only one process can win: PostgreSQL re-checks its condition on the row it
 * locked, after the other writer committed; SQLite runs one writer at a time.
 */
export function createReportRuns(db: Kysely<Database>) {
  return {
    /** Makes sure a run exists for each (account, period); existing ones are left alone. */
    async ensure(wanted: readonly { accountId: number; period: string }[], now: number): Promise<void> {
      if (wanted.length === 0) return;
      const existing = await db
        .selectFrom("report_runs")
        .select(["account_id", "period"])
        .where("period", "in", [...new Set(wanted.map((run) => run.period))])
        .execute();
      const known = new Set(existing.map((row) => `${row.account_id}|${row.period}`));
      const missing = wanted.filter((run) => !known.has(`${run.accountId}|${run.period}`));
      if (missing.length === 0) return;
      const created_at = new Date(now).toISOString();
      await db
        .insertInto("report_runs")
        .values(
          missing.map((run) => ({
            account_id: run.accountId,
            period: run.period,
            status: "pending",
            attempts: 0,
            next_attempt_at: now,
            created_at,
          })),
        )
        .onConflict((oc) => oc.columns(["account_id", "period"]).doNothing())
        .execute();
    },

    /** Runs that may be attempted now: pending and due, or claimed by a process whose lease ran out. */
    async due(now: number) {
      const rows = await db
        .selectFrom("report_runs")
        .select(["id", "account_id", "period", "attempts"])
        .where("status", "in", OPEN)
        .where("next_attempt_at", "<=", now)
        .orderBy("id")
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        accountId: Number(row.account_id),
        period: row.period,
        attempts: Number(row.attempts),
      }));
    },

    /** Takes a due run for this process; null when another one got it first. */
    async claim(run: { id: number; accountId: number; period: string; attempts: number }, now: number): Promise<ClaimedRun | null> {
      const attempt = run.attempts + 1;
      // One statement, so its own transaction: no lock is held across an await (a SQLite
      // connection waiting for a lock blocks its thread, which could be the one holding it).
      const result = await db
        .updateTable("report_runs")
        .set({ status: "sending", attempts: attempt, next_attempt_at: now + CLAIM_LEASE_MS })
        .where("id", "=", run.id)
        .where("attempts", "=", run.attempts)
        .where("status", "in", OPEN)
        .where("next_attempt_at", "<=", now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1 ? { id: run.id, accountId: run.accountId, period: run.period, attempt } : null;
    },

    /** Records the outcome of a claimed attempt; false when the claim had lapsed and another process took the run over. */
    async finish(
      run: ClaimedRun,
      outcome: { status: "sent" | "skipped"; now: number } | { status: "failed"; error: string; now: number },
    ): Promise<boolean> {
      const values =
        outcome.status === "failed"
          ? {
              status: run.attempt >= MAX_ATTEMPTS ? "failed" : "pending",
              next_attempt_at: outcome.now + retryDelayMs(run.attempt),
              last_error: outcome.error.slice(0, 1000),
            }
          : { status: outcome.status, sent_at: new Date(outcome.now).toISOString(), last_error: null };
      const result = await db
        .updateTable("report_runs")
        .set(values)
        .where("id", "=", run.id)
        .where("attempts", "=", run.attempt)
        .where("status", "=", "sending")
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

export type ReportRuns = ReturnType<typeof createReportRuns>;
