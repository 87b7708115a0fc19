const DAY_MS = 86_400_000;

const toDate = (day: string) => new Date(`${day}T00:00:00Z`);
const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const addDays = (day: string, n: number) => dayOf(new Date(toDate(day).getTime() + n * DAY_MS));
const lastDayOfMonth = (month: string) => {
  const [year, monthNumber] = month.split("-").map(Number) as [number, number];
  return dayOf(new Date(Date.UTC(year, monthNumber, 0)));
};

/**
 * The fewest rollup periods that exactly cover `from`…`to` (inclusive `Y-m-d`):
 * whole years as `Y`, whole months as `Y-m`, the remaining days as `Y-m-d`. A range
 * of any length needs at most ~60 day periods, 22 month periods and its years.
 */
export function coveringPeriods(from: string, to: string): string[] {
  const periods: string[] = [];
  let day = from;
  while (day <= to) {
    const year = day.slice(0, 4);
    if (day.endsWith("-01-01") && `${year}-12-31` <= to) {
      periods.push(year);
      day = `${Number(year) + 1}-01-01`;
      continue;
    }
    const month = day.slice(0, 7);
    if (day.endsWith("-01") && lastDayOfMonth(month) <= to) {
      periods.push(month);
      day = addDays(lastDayOfMonth(month), 1);
      continue;
    }
    periods.push(day);
    day = addDays(day, 1);
  }
  return periods;
}

/** True for a real calendar date written `Y-m-d`. */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = toDate(text);
  return !Number.isNaN(date.getTime()) && dayOf(date) === text;
}
