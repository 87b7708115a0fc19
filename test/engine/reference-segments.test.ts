/**
 * The proof of docs/statistics.md, filtered: the reference data set (reference-fixture.ts)
 * is asked every statistic under a seeded sample of filter sets (reference-filters.ts:
 * every dimension with every operator, alone and combined), with comparisons and the
 * totals call, and every answer must equal the brute force over the visits the store
 * still holds (reference-segments.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS, runSql } from "../support/databases.js";
import { SITES } from "./reference-data.js";
import { answer, totalsOf, type Counter } from "./reference-answers.js";
import { createChecker } from "./reference-check.js";
import {
  breakdownProblems,
  COMBINED,
  FILTER_SEED,
  filteredCaseProblems,
  MATCHED_PAGE_GOALS,
  pageGoalProblems,
} from "./reference-filtered.js";
import { ANY_CASES, FILTER_DIMENSIONS, filterCases, type FilterCase } from "./reference-filters.js";
import { openReferenceCopy, type Reference } from "./reference-fixture.js";
import { compareValues, sumDays } from "./reference-model.js";
import { keptVisits, segmentOf } from "./reference-segments.js";

/**
 * Filtered statistics read the rows, then (the same store, a copy of the run's for each dialect) day blocks
 * for most days and rows for the rest (a day in five has none).
 */
describe.each(DIALECTS)("reference, filtered, on %s", (dialect) => {
  let reference: Reference;
  let check: ReturnType<typeof createChecker>;
  let cases: FilterCase[];
  const matched: number[] = [];

  beforeAll(async () => {
    reference = await openReferenceCopy(dialect);
    check = createChecker(reference.tally, reference.accountId, reference.websiteIds);
    cases = filterCases(
      reference.model.visits,
      SITES.map((site) => site.key),
      FILTER_SEED,
      COMBINED,
    );
  }, 240_000);

  afterAll(async () => {
    await reference?.dispose();
  });

  async function checkCases(which: (filterCase: FilterCase, index: number) => boolean): Promise<void> {
    const problems: string[] = [];
    for (const [index, filterCase] of cases.entries()) {
      if (!which(filterCase, index)) continue;
      const checked = await filteredCaseProblems(reference, check, filterCase, index);
      matched[index] = checked.matching;
      problems.push(...checked.problems);
      if (problems.length > 5) break;
    }
    expect(problems.slice(0, 5)).toEqual([]);
  }

  const singles = () => FILTER_DIMENSIONS.length * 3;
  /** The special cases after the combined ones; then contains_not on each dimension, the pageview properties' cases, and conditions joined by `||`. */
  const SPECIAL = 6;
  const PAGEVIEW_PROPERTIES = 4;
  const containsNotEnd = () => singles() + COMBINED + SPECIAL + FILTER_DIMENSIONS.length;
  const anyStart = () => containsNotEnd() + PAGEVIEW_PROPERTIES;
  const firstDimension = (filterCase: FilterCase) => {
    const [first] = filterCase.conditions;
    return first && !("any" in first) ? first.dimension.split(":")[0] : undefined;
  };

  const filteredAgree = () =>
    describe("reference: filtered statistics count exactly what docs/statistics.md defines", () => {
      it.each(FILTER_DIMENSIONS.map((dimension) => [dimension]))(
        "%s: is, is_not and contains, alone, on every statistic",
        { timeout: 300_000 },
        async (dimension) => {
          await checkCases((filterCase, index) => index < singles() && firstDimension(filterCase) === dimension);
        },
      );

      it.each([0, 1, 2].map((part) => [part]))(
        "two or three conditions together (part %i of 3), on every statistic",
        { timeout: 300_000 },
        async (part) => {
          await checkCases((_, index) => index >= singles() && index < singles() + COMBINED && (index - singles()) % 3 === part);
        },
      );

      it("escaped values, a funnel, a dimension twice, a filter every visit matches and one none does", { timeout: 300_000 }, async () => {
        await checkCases((_, index) => index >= singles() + COMBINED && index < singles() + COMBINED + SPECIAL);
      });

      it("contains_not on each dimension, alone, on every statistic", { timeout: 300_000 }, async () => {
        await checkCases((_, index) => index >= singles() + COMBINED + SPECIAL && index < containsNotEnd());
      });

      it("pageview properties, alone and with event and page conditions, on every statistic", { timeout: 300_000 }, async () => {
        await checkCases((_, index) => index >= containsNotEnd() && index < anyStart());
      });

      it(
        "any of a hit condition and a visit condition (joined by ||), alone or beside another, on every statistic",
        { timeout: 300_000 },
        async () => {
          await checkCases((_, index) => index >= anyStart());
        },
      );

      it(
        "Stats API v2: a breakdown by a visit column under each filter set counts every row as the set with `column is value`",
        {
          timeout: 300_000,
        },
        async () => {
          const { problems, rows } = await breakdownProblems(reference, [...cases.entries()]);
          expect(problems.slice(0, 5)).toEqual([]);
          expect(rows).toBeGreaterThan(100);
        },
      );

      it("(model self-check) a filter every visit matches counts what the unfiltered model counts, where docs/statistics.md says it must", () => {
        const site = "utc";
        const { count } = segmentOf(keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!), [
          { dimension: "page", operator: "is_not", values: ["/never-visited"] },
        ]);
        const unfiltered: Counter = (name, from, to) => sumDays(reference.model.counts.get(site)?.get(name), from, to);
        // Not the visitor statistics: a visit running past midnight counts its visitor only on the day it started.
        for (const name of [
          "pageviews",
          "pageviews_hours",
          "page",
          "hostname",
          "event",
          "visits",
          "landing_page",
          "exit_page",
          "referrer",
          "campaign",
          "utm_source",
          "utm_term",
          "bounce_rate",
          "visit_duration",
          "views_per_visit",
        ]) {
          for (const [from, to] of [
            ["2025-01-01", "2028-12-31"],
            ["2026-03-05", "2026-03-11"],
          ] as const) {
            const query = { name, from, to };
            const sorted = (counter: Counter) => {
              const { rows, total } = answer(counter, query);
              return { rows: [...rows].sort((a, b) => compareValues(a.value, b.value)), total };
            };
            expect(sorted(count), `${name} ${from}..${to}`).toEqual(sorted(unfiltered));
          }
        }
        expect(totalsOf(count, "2025-01-01", "2028-12-31").visits).toBe(totalsOf(unfiltered, "2025-01-01", "2028-12-31").visits);
      });

      it(
        "page goals (goal_page): visitors who viewed matching pages, unfiltered and filtered, compared, sorted and searched",
        { timeout: 300_000 },
        async () => {
          const unfiltered: FilterCase[] = SITES.map((site) => ({ site: site.key, conditions: [], from: "2025-01-01", to: "2028-12-31" }));
          const { problems, rowsSeen } = await pageGoalProblems(reference, check, [
            ...unfiltered,
            ...cases.filter((_, index) => index % 9 === 4),
          ]);
          expect(problems.slice(0, 5)).toEqual([]);
          // The patterns matched something (and /nothing-here* nothing), so the comparison above meant something.
          expect([...rowsSeen].sort()).toEqual(MATCHED_PAGE_GOALS.map((p) => `Visit ${p}`).sort());
        },
      );

      it("the sample covered every dimension and operator, matched some visits and not others, and crossed ny's retention", () => {
        expect(cases.length).toBe(anyStart() + ANY_CASES);
        const pairs = new Set(
          cases.flatMap((c) =>
            c.conditions
              .flatMap((condition) => ("any" in condition ? condition.any : [condition]))
              .map((condition) => `${condition.dimension.split(":")[0]} ${condition.operator}`),
          ),
        );
        expect(pairs.size).toBe(FILTER_DIMENSIONS.length * 4);
        expect(matched.filter((n) => n === 0).length).toBeGreaterThan(3);
        expect(matched.filter((n) => n > 100).length).toBeGreaterThan(20);
        const ny = cases.filter(
          (c) => c.site === "ny" && c.from < reference.firstKeptDay.get("ny")! && c.to >= reference.firstKeptDay.get("ny")!,
        );
        expect(ny.length).toBeGreaterThan(3);
        console.info(
          `filtered reference: ${cases.length} filter sets, ${check.queries} statistics queries; visits matched: ${matched.join(" ")}`,
        );
      });
    });

  describe("from rows", filteredAgree);

  describe("from day blocks", () => {
    beforeAll(async () => {
      const built = await reference.tally.buildDayBlocks();
      const [days] = await reference.stored.sql<{ n: number | string }>("select count(*) as n from day_versions");
      // Every day but each website's latest has a block.
      expect(built).toBe(Number(days!.n) - SITES.length);
      await runSql(dialect, reference.stored.url, "delete from day_blocks where day % 5 = 2", { write: true });
    }, 120_000);
    filteredAgree();
  });
});
