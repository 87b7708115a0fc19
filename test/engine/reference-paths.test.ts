/**
 * The proof of docs/statistics.md's funnels and journeys: the reference data set
 * (reference-fixture.ts) is asked funnels and journeys over ranges, with and without
 * filters and comparisons (reference-path-asks.ts), and every answer must equal the brute force over the visits
 * the store still holds (reference-paths.ts). Each dialect's store (a copy of the run's) is read
 * from rows, then from day blocks with some days' blocks deleted (those days come from rows
 * beside them).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS, runSql } from "../support/databases.js";
import { openReferenceCopy, type Reference } from "./reference-fixture.js";
import { createFunnels, funnelProblems, journeyProblems } from "./reference-path-asks.js";

describe.each(DIALECTS)("funnels and journeys on %s agree with the reference model", (dialect) => {
  let reference: Reference;
  let funnelIds: Map<string, Map<string, number>>;

  beforeAll(async () => {
    reference = await openReferenceCopy(dialect);
    funnelIds = await createFunnels(reference);
  }, 240_000);

  afterAll(async () => {
    await reference?.dispose();
  });

  /** The same questions, asked of whatever the store reads at the time. */
  const asksAgree = () => {
    it("funnels: every funnel, site, range, filter set and comparison", async () => {
      const { problems, converted } = await funnelProblems(reference, funnelIds);
      expect(problems).toEqual([]);
      // The data reaches the last steps: the comparison is not of empty funnels.
      expect(converted).toBeGreaterThan(50);
    }, 120_000);

    it("journeys: every start, direction and depth, site, range, filter set and comparison", async () => {
      const { problems, deepest } = await journeyProblems(reference);
      expect(problems).toEqual([]);
      expect(deepest).toBe(5);
    }, 120_000);
  };

  describe("from rows", asksAgree);

  describe("from day blocks", () => {
    beforeAll(async () => {
      expect(await reference.tally.buildDayBlocks()).toBeGreaterThan(0);
      await runSql(dialect, reference.stored.url, "delete from day_blocks where day % 5 = 2", { write: true });
    }, 120_000);
    asksAgree();
  });
});
