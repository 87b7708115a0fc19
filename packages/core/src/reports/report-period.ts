import { dayNumber, dayText, utcDayNumber } from "../shared/calendar.js";
import type { ReportPeriod } from "../accounts/account-input.js";

/** The days one report covers, the same local dates in every website's time zone. */
export interface ReportRange {
  kind: ReportPeriod;
  /** `week:2026-03-16` (its Monday) or `month:2026-03`: one report per account and key. */
  key: string;
  /** First and last day, inclusive, `Y-m-d`. */
  from: string;
  to: string;
}

/** Days since 1970-01-01 (a Thursday) to the Monday of the same week. */
const mondayOf = (day: number) => day - ((day + 3) % 7);

function weekRange(monday: number): ReportRange {
  const from = dayText(monday);
  return { kind: "week", key: `week:${from}`, from, to: dayText(monday + 6) };
}

function monthRange(year: number, monthIndex: number): ReportRange {
  const first = utcDayNumber(year, monthIndex, 1);
  const from = dayText(first);
  return { kind: "month", key: `month:${from.slice(0, 7)}`, from, to: dayText(utcDayNumber(year, monthIndex + 1, 0)) };
}

/** The last full week (Monday–Sunday) or calendar month that ended before `today` (`Y-m-d`). */
export function lastCompleteRange(kind: ReportPeriod, today: string): ReportRange {
  const day = dayNumber(today);
  if (kind === "week") return weekRange(mondayOf(day) - 7);
  const date = new Date(day * 86_400_000);
  return monthRange(date.getUTCFullYear(), date.getUTCMonth() - 1);
}

/** The range a key names; null for anything that is not one. */
export function rangeOfKey(key: string): ReportRange | null {
  const week = /^week:(\d{4}-\d{2}-\d{2})$/.exec(key);
  if (week) {
    const day = dayNumber(week[1]!);
    return Number.isNaN(day) || mondayOf(day) !== day ? null : weekRange(day);
  }
  const month = /^month:(\d{4})-(\d{2})$/.exec(key);
  if (!month) return null;
  const [year, monthNumber] = [Number(month[1]), Number(month[2])];
  return monthNumber >= 1 && monthNumber <= 12 ? monthRange(year, monthNumber - 1) : null;
}
