import { describe, expect, it } from "vitest";
import { filterParam, parseFilter, parseState, stateQuery, withFilter, type ViewState } from "./view-state.js";

describe("view state in the URL", () => {
  it("round-trips range, filters, comparison and metric", () => {
    const state: ViewState = {
      range: { key: "custom", from: "2026-01-01", to: "2026-01-31" },
      filters: [
        { dimension: "country", operator: "is", values: ["US:United States"] },
        { dimension: "page", operator: "contains", values: ["/a|b", "c\\d"] },
        { dimension: "prop:plan", operator: "is_not", values: ["pro"] },
        { dimension: "referrer", operator: "matches_not", values: ["^news\\."] },
      ],
      compare: "year",
      metric: "bounce_rate",
      segment: 3,
    };
    const query = new URLSearchParams(stateQuery(state));
    expect(query.getAll("filter")).toEqual([
      "country:is:US:United States",
      "page:contains:/a\\|b|c\\\\d",
      "prop:plan:is_not:pro",
      "referrer:matches_not:^news\\\\.",
    ]);
    expect(query.get("segment")).toBe("3");
    expect(parseState(query, "2026-02-10")).toEqual(state);
  });

  it("leaves defaults out and ignores what is not a filter", () => {
    const state = parseState(new URLSearchParams("filter=nonsense&filter=browser:is:Firefox&compare=never&metric=x"), "2026-02-10");
    expect(state).toEqual({
      range: { key: "30d", from: "2026-01-12", to: "2026-02-10" },
      filters: [{ dimension: "browser", operator: "is", values: ["Firefox"] }],
      compare: "",
      metric: "visitors",
      segment: null,
    });
    expect(stateQuery(state)).toBe("range=30d&filter=browser%3Ais%3AFirefox");
  });

  it("escapes | and \\ in values as the API reads them", () => {
    const filter = { dimension: "page", operator: "is" as const, values: ["a|b\\", "c"] };
    expect(filterParam(filter)).toBe("page:is:a\\|b\\\\|c");
    expect(parseFilter(filterParam(filter))).toEqual(filter);
  });

  it("a new filter replaces one on the same dimension", () => {
    const de = { dimension: "country", operator: "is" as const, values: ["DE:Germany"] };
    const fr = { dimension: "country", operator: "is" as const, values: ["FR:France"] };
    const page = { dimension: "page", operator: "is" as const, values: ["/"] };
    expect(withFilter([de, page], fr)).toEqual([page, fr]);
  });
});
