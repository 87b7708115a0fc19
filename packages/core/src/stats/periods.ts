import { dayNumber, dayText, utcDayNumber } from "../calendar.js";

/** A range of this many days needs at most ~60 day periods, 22 months and its years: far below. */
const MAX_PERIODS = 1000;

/**
 * The fewest rollup periods that exactly cover `from`…`to` (inclusive `Y-m-d`):
 * whole years as `Y`, whole months as `Y-m`, the remaining days as `Y-m-d`. Walks day
 * numbers, never text, and stops after MAX_PERIODS periods whatever the input.
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
    const yearEnd = utcDayNumber(year, 11, 31);
    const monthEnd = utcDayNumber(year, month + 1, 0);
    const text = dayText(day);
    if (month === 0 && dayOfMonth === 1 && yearEnd <= last) {
      periods.push(text.slice(0, 4));
      day = yearEnd + 1;
    } else if (dayOfMonth === 1 && monthEnd <= last) {
      periods.push(text.slice(0, 7));
      day = monthEnd + 1;
    } else {
      periods.push(text);
      day += 1;
    }
  }
  return periods;
}
