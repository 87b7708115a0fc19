import { describe, expect, it } from "vitest";
import { valueLabel } from "./format.js";
import { byMonth, daySeries, hourSeries, niceMax, total } from "./series.js";

describe("series", () => {
  it("zero-fills every day of the range and aligns series", () => {
    const visitors = [{ value: "2026-01-02", count: 3 }];
    const views = [
      { value: "2026-01-02", count: 5 },
      { value: "2026-01-03", count: 1 },
    ];
    expect(daySeries("2026-01-01", "2026-01-03", [visitors, views])).toEqual([
      { key: "2026-01-01", values: [0, 0] },
      { key: "2026-01-02", values: [3, 5] },
      { key: "2026-01-03", values: [0, 1] },
    ]);
  });

  it("zero-fills 24 hours", () => {
    const hours = hourSeries([[{ value: "07", count: 2 }]]);
    expect(hours).toHaveLength(24);
    expect(hours[7]).toEqual({ key: "07", values: [2] });
    expect(total(hours.map((p) => ({ value: p.key, count: p.values[0] ?? 0 })))).toBe(2);
  });

  it("sums days by month", () => {
    const days = daySeries("2026-01-30", "2026-02-02", [
      [
        { value: "2026-01-31", count: 2 },
        { value: "2026-02-01", count: 4 },
        { value: "2026-02-02", count: 1 },
      ],
    ]);
    expect(byMonth(days)).toEqual([
      { key: "2026-01", values: [2] },
      { key: "2026-02", values: [5] },
    ]);
  });

  it("rounds the axis up to a readable step", () => {
    expect(niceMax(0)).toBe(4);
    expect(niceMax(3)).toBe(4);
    expect(niceMax(37)).toBe(40);
    expect(niceMax(87)).toBe(100);
    expect(niceMax(1234)).toBe(2000);
  });

  it("labels geo values", () => {
    expect(valueLabel("country", "US:United States")).toEqual({ code: "US", text: "United States" });
    expect(valueLabel("city", "US:Austin")).toEqual({ code: "US", text: "Austin" });
    expect(valueLabel("region", "US-TX:Texas")).toEqual({ code: "US-TX", text: "Texas" });
    expect(valueLabel("continent", "NA:North America")).toEqual({ text: "North America" });
    expect(valueLabel("page", "/a:b")).toEqual({ text: "/a:b" });
  });
});
