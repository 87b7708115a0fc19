import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import { createClaimedRuns, type Claim, type RetrySchedule } from "../storage/claimed-runs.js";

/** A report this process has claimed: only it sends, until its lease passes. */
export interface ClaimedRun extends Claim {
  accountId: number;
  period: string;
}

/**
 * A claim lasts longer than any send (SMTP timeouts are 30 s + 60 s); a failed send is retried
 * after a minute, doubling, at most six hours apart, 20 times (about three days of trying).
 */
export const REPORT_SCHEDULE: RetrySchedule = { leaseMs: 15 * 60_000, firstRetryMs: 60_000, maxRetryMs: 6 * 3_600_000, maxAttempts: 20 };

/**
 * The `report_runs` table: one row per account and period (unique), claimed and retried as
 * every run table is (storage/claimed-runs.ts).
 */
export function createReportRuns(db: Kysely<Database>) {
  const runs = createClaimedRuns(db, "report_runs", REPORT_SCHEDULE);
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
      return (await runs.due(now)).map((row) => ({
        id: row.id,
        accountId: Number(row.account_id),
        period: row.period,
        attempts: row.attempts,
      }));
    },

    /** Takes a due run for this process; null when another one got it first. */
    async claim(run: { id: number; accountId: number; period: string; attempts: number }, now: number): Promise<ClaimedRun | null> {
      const claim = await runs.claim(run, now);
      return claim && { ...claim, accountId: run.accountId, period: run.period };
    },

    finish: runs.finish,
    nextStep: runs.nextStep,
  };
}

export type ReportRuns = ReturnType<typeof createReportRuns>;
