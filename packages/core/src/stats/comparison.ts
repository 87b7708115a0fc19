import { addDays, daysIn, yearEarlier } from "../shared/calendar.js";
import type { DayRange } from "./count-reader.js";

export type CompareMode = "previous_period" | "year";

/** The range a comparison reads (docs/statistics.md, "Comparison"). */
export function comparisonRange(range: DayRange, mode: CompareMode): DayRange {
  if (mode === "year") return { from: yearEarlier(range.from), to: yearEarlier(range.to) };
  const length = daysIn(range.from, range.to);
  return { from: addDays(range.from, -length), to: addDays(range.from, -1) };
}

/** The day of the comparison range that a day of the main range is compared with. */
export function comparedDay(day: string, range: DayRange, mode: CompareMode): string {
  return mode === "year" ? yearEarlier(day) : addDays(day, -daysIn(range.from, range.to));
}
