import { describe, expect, it } from "vitest";
import { addDays, daysBetween, formatRange, isDay, monthStart, parseRange, rangeFor, rangeQuery, todayIn } from "./dates.js";

describe("dates", () => {
  it("today is the website's own date", () => {
    const now = new Date("2026-03-01T23:30:00Z");
    expect(todayIn("UTC", now)).toBe("2026-03-01");
    expect(todayIn("Europe/Paris", now)).toBe("2026-03-02");
    expect(todayIn("America/Los_Angeles", now)).toBe("2026-03-01");
  });

  it("adds days and months across leap years and DST", () => {
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2026-03-29", -1)).toBe("2026-03-28");
    expect(monthStart("2026-03-31", -11)).toBe("2025-04-01");
    expect(daysBetween("2026-02-27", "2026-03-02")).toEqual(["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"]);
  });

  it("presets end today and include it", () => {
    expect(rangeFor("today", "2026-05-10")).toEqual({ key: "today", from: "2026-05-10", to: "2026-05-10" });
    expect(rangeFor("7d", "2026-05-10").from).toBe("2026-05-04");
    expect(rangeFor("30d", "2026-05-10").from).toBe("2026-04-11");
    expect(rangeFor("12mo", "2026-05-10").from).toBe("2025-06-01");
  });

  it("reads a range from a query and writes it back", () => {
    const today = "2026-05-10";
    expect(parseRange(new URLSearchParams("range=7d"), today)).toEqual(rangeFor("7d", today));
    const custom = parseRange(new URLSearchParams("range=custom&from=2026-01-01&to=2026-01-31"), today);
    expect(custom).toEqual({ key: "custom", from: "2026-01-01", to: "2026-01-31" });
    expect(parseRange(new URLSearchParams(rangeQuery(custom)), today)).toEqual(custom);
    // Anything malformed falls back to 30 days.
    for (const query of ["", "range=nope", "range=custom&from=2026-02-30&to=2026-03-01", "range=custom&from=2026-03-02&to=2026-03-01"]) {
      expect(parseRange(new URLSearchParams(query), today)).toEqual(rangeFor("30d", today));
    }
    expect(isDay("2026-02-29")).toBe(false);
  });

  it("never loops or lists beyond the API's date domain (years 1970 to 9998)", () => {
    const today = "2026-05-10";
    for (const query of ["range=custom&from=9999-01-01&to=9999-12-31", "range=custom&from=1969-12-31&to=1970-01-02"]) {
      expect(parseRange(new URLSearchParams(query), today)).toEqual(rangeFor("30d", today));
    }
    expect(daysBetween("9998-12-30", "9998-12-31")).toEqual(["9998-12-30", "9998-12-31"]);
    expect(daysBetween("9999-12-30", "9999-12-31")).toEqual(["9999-12-30", "9999-12-31"]);
    expect(daysBetween("1970-01-01", "9998-12-31")).toHaveLength(3660);
  });

  it("labels ranges with years only when needed", () => {
    expect(formatRange("2026-03-01", "2026-03-07", "2026-03-07")).toBe("Mar 1 – Mar 7");
    expect(formatRange("2025-06-01", "2026-05-10", "2026-05-10")).toBe("Jun 1, 2025 – May 10, 2026");
    expect(formatRange("2026-05-10", "2026-05-10", "2026-05-10")).toBe("May 10");
  });
});

describe("comparison ranges", () => {
  it("the same number of days just before, or one year earlier", async () => {
    const { comparisonRange } = await import("./dates.js");
    expect(comparisonRange({ from: "2026-03-01", to: "2026-03-31" }, "previous_period")).toEqual({ from: "2026-01-29", to: "2026-02-28" });
    expect(comparisonRange({ from: "2026-03-05", to: "2026-03-05" }, "previous_period")).toEqual({ from: "2026-03-04", to: "2026-03-04" });
    expect(comparisonRange({ from: "2028-02-01", to: "2028-02-29" }, "year")).toEqual({ from: "2027-02-01", to: "2027-02-28" });
  });
});
