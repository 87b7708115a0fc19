import { dayNumber, dayText, utcDayNumber } from "../shared/calendar.js";

/** A range of this many days needs at most ~20 days, 6 dekads, 6 months, 6 quarters and its years: far below. */
const MAX_PERIODS = 1000;

/*
 * Rollup periods, each a whole number of the one below it:
 *   year    `2026`        quarter `2026-Q4`     month `2026-11`
 *   dekad   `2026-11/3`   (days 1–10, 11–20, 21 to the month's end: `/1`, `/2`, `/3`)
 *   day     `2026-11-21`  (the only period written `Y-m-d`, ten characters long)
 * A hit's count goes to its day's row only. A website's wider rows are summed from the
 * rows they contain once the period has closed (`closingPeriods`: every period ending on
 * or before its watermark, the day before the newest day it has counts for); after
 * that, a late count for one of its days is added to the period too. So a flush writes
 * one row per value and day, and any range still reads its few widest closed periods: a
 * year ending mid-month is read as ~3 quarters, ~2 months, ~2 dekads and at most ~18 days
 * instead of 11 months and up to ~60 days.
 */

/** The dekad (1, 2 or 3) a day of the month falls in. */
const dekadOf = (dayOfMonth: number) => (dayOfMonth <= 10 ? 1 : dayOfMonth <= 20 ? 2 : 3);

/** The periods wider than day `Y-m-d` that contain it: its dekad, month, quarter and year. */
export function widerPeriods(day: string): string[] {
  const month = day.slice(0, 7);
  const monthNumber = Number(day.slice(5, 7));
  return [`${month}/${dekadOf(Number(day.slice(8, 10)))}`, month, `${day.slice(0, 4)}-Q${Math.ceil(monthNumber / 3)}`, day.slice(0, 4)];
}

/**
 * The fewest rollup periods that exactly cover `from`…`to` (inclusive `Y-m-d`): at each
 * day the widest period that starts there and ends within the range (periods nest, so
 * this greedy walk is the shortest cover). Walks day numbers, never text, and stops
 * after MAX_PERIODS periods whatever the input.
 */
export function coveringPeriods(from: string, to: string, closedThrough?: string): string[] {
  const last = dayNumber(to);
  // Only closed periods hold their sums; until then a period's days are read. Without a watermark: every period.
  const lastWide = closedThrough === undefined ? last : Math.min(last, closedThrough === "" ? -Infinity : dayNumber(closedThrough));
  const periods: string[] = [];
  let day = dayNumber(from);
  if (Number.isNaN(day) || Number.isNaN(last)) throw new RangeError(`Not a date range: ${from}…${to}`);
  while (day <= last) {
    if (periods.length >= MAX_PERIODS) throw new RangeError(`The range ${from}…${to} needs too many periods`);
    const date = new Date(day * 86_400_000);
    const [year, month, dayOfMonth] = [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()];
    const text = dayText(day);
    const monthEnd = utcDayNumber(year, month + 1, 0);
    // Widest first: [period, its last day], for the periods starting on this day.
    const candidates: [string, number][] = [];
    if (dayOfMonth === 1) {
      if (month === 0) candidates.push([text.slice(0, 4), utcDayNumber(year, 11, 31)]);
      if (month % 3 === 0) candidates.push([`${text.slice(0, 4)}-Q${month / 3 + 1}`, utcDayNumber(year, month + 3, 0)]);
      candidates.push([text.slice(0, 7), monthEnd]);
    }
    if (dayOfMonth === 1 || dayOfMonth === 11 || dayOfMonth === 21) {
      candidates.push([`${text.slice(0, 7)}/${dekadOf(dayOfMonth)}`, dayOfMonth === 21 ? monthEnd : day + 9]);
    }
    const widest = candidates.find(([, end]) => end <= lastWide);
    if (widest) {
      periods.push(widest[0]);
      day = widest[1] + 1;
    } else {
      periods.push(text);
      day += 1;
    }
  }
  return periods;
}

/** A wider period to sum when it closes: its text and the periods one level down that make it up. */
export interface ClosingPeriod {
  period: string;
  parts: string[];
}

/**
 * The wider periods whose last day falls after `after` and on or before `through`
 * (`Y-m-d`), each with its parts: a dekad's days, a month's dekads, a quarter's months, a
 * year's quarters. Parts come first (a dekad before the month that ends with it), so
 * summing in this order reads only rows already summed.
 */
export function closingPeriods(after: string, through: string): ClosingPeriod[] {
  const first = dayNumber(after) + 1;
  const last = dayNumber(through);
  if (Number.isNaN(first) || Number.isNaN(last)) throw new RangeError(`Not a date range: ${after}…${through}`);
  const closing: ClosingPeriod[] = [];
  for (let day = first; day <= last; day++) {
    const date = new Date(day * 86_400_000);
    const [year, month, dayOfMonth] = [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()];
    const text = dayText(day);
    const monthText = text.slice(0, 7);
    const monthEnds = utcDayNumber(year, month + 1, 0) === day;
    if (dayOfMonth === 10 || dayOfMonth === 20 || monthEnds) {
      const dekad = dekadOf(dayOfMonth);
      const start = utcDayNumber(year, month, dekad * 10 - 9);
      closing.push({ period: `${monthText}/${dekad}`, parts: Array.from({ length: day - start + 1 }, (_, k) => dayText(start + k)) });
    }
    if (!monthEnds) continue;
    closing.push({ period: monthText, parts: [1, 2, 3].map((dekad) => `${monthText}/${dekad}`) });
    if (month % 3 !== 2) continue;
    const yearText = text.slice(0, 4);
    const months = [month - 1, month, month + 1].map((m) => `${yearText}-${String(m).padStart(2, "0")}`);
    closing.push({ period: `${yearText}-Q${(month + 1) / 3}`, parts: months });
    if (month === 11) closing.push({ period: yearText, parts: [1, 2, 3, 4].map((q) => `${yearText}-Q${q}`) });
  }
  return closing;
}

/** The last day (`Y-m-d`) of a period (a day is its own). */
export function periodEnd(period: string): string {
  if (period.length === 10) return period;
  const year = Number(period.slice(0, 4));
  if (period.length === 4) return `${period}-12-31`;
  if (period[5] === "Q") return dayText(utcDayNumber(year, Number(period[6]) * 3, 0));
  const month = Number(period.slice(5, 7));
  const monthEnd = dayText(utcDayNumber(year, month, 0));
  if (period.length === 7 || period.endsWith("/3")) return monthEnd;
  return `${period.slice(0, 7)}-${period.endsWith("/1") ? "10" : "20"}`;
}

/** The day before a `Y-m-d` day. */
export const dayBefore = (day: string): string => dayText(dayNumber(day) - 1);

/** The day after a `Y-m-d` day. */
export const dayAfter = (day: string): string => dayText(dayNumber(day) + 1);
