import { describe, expect, it } from "vitest";
import { jsonList } from "./flush-io.js";

describe("jsonList", () => {
  const roundTrip = (value: string) => (JSON.parse(jsonList([{ value }], ["value"])) as [{ value: string }])[0].value;

  it("keeps text whole, pairs of surrogates included", () => {
    for (const value of ["", "plain", 'quote " and \\ backslash', "emoji 🎉", "\\ud800 as text", "\\\\ud800"]) {
      expect(roundTrip(value)).toBe(value);
    }
  });

  it("writes a lone surrogate as U+FFFD, as a UTF-8 encoder would, and no escape PostgreSQL refuses", () => {
    expect(roundTrip("a\ud800b")).toBe("a\ufffdb");
    expect(roundTrip("cut \ud83c")).toBe("cut \ufffd");
    expect(roundTrip("\udc00 low")).toBe("\ufffd low");
    expect(roundTrip("\\\ud800")).toBe("\\\ufffd");
    expect(jsonList([{ value: "x\ud800" }], ["value"])).not.toMatch(/\\ud8/);
  });

  it("keeps only the listed keys, in their order", () => {
    expect(jsonList([{ b: 2, a: 1, c: 3 }], ["a", "b"])).toBe('[{"a":1,"b":2}]');
  });
});
