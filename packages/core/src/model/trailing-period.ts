import { addDays, daysIn } from "../shared/calendar.js";

/*
 * The trailing period: the 364 days ending on a website's rollup watermark (periods.ts),
 * one rollup row per statistic and value, stored under the period `trailing`. It moves
 * with the watermark: the days that leave it are subtracted, the days that enter it added
 * (`trailingShift`), and a late count for one of its days is added to it as to a closed
 * period. The watermark is the day before the newest day counted, so with that day (today,
 * on a live website) it makes the last 365 days. A range near the last year then reads one
 * row per value and the few periods where the range and it differ, instead of ~4 rows per
 * value from quarters, months, dekads and days.
 */

/** The period text of the trailing rows: no day, dekad, month, quarter or year sorts near it. */
export const TRAILING_PERIOD = "trailing";

/** How many days the trailing period holds. */
export const TRAILING_DAYS = 364;

/** Inclusive `Y-m-d` days. */
export interface Days {
  from: string;
  to: string;
}

/** The days the trailing period holds under a watermark; null without one ("": none closed). */
export function trailingDays(closedThrough: string): Days | null {
  return closedThrough === "" ? null : { from: addDays(closedThrough, 1 - TRAILING_DAYS), to: closedThrough };
}

/** The days that leave the trailing period and those that enter it as the watermark moves from `before` ("": none) to a later `after`. */
export function trailingShift(before: string, after: string): { leave: Days | null; enter: Days } {
  const next = trailingDays(after)!;
  const previous = trailingDays(before);
  if (!previous) return { leave: null, enter: next };
  const leaveTo = previous.to < next.from ? previous.to : addDays(next.from, -1);
  const enterFrom = previous.to < next.from ? next.from : addDays(previous.to, 1);
  return {
    leave: previous.from <= leaveTo ? { from: previous.from, to: leaveTo } : null,
    enter: { from: enterFrom, to: next.to },
  };
}

/** Whether a day's counts belong to the trailing period under this watermark. */
export function inTrailing(day: string, closedThrough: string): boolean {
  const days = trailingDays(closedThrough);
  return days !== null && day >= days.from && day <= days.to;
}

/** `range` without the days of `minus`: up to two runs of days. */
function without(range: Days, minus: Days): Days[] {
  const parts: Days[] = [];
  if (range.from < minus.from) parts.push({ from: range.from, to: range.to < minus.from ? range.to : addDays(minus.from, -1) });
  if (range.to > minus.to) parts.push({ from: range.from > minus.to ? range.from : addDays(minus.to, 1), to: range.to });
  return parts;
}

/**
 * How to read `range` through the trailing period: its rows, plus the runs of days the
 * range has beyond it, minus the runs it has beyond the range. Null when that reads more
 * than the range's own periods would (the two differ by more than a quarter of the range).
 */
export function throughTrailing(range: Days, closedThrough: string): { add: Days[]; subtract: Days[] } | null {
  const trailing = trailingDays(closedThrough);
  if (!trailing) return null;
  const add = without(range, trailing);
  const subtract = without(trailing, range);
  const differing = [...add, ...subtract].reduce((sum, days) => sum + daysIn(days.from, days.to), 0);
  return differing * 4 <= daysIn(range.from, range.to) ? { add, subtract } : null;
}
