import { describe, expect, it } from "vitest";
import { parseStatsQuery, parseTotalsQuery, statsQuerySchema } from "./stats-query.js";

describe("a statistics query is parsed once", () => {
  it("a query the server parsed with the schema is used as it is by core (the same object, its filters not parsed again)", () => {
    const parsed = statsQuerySchema.parse({
      name: "page",
      from: "2026-01-01",
      to: "2026-01-31",
      filter: ["country:is:DE|AT", "page:contains:/blog"],
    });
    expect(parsed.conditions).toHaveLength(2);
    expect(parseStatsQuery(parsed)).toBe(parsed);
    const totals = parseTotalsQuery({ from: "2026-01-01", to: "2026-01-31", filter: "browser:is:Firefox" });
    expect(parseTotalsQuery(totals)).toBe(totals);
  });

  it("raw input is checked: a bad filter is refused, naming it", () => {
    expect(() => parseStatsQuery({ name: "page", from: "2026-01-01", to: "2026-01-31", filter: ["country:is:DE", "nonsense"] })).toThrow(
      /given data was invalid/,
    );
    try {
      parseStatsQuery({ name: "page", from: "2026-01-01", to: "2026-01-31", filter: ["country:is:DE", "nonsense"] });
    } catch (error) {
      expect((error as { errors: Record<string, string[]> }).errors["filter.1"]?.[0]).toMatch(/not of the form/);
    }
  });
});
