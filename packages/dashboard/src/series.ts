import { daysBetween } from "./dates.js";
import type { StatRow } from "./api.js";

/** One x position of a chart: a day, a month or an hour, with a value per series (null: no figure, such as a rate on a day without visits). */
export interface Point {
  key: string;
  values: (number | null)[];
}

const countsOf = (rows: readonly StatRow[]) => new Map(rows.map((row) => [row.value, row.count]));

/**
 * Aligns several series on the given keys; a key a series lacks counts 0 (the API lists
 * only counts above 0), or is null for rates, which the API lists for every day with visits.
 */
export function alignSeries(keys: readonly string[], series: ReadonlyArray<readonly StatRow[]>, missing: 0 | null = 0): Point[] {
  const maps = series.map(countsOf);
  return keys.map((key) => ({ key, values: maps.map((counts) => counts.get(key) ?? missing) }));
}

/** Every day of the range, zero-filled (or null-filled for rates). */
export function daySeries(from: string, to: string, series: ReadonlyArray<readonly StatRow[]>, missing: 0 | null = 0): Point[] {
  return alignSeries(daysBetween(from, to), series, missing);
}

export const HOURS: readonly string[] = Array.from({ length: 24 }, (_, hour) => String(hour).padStart(2, "0"));

/** `00`…`23`, zero-filled. */
export function hourSeries(series: ReadonlyArray<readonly StatRow[]>): Point[] {
  return alignSeries(HOURS, series);
}

/** Days summed by month (`Y-m`), for ranges too long to read day by day. */
export function byMonth(points: readonly Point[]): Point[] {
  const months = new Map<string, (number | null)[]>();
  for (const { key, values } of points) {
    const month = key.slice(0, 7);
    const sums = months.get(month) ?? values.map(() => 0);
    values.forEach((value, index) => (sums[index] = (sums[index] ?? 0) + (value ?? 0)));
    months.set(month, sums);
  }
  return [...months].map(([key, values]) => ({ key, values }));
}

export function total(rows: readonly StatRow[]): number {
  return rows.reduce((sum, row) => sum + row.count, 0);
}

export { niceMax } from "./nice-max.js";
