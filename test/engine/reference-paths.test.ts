/**
 * The proof of docs/statistics.md's funnels and journeys: the reference data set
 * (reference-fixture.ts) is asked funnels and journeys over ranges, with and without
 * filters and comparisons, and every answer must equal the brute force over the visits
 * the store still holds (reference-paths.ts). Each dialect's store is filled once and read
 * from rows, then from day blocks with some days' blocks deleted (those days come from rows
 * beside them).
 */
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS, runSql } from "../support/databases.js";
import { comparisonRange, type CompareMode } from "./reference-answers.js";
import { openReference, type Reference } from "./reference-fixture.js";
import { modelFunnel, modelJourney, visitsOf, type JourneyAsk } from "./reference-paths.js";
import { filterText, keptVisits, type FilterCondition } from "./reference-segments.js";

const FUNNELS: string[][] = [
  ["page:/", "page:/pricing"],
  ["page:/blog/*", "event:signup", "event:purchase"],
  ["page:/pricing", "page:/signup*", "event:signup", "event:purchase"],
  // A step repeated, an event on any page between pageviews, a pattern matching every page.
  ["event:Search", "page:/*", "event:Search", "page:/docs*"],
  ["page:/caf%C3%A9", "page:/a|b", "event:🎉 Celebrate"],
  ["page:/*", "page:/*", "page:/*", "page:/*", "page:/*", "page:/*", "page:/*", "page:/*"],
];

const JOURNEYS: JourneyAsk[] = [
  { start: "page:/pricing", direction: "next", depth: 3 },
  { start: "page:/pricing", direction: "previous", depth: 2 },
  { start: "page:/blog/*", direction: "next", depth: 5 },
  { start: "event:signup", direction: "previous", depth: 5 },
  { start: "event:purchase", direction: "next", depth: 1 },
  { start: "page:/", direction: "next", depth: 4 },
];

/** Ranges, filters and comparisons asked of every funnel and journey on every site. */
const CASES: { from: string; to: string; filter: FilterCondition[]; compare?: CompareMode }[] = [
  { from: "2026-02-20", to: "2026-04-10", filter: [] },
  { from: "2025-01-01", to: "2028-12-31", filter: [] },
  { from: "2026-03-08", to: "2026-03-08", filter: [] },
  { from: "2026-06-01", to: "2026-06-30", filter: [] },
  { from: "2026-02-20", to: "2026-04-10", filter: [{ dimension: "device", operator: "is", values: ["mobile"] }] },
  { from: "2026-02-20", to: "2026-04-10", filter: [{ dimension: "page", operator: "contains", values: ["/blog"] }] },
  {
    from: "2026-03-05",
    to: "2026-03-11",
    filter: [{ dimension: "country", operator: "is_not", values: ["US"] }],
    compare: "previous_period",
  },
  { from: "2026-02-20", to: "2026-03-21", filter: [], compare: "year" },
  // Any of a visit condition and a hit condition (`||`).
  {
    from: "2026-02-20",
    to: "2026-04-10",
    filter: [
      {
        any: [
          { dimension: "device", operator: "is", values: ["mobile"] },
          { dimension: "page", operator: "contains", values: ["/blog"] },
        ],
      },
    ],
  },
];

describe.each(DIALECTS)("funnels and journeys on %s agree with the reference model", (dialect) => {
  let reference: Reference;
  /** Each site's funnels as defined through `tally.funnels`, by their steps. */
  const funnelIds = new Map<string, Map<string, number>>();

  beforeAll(async () => {
    reference = await openReference(dialect);
    for (const [site, websiteId] of reference.websiteIds) {
      const ids = new Map<string, number>();
      for (const [index, steps] of FUNNELS.entries()) {
        const funnel = await reference.tally.funnels.create(reference.accountId, websiteId, { name: `Funnel ${index}`, steps });
        ids.set(steps.join(" → "), funnel.id);
      }
      funnelIds.set(site, ids);
    }
  }, 240_000);

  afterAll(async () => {
    await reference?.dispose();
  });

  const visitsFor = (site: string, from: string, to: string, filter: FilterCondition[]) =>
    visitsOf(keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!), from, to, filter);

  /** The same questions, asked of whatever the store reads at the time. */
  const asksAgree = () => {
    it("funnels: every funnel, site, range, filter set and comparison", async () => {
      const problems: string[] = [];
      let converted = 0;
      for (const site of reference.websiteIds.keys()) {
        for (const steps of FUNNELS) {
          for (const { from, to, filter, compare } of CASES) {
            const rows = modelFunnel(visitsFor(site, from, to, filter), steps);
            let expected: unknown = { data: rows };
            if (compare) {
              const comparison = comparisonRange(from, to, compare);
              const previous = modelFunnel(visitsFor(site, comparison.from, comparison.to, filter), steps);
              expected = { data: rows.map((row, index) => ({ ...row, previous: previous[index]!.visitors })), comparison };
            }
            const funnel = funnelIds.get(site)!.get(steps.join(" → "))!;
            const got = await reference.tally.stats.funnel(reference.accountId, reference.websiteIds.get(site)!, {
              funnel,
              from,
              to,
              filter: filter.map(filterText),
              ...(compare ? { compare } : {}),
            });
            const { funnel: named, ...answer } = got;
            expect(named.id).toBe(funnel);
            converted += rows.at(-1)!.visitors;
            if (!isDeepStrictEqual(answer, expected) && problems.length < 5) {
              problems.push(
                `${site} ${steps.join(" → ")} ${from}..${to} ${JSON.stringify(filter)}: got ${JSON.stringify(answer)} expected ${JSON.stringify(expected)}`,
              );
            }
          }
        }
      }
      expect(problems).toEqual([]);
      // The data reaches the last steps: the comparison is not of empty funnels.
      expect(converted).toBeGreaterThan(50);
    }, 120_000);

    it("journeys: every start, direction and depth, site, range, filter set and comparison", async () => {
      const problems: string[] = [];
      let deepest = 0;
      for (const site of reference.websiteIds.keys()) {
        for (const ask of JOURNEYS) {
          for (const { from, to, filter, compare } of CASES) {
            const comparison = compare ? comparisonRange(from, to, compare) : undefined;
            const journey = modelJourney(
              visitsFor(site, from, to, filter),
              ask,
              comparison ? visitsFor(site, comparison.from, comparison.to, filter) : undefined,
            );
            const expected = comparison ? { ...journey, comparison } : journey;
            const [kind, value] = [ask.start.slice(0, ask.start.indexOf(":")), ask.start.slice(ask.start.indexOf(":") + 1)];
            const got = await reference.tally.stats.journey(reference.accountId, reference.websiteIds.get(site)!, {
              [kind === "page" ? "from_page" : "from_event"]: value,
              direction: ask.direction,
              depth: ask.depth,
              from,
              to,
              filter: filter.map(filterText),
              ...(compare ? { compare } : {}),
            });
            deepest = Math.max(deepest, ...journey.data.map((node) => node.step));
            if (!isDeepStrictEqual({ ...got }, expected) && problems.length < 5) {
              problems.push(
                `${site} ${JSON.stringify(ask)} ${from}..${to} ${JSON.stringify(filter)}: got ${JSON.stringify(got)} expected ${JSON.stringify(expected)}`,
              );
            }
          }
        }
      }
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
