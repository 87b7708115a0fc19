// Calendar days as `Y-m-d` strings, computed in UTC so no local DST shifts them.
import { locale } from "./i18n.js";

export type RangeKey = "today" | "7d" | "30d" | "12mo" | "custom";

export interface Range {
  key: RangeKey;
  from: string;
  to: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The days the API answers for (its date domain): anything else is not a range to ask about. */
export const isDay = (text: string): boolean =>
  DAY.test(text) && text >= "1970-01-01" && text <= "9998-12-31" && toDate(text).toISOString().slice(0, 10) === text;

const toDate = (day: string) => new Date(`${day}T00:00:00Z`);
const toDay = (date: Date) => date.toISOString().slice(0, 10);

/** Today's date in a website's time zone (its stats are bucketed there). */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat("en", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")}`;
}

export function addDays(day: string, days: number): string {
  const date = toDate(day);
  date.setUTCDate(date.getUTCDate() + days);
  return toDay(date);
}

/** The first day of the month `months` away from `day`'s. */
export function monthStart(day: string, months = 0): string {
  const date = toDate(`${day.slice(0, 7)}-01`);
  date.setUTCMonth(date.getUTCMonth() + months);
  return toDay(date);
}

/** Most days a range lists: the API's own longest range. */
const MAX_DAYS = 3660;

/** Every day from `from` to `to`, both included (walked as times, never compared as text). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const end = toDate(to).getTime();
  for (let time = toDate(from).getTime(); time <= end && days.length < MAX_DAYS; time += 86_400_000) {
    days.push(toDay(new Date(time)));
  }
  return days;
}

export function rangeFor(key: Exclude<RangeKey, "custom">, today: string): Range {
  const from = {
    today,
    "7d": addDays(today, -6),
    "30d": addDays(today, -29),
    "12mo": monthStart(today, -11),
  }[key];
  return { key, from, to: today };
}

/** The range a URL's query names, or the last 30 days. */
export function parseRange(query: URLSearchParams, today: string): Range {
  const key = query.get("range");
  const from = query.get("from") ?? "";
  const to = query.get("to") ?? "";
  if (key === "custom" && isDay(from) && isDay(to) && from <= to) return { key, from, to };
  if (key === "today" || key === "7d" || key === "12mo") return rangeFor(key, today);
  return rangeFor("30d", today);
}

export function rangeQuery(range: Range): string {
  const query = new URLSearchParams({ range: range.key });
  if (range.key === "custom") {
    query.set("from", range.from);
    query.set("to", range.to);
  }
  return query.toString();
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** A date format of the dashboard's language, made once. */
function dateFormat(kind: "day" | "longDay" | "month"): Intl.DateTimeFormat {
  const key = `${locale()}|${kind}`;
  let format = formats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      kind === "month"
        ? { month: "short", year: "numeric" }
        : { month: "short", day: "numeric", ...(kind === "longDay" ? { year: "numeric" } : {}) };
    formats.set(key, (format = new Intl.DateTimeFormat(locale(), { ...options, timeZone: "UTC" })));
  }
  return format;
}

/** `Mar 5` for a day, `Mar 2026` for a month (`Y-m`). */
export function formatDay(key: string): string {
  return key.length === 7 ? dateFormat("month").format(toDate(`${key}-01`)) : dateFormat("day").format(toDate(key));
}

/** `Mar 5 – Mar 30`, with years when the range is not all in `today`'s year. */
export function formatRange(from: string, to: string, today: string): string {
  const format = (day: string) =>
    from.slice(0, 4) === today.slice(0, 4) && to.slice(0, 4) === today.slice(0, 4)
      ? formatDay(day)
      : dateFormat("longDay").format(toDate(day));
  return from === to ? format(from) : `${format(from)} – ${format(to)}`;
}

/** The days a comparison reads (as the API's `compare`): the same number of days just before, or one year earlier (29 February → 28 February). */
export function comparisonRange(range: Pick<Range, "from" | "to">, compare: "previous_period" | "year"): { from: string; to: string } {
  if (compare === "previous_period") {
    const days = daysBetween(range.from, range.to).length;
    return { from: addDays(range.from, -days), to: addDays(range.from, -1) };
  }
  const yearBefore = (day: string) => {
    const shifted = String(Number(day.slice(0, 4)) - 1).padStart(4, "0") + day.slice(4);
    return shifted.endsWith("-02-29") && toDate(shifted).getUTCDate() !== 29 ? `${shifted.slice(0, 8)}28` : shifted;
  };
  return { from: yearBefore(range.from), to: yearBefore(range.to) };
}

/** The hour (0–23) it is now in a time zone. */
export function hourIn(timeZone: string, now: Date = new Date()): number {
  return Number(new Intl.DateTimeFormat("en", { timeZone, hour: "2-digit", hourCycle: "h23" }).format(now));
}
