/**
 * Calendar days as numbers (days since 1970-01-01) and as `Y-m-d` text. Ranges are
 * walked with numbers: `"10000-01-01"` sorts before `"9999-12-31"` as text, so a walk
 * comparing strings never ends at the top of the calendar.
 */
const DAY_MS = 86_400_000;

/** The first and last day a statistic can ask about (and a hit can happen on). */
export const FIRST_DAY = "1970-01-01";
export const LAST_DAY = "9998-12-31";

const FORMAT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Recent answers of dayNumber: a flush asks about the same few days for every hit. */
const recentDayNumbers = new Map<string, number>();

/** Days since 1970-01-01 of a `Y-m-d` text; NaN when it is not a real date. */
export function dayNumber(text: string): number {
  const recent = recentDayNumbers.get(text);
  if (recent !== undefined) return recent;
  const number = parseDay(text);
  if (Number.isNaN(number)) return number; // only real dates are kept: ten characters each
  if (recentDayNumbers.size >= 512) recentDayNumbers.clear();
  recentDayNumbers.set(text, number);
  return number;
}

function parseDay(text: string): number {
  const match = FORMAT.exec(text);
  if (!match) return Number.NaN;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const number = utcDayNumber(year, month - 1, day);
  // A day that rolled over (Feb 30 → Mar 2) is not a date.
  return dayText(number) === text ? number : Number.NaN;
}

/** Day number of a UTC calendar date; months and days out of range roll over, as Date does. */
export function utcDayNumber(year: number, monthIndex: number, day: number): number {
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  date.setUTCFullYear(year, monthIndex, day);
  return Math.round(date.getTime() / DAY_MS);
}

/** `Y-m-d` of a day number. */
export function dayText(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** True for a real calendar date written `Y-m-d`. */
export function isCalendarDate(text: string): boolean {
  return !Number.isNaN(dayNumber(text));
}

const FIRST = dayNumber(FIRST_DAY);
const LAST = dayNumber(LAST_DAY);

/** True for a real date from FIRST_DAY to LAST_DAY. */
export function isInDomain(text: string): boolean {
  const day = dayNumber(text);
  return day >= FIRST && day <= LAST;
}

/** True when an epoch-milliseconds time falls within the date domain (any time zone). */
export function isTimeInDomain(epochMs: number): boolean {
  return epochMs >= (FIRST + 1) * DAY_MS && epochMs < LAST * DAY_MS;
}

/** `from` moved by `days` (negative: back). */
export function addDays(from: string, days: number): string {
  return dayText(dayNumber(from) + days);
}

/** The same day one year earlier; 29 February becomes the 28th. */
export function yearEarlier(day: string): string {
  const [year, rest] = [Number(day.slice(0, 4)) - 1, day.slice(4)];
  const text = `${String(year).padStart(4, "0")}${rest}`;
  return isCalendarDate(text) ? text : `${String(year).padStart(4, "0")}-02-28`;
}

/** Number of days from `from` to `to`, both included. */
export function daysIn(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from) + 1;
}
