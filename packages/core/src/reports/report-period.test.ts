import { describe, expect, it } from "vitest";
import { lastCompleteRange, rangeOfKey } from "./report-period.js";

describe("report periods", () => {
  it("the last full week is Monday to Sunday before the week of today", () => {
    expect(lastCompleteRange("week", "2026-11-16")).toEqual({ kind: "week", key: "week:2026-11-09", from: "2026-11-09", to: "2026-11-15" }); // a Monday
    expect(lastCompleteRange("week", "2026-11-15")).toEqual({ kind: "week", key: "week:2026-11-02", from: "2026-11-02", to: "2026-11-08" }); // a Sunday
    expect(lastCompleteRange("week", "2027-01-03").key).toBe("week:2026-12-21"); // across a year
    expect(lastCompleteRange("week", "1970-01-12").from).toBe("1970-01-05");
  });

  it("the last full month is the calendar month before today's", () => {
    expect(lastCompleteRange("month", "2026-11-01")).toEqual({ kind: "month", key: "month:2026-10", from: "2026-10-01", to: "2026-10-31" });
    expect(lastCompleteRange("month", "2026-01-31")).toEqual({ kind: "month", key: "month:2025-12", from: "2025-12-01", to: "2025-12-31" });
    expect(lastCompleteRange("month", "2028-03-15")).toMatchObject({ from: "2028-02-01", to: "2028-02-29" });
    expect(lastCompleteRange("month", "2027-03-01")).toMatchObject({ to: "2027-02-28" });
  });

  it("a key names its range again; anything else names none", () => {
    for (const range of [lastCompleteRange("week", "2026-11-16"), lastCompleteRange("month", "2028-03-15")])
      expect(rangeOfKey(range.key)).toEqual(range);
    for (const key of ["week:2026-11-10", "week:2026-02-30", "month:2026-13", "month:2026-00", "day:2026-11-16", "week:2026-11-09 ", ""]) {
      expect(rangeOfKey(key), key).toBeNull();
    }
  });
});
