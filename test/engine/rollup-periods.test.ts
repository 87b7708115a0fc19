// The rollup periods (stats/periods.ts): a range's cover holds every day once and no
// other, and each day's count is added to exactly the periods a cover can pick.
import { describe, expect, it } from "vitest";
import { dayNumber, dayText, coveringPeriods, widerPeriods } from "@tally-analytics/core/internal";

/** The periods each day belongs to (itself and the wider ones), and thereby the days of each period. */
function daysOfPeriods(from: number, to: number): Map<string, number[]> {
  const days = new Map<string, number[]>();
  for (let day = from; day <= to; day++) {
    for (const period of [dayText(day), ...widerPeriods(dayText(day))]) {
      const list = days.get(period) ?? [];
      list.push(day);
      days.set(period, list);
    }
  }
  return days;
}

describe("rollup periods", () => {
  it("a day belongs to its dekad, month, quarter and year", () => {
    expect(widerPeriods("2026-11-21")).toEqual(["2026-11/3", "2026-11", "2026-Q4", "2026"]);
    expect(widerPeriods("2026-02-10")).toEqual(["2026-02/1", "2026-02", "2026-Q1", "2026"]);
    expect(widerPeriods("2026-07-11")).toEqual(["2026-07/2", "2026-07", "2026-Q3", "2026"]);
  });

  it("covers any range with whole periods, each day exactly once, none outside", () => {
    // Every period that can hold a day of 2023-12-01…2027-01-31 (leap year 2024 included).
    const first = dayNumber("2023-12-01");
    const last = dayNumber("2027-01-31");
    const periods = daysOfPeriods(first - 400, last + 400);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3000; i++) {
      const from = first + Math.floor(random() * (last - first));
      const to = Math.min(last, from + Math.floor(random() * (i % 3 === 0 ? 800 : 70)));
      const covered: number[] = [];
      for (const period of coveringPeriods(dayText(from), dayText(to))) covered.push(...periods.get(period)!);
      covered.sort((a, b) => a - b);
      expect(covered).toEqual(Array.from({ length: to - from + 1 }, (_, k) => from + k));
    }
  });

  it("a year ending mid-month reads a handful of wide periods", () => {
    expect(coveringPeriods("2024-06-16", "2025-06-15")).toEqual([
      ...["16", "17", "18", "19", "20"].map((day) => `2024-06-${day}`),
      "2024-06/3",
      "2024-Q3",
      "2024-Q4",
      "2025-Q1",
      "2025-04",
      "2025-05",
      "2025-06/1",
      ...["11", "12", "13", "14", "15"].map((day) => `2025-06-${day}`),
    ]);
  });
});
