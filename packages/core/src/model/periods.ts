import { dayNumber, dayText, utcDayNumber } from "../shared/calendar.js";

/** A range of this many days needs at most ~20 days, 6 dekads, 6 months, 6 quarters and its years: far below. */
const MAX_PERIODS = 1000;

/*
 * Rollup periods, each a whole number of the one below it:
 *   year    `2026`        quarter `2026-Q4`     month `2026-11`
 *   dekad   `2026-11/3`   (days 1–10, 11–20, 21 to the month's end: `/1`, `/2`, `/3`)
 *   day     `2026-11-21`  (the only period written `Y-m-d`, ten characters long)
 * Counts are added to a day and to every period containing it, so any range reads its
 * few widest periods: a year ending mid-month is read as ~3 quarters, ~2 months, ~2
 * dekads and at most ~18 days instead of 11 months and up to ~60 days.
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
export function coveringPeriods(from: string, to: string): string[] {
  const last = dayNumber(to);
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
    const widest = candidates.find(([, end]) => end <= last);
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
