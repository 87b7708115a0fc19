/**
 * The decoded day-block columns kept between requests: found again only for the same day,
 * version and last hit, and the least recently used leave first once past the byte budget.
 * (day-blocks.test.ts shows a rebuilt block read in place of the one before it.)
 */
import { describe, expect, it } from "vitest";
import { createBlockColumnStore } from "@tally-analytics/core/internal";

const column = (n: number) => ({ length: n, values: null, index: new Uint8Array(n) });
const day = (d: number, version = 1, lastHit = d * 86_400 + 60) => ({ day: d, version, lastHit });

describe("block column store", () => {
  it("answers only for the same website, day, version and last hit", () => {
    const store = createBlockColumnStore(1000);
    const a = column(10);
    store.set(1, day(20000), "v.device", a, 10);
    expect(store.get(1, day(20000), "v.device")).toBe(a);
    expect(store.get(2, day(20000), "v.device")).toBeUndefined();
    expect(store.get(1, day(20001), "v.device")).toBeUndefined();
    expect(store.get(1, day(20000, 2), "v.device")).toBeUndefined();
    expect(store.get(1, day(20000, 1, 20000 * 86_400 + 99), "v.device")).toBeUndefined();
    expect(store.get(1, day(20000), "v.browser")).toBeUndefined();
  });

  it("lets the least recently used columns go once their bytes pass the budget, and keeps none larger than it", () => {
    const store = createBlockColumnStore(100);
    for (const d of [1, 2, 3]) store.set(1, day(d), "v.start", column(40), 40);
    // 120 bytes: the first went.
    expect(store.get(1, day(1), "v.start")).toBeUndefined();
    expect(store.get(1, day(2), "v.start")).toBeDefined();
    // Day 2 used last: day 3 goes next.
    store.set(1, day(4), "v.start", column(40), 40);
    expect(store.get(1, day(3), "v.start")).toBeUndefined();
    expect(store.get(1, day(2), "v.start")).toBeDefined();
    expect(store.get(1, day(4), "v.start")).toBeDefined();
    store.set(1, day(5), "v.start", column(101), 101);
    expect(store.get(1, day(5), "v.start")).toBeUndefined();
    expect(store.get(1, day(4), "v.start")).toBeDefined();
  });
});
