import type { Account, ReportPeriod } from "@tally-analytics/core";
import { UsageError } from "./command.js";

/** `--period`: week or month. */
export function periodFrom(text: string | undefined): ReportPeriod | undefined {
  if (text === undefined || text === "week" || text === "month") return text;
  throw new UsageError(`--period takes week or month, got "${text}"`);
}

/** `Account 1: weekly reports to alice@example.com.` */
export const reportSettings = (account: Account) =>
  `Account ${account.id}: ${account.report_period}ly reports ${account.email === null ? "(no address: none are sent)" : `to ${account.email}`}.`;
