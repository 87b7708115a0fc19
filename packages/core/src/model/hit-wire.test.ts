import { describe, expect, it } from "vitest";
import { HIT_DIMENSIONS, type DimensionValues } from "./dimensions.js";
import type { Hit } from "./hit.js";
import { packHits, unpackHits } from "./hit-wire.js";

const values = (tag: string) =>
  Object.fromEntries(HIT_DIMENSIONS.map((kind, i) => [kind, i % 3 === 0 ? "" : `${tag}-${kind}`])) as DimensionValues;

describe("hits packed for another thread", () => {
  it("arrive with every field, optional ones included", () => {
    // Required<Hit>: a field added to Hit must be given here, and then must survive the trip.
    const full: Required<Hit> = {
      kind: "event",
      websiteId: 7,
      timestamp: 1_764_000_000_123,
      localTime: 1_764_003_600,
      day: "2025-11-24",
      hour: "17",
      visitorHash: "hash-today",
      previousVisitorHash: "hash-yesterday",
      nextVisitorHash: null,
      engagedMs: 0,
      scrollDepth: 55,
      vitals: { lcp: 1800, inp: null, cls: 0.05, fcp: 700, ttfb: 90 },
      props: { plan: "pro", "two words": "ü" },
      values: values("a"),
      outboxId: 42,
    };
    const plain: Hit = {
      ...full,
      kind: "pageview",
      props: null,
      values: values("b"),
      previousVisitorHash: null,
      scrollDepth: null,
      vitals: null,
    };
    delete plain.outboxId;
    const [first, second] = unpackHits(structuredClone(packHits([full, plain])));
    expect(first).toEqual(full);
    expect(second).toEqual(plain);
    expect(second).not.toHaveProperty("outboxId");
  });

  it("arrive as they were when a field repeats the hit before's value, goes back to an older one, or holds another field's", () => {
    const hit = (day: string, hour: string, visitorHash: string): Hit => ({
      kind: "pageview",
      websiteId: 1,
      timestamp: 1_764_000_000_000,
      localTime: 1_764_000_000,
      day,
      hour,
      visitorHash,
      previousVisitorHash: null,
      nextVisitorHash: null,
      engagedMs: 0,
      scrollDepth: null,
      vitals: null,
      props: null,
      values: values(visitorHash),
    });
    const hits = [hit("d1", "10", "v1"), hit("d1", "10", "v1"), hit("d2", "d1", "v2"), hit("d1", "d2", "v1"), hit("d1", "d2", "10")];
    expect(unpackHits(structuredClone(packHits(hits)))).toEqual(hits);
  });

  it("refuses hits packed with another registry", () => {
    const packed = packHits([]);
    expect(() => unpackHits({ ...packed, fields: packed.fields + 1 })).toThrow(/fields/);
  });
});
