import { dayNumber, dayText } from "../shared/calendar.js";
import type { DayRange, StatRow } from "../model/stats-schemas.js";
import type { VisitDimension } from "../model/filters.js";

export type { DayRange } from "../model/stats-schemas.js";

/**
 * What is counted: a statistic's name (or an internal series: `bounces`,
 * `visit_duration`, `visit_pageviews`, `event_visitors`, and from the store
 * `page_goal_visitors`/`page_goal_views`), and for `event_property` its event and property.
 */
export interface Statistic {
  name: string;
  event?: string | undefined;
  property?: string | undefined;
  /** `page_goal_visitors` and `page_goal_views` (store only): the page goal's pattern. */
  pattern?: string | undefined;
  /**
   * A day series of visits or `pageviews` counted per value of this visit column instead of
   * per day (segments only): a breakdown's totals, every value at once.
   */
  by?: VisitDimension | undefined;
}

/** One statistic over one range. */
export interface CountRequest {
  stat: Statistic;
  range: CountRange;
}

/**
 * Days, or (`seconds`) a part of them: local wall-clock seconds [start, end), honoured by the
 * segment reader alone (the days the part cuts are read from the rows, never a day block).
 */
export type CountRange = DayRange & { seconds?: readonly [number, number] | undefined };

export interface ListOptions {
  /** Already lower-cased; "" for none. */
  search: string;
  sortBy: "count" | "value";
  sort: "asc" | "desc";
  perPage: number;
  page: number;
}

/** Where statistics are counted from: the rollups (unfiltered) or the visits and hits (filtered). */
export interface CountReader {
  /** One page of a statistic's rows, searched and sorted, and how many rows there are in all. */
  page(stat: Statistic, range: DayRange, list: ListOptions): Promise<{ rows: StatRow[]; total: number }>;
  /** Every row of a statistic over a range: day and hour series, and the parts of ratios. */
  all(stat: Statistic, range: DayRange): Promise<StatRow[]>;
  /** `all` of several statistics and ranges at once: planned together where the source can (one request's totals). */
  allOf(requests: readonly CountRequest[]): Promise<StatRow[][]>;
  /** The counts of these values over a range (for comparisons). */
  countsOf(stat: Statistic, range: DayRange, values: readonly string[]): Promise<Map<string, number>>;
  /**
   * How many stored rows counting this statistic starts from (rollup rows, or visits or
   * hits in the range), counting no further than `atMost + 1`: a cheap index count, so a
   * query can be refused before it does work that cannot be interrupted.
   */
  rowsRead(stat: Statistic, range: DayRange, atMost: number): Promise<number>;
  /** Which stored rows a statistic is counted from: statistics of the same rows read the same number (`rowsRead` once for them). */
  source(stat: Statistic): string;
}

/** Code point order (SQLite's binary collation, PostgreSQL's "C"): what JavaScript's < does on these strings. */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Searches, sorts and pages rows in memory: for series, which have at most a few thousand rows. */
export function pageRows(rows: readonly StatRow[], list: ListOptions): { rows: StatRow[]; total: number } {
  const kept = list.search === "" ? [...rows] : rows.filter((row) => row.value.toLowerCase().includes(list.search));
  const direction = list.sort === "asc" ? 1 : -1;
  kept.sort((a, b) =>
    list.sortBy === "value" ? direction * byCodePoint(a.value, b.value) : direction * (a.count - b.count) || byCodePoint(a.value, b.value),
  );
  const start = (list.page - 1) * list.perPage;
  return { rows: kept.slice(start, start + list.perPage), total: kept.length };
}

/**
 * The page of dictionary counts sorted by count, looking up only the values that may be on
 * it: the rows whose count lies between the page's first and last (ties are ordered by
 * value). Id 0 is no value; every other id counted has one.
 */
export async function pageByCount(
  counts: ReadonlyMap<number, number>,
  list: ListOptions,
  valuesOf: (ids: readonly number[]) => Promise<Map<number, string>>,
): Promise<{ rows: StatRow[]; total: number }> {
  const direction = list.sort === "asc" ? 1 : -1;
  const counted = [...counts].filter(([id, n]) => id !== 0 && n > 0).sort((a, b) => direction * (a[1] - b[1]));
  const start = (list.page - 1) * list.perPage;
  const window = counted.slice(start, start + list.perPage);
  if (window.length === 0) return { rows: [], total: counted.length };
  const [first, last] = [window[0]![1], window.at(-1)![1]];
  const between = (n: number) => direction * (n - first) >= 0 && direction * (n - last) <= 0;
  const before = counted.findIndex(([, n]) => between(n));
  const candidates = counted.filter(([, n]) => between(n));
  const values = await valuesOf(candidates.map(([id]) => id));
  const rows = candidates.map(([id, count]) => ({ value: values.get(id) ?? "", count }));
  const sorted = pageRows(rows, { ...list, page: 1, perPage: rows.length }).rows;
  return { rows: sorted.slice(start - before, start - before + list.perPage), total: counted.length };
}

/** Local seconds at which a range starts and ends (exclusive): rows store local wall-clock seconds. */
export function localBounds(range: CountRange): [number, number] {
  if (range.seconds) return [range.seconds[0], range.seconds[1]];
  return [dayNumber(range.from) * 86_400, (dayNumber(range.to) + 1) * 86_400];
}

/** `Y-m-d` of a local day number, `HH` of an hour: how series values read. */
export const dayValue = (day: number) => dayText(day);
export const hourValue = (hour: number) => String(hour).padStart(2, "0");
/** `Y-m-d HH` of an hour counted from 1970-01-01 00:00 local (day × 24 + hour). */
export const dayHourValue = (hour: number) => `${dayValue(Math.floor(hour / 24))} ${hourValue(((hour % 24) + 24) % 24)}`;
