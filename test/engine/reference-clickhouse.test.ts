/**
 * The unfiltered reference (reference.test.ts) with ClickHouse beside SQLite: every hit also
 * goes to ClickHouse, embedded through chDB in this process, and the statistics ClickHouse
 * answers (docs/clickhouse.md) must equal the brute force (reference-model.ts) row for row:
 * every counted statistic over every range, in pages, sorted and searched, compared with
 * the period before and the year before, and the totals call. Visits are formed by
 * ClickHouse from the hits at read time, so this also proves those visits are the ones the
 * visit processor forms when it writes.
 *
 * Lean, beside reference.test.ts: 3,000 generated sessions and the hand-made edges; two of
 * the four websites (`utc`, and `lordhowe` with its half-hour DST change; `ny` keeps less
 * than its data spans, and retention deletes its first weeks from ClickHouse, whose
 * statistics then cover only `retention_days`, while the rollups the model mirrors keep
 * them). Statistics of hits and visitor-days: five ranges and the DST days, every page of
 * each, and a week in every order, page and search. Statistics of visits (each forms the
 * range's visits again): a week, a year, everything, every page of each. The engagement
 * statistics against the signals the model saw, on those ranges and the DST days; parts of
 * days (the Stats API v2's date-times) on the UTC website. Every statistic
 * compared over a week; the totals call over a week, a year and everything, alone and
 * compared both ways. Filtered (reference-filtered.ts, the filter sets of the filtered
 * reference on these two websites): one statistic per set, in turn, so that every statistic
 * is asked under some set, and the totals call under every third set; the engagement
 * statistics under every fourth set; page goals; the Stats API v2's hourly series and
 * breakdowns by a visit column. Funnels and journeys
 * (reference-path-asks.ts): every one the funnels and journeys reference asks, on these two
 * websites.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGAGEMENT_STATISTICS } from "@tally-analytics/core";
import { VISIT_COLUMNS } from "@tally-analytics/core/internal";
import { SITES } from "./reference-data.js";
import { answer } from "./reference-answers.js";
import { keptVisits } from "./reference-segments.js";
import { partProblems } from "./reference-parts.js";
import { createChecker, searchesFor, type Asked } from "./reference-check.js";
import {
  breakdownProblems,
  COMBINED,
  FILTER_SEED,
  filteredCaseProblems,
  isEngagement,
  hourlyProblems,
  MATCHED_PAGE_GOALS,
  pageGoalProblems,
  statisticsFor,
} from "./reference-filtered.js";
import { filterCases, type FilterCase } from "./reference-filters.js";
import { createFunnels, funnelProblems, journeyProblems } from "./reference-path-asks.js";
import { openReference, type Reference } from "./reference-fixture.js";
import type { ListQuery } from "./reference-model.js";
import {
  COMPARED,
  FIXED_SEARCHES,
  LIST_VARIANTS,
  STATISTICS,
  CHECKPOINT_STATISTICS,
  checkpointProblem,
  comparisonProblems,
  expectTotals,
  rangesOf,
  unfilteredCounts,
  engagementProblems,
} from "./reference-cases.js";

/** The statistics counted from visits (formed again by each query), asked fewer ranges. */
const FROM_VISITS = new Set([
  "visits",
  "bounce_rate",
  "visit_duration",
  "views_per_visit",
  ...VISIT_COLUMNS.filter((column) => ["visit", "exit", "pageview"].includes(column.counted)).map((column) => column.statistic),
]);
const VISIT_RANGES = new Set(["2026-03-05 2026-03-11", "2026-01-01 2026-12-31", "2025-02-15 2028-03-05"]);
/** Every counted statistic: ClickHouse answers them all (`goals` with the revenue the database's rows keep). */
const ASKED = STATISTICS;
const ASKED_SITES = SITES.filter((site) => site.key === "utc" || site.key === "lordhowe");
/** A week, a month cut at both ends, a year, everything across four years, no data. */
const RANGES = new Set([
  "2026-03-05 2026-03-11",
  "2026-02-25 2026-04-03",
  "2026-01-01 2026-12-31",
  "2025-02-15 2028-03-05",
  "2026-06-01 2026-06-30",
]);
const ranges = (site: string) =>
  rangesOf(site)
    .filter(([from, to]) => from === to || RANGES.has(`${from} ${to}`))
    .filter(([from]) => from !== "2028-02-29" && from !== "2026-03-01");
/** The range read in every order, page and search too. */
const LISTED = "2026-03-05";
const COMPARED_HERE = COMPARED.filter(([from]) => from === "2026-03-05");

describe("reference on ClickHouse (chDB)", () => {
  const folder = mkdtempSync(join(tmpdir(), "tally-clickhouse-"));
  let reference: Reference;
  let check: ReturnType<typeof createChecker>;
  const checkpointProblems: string[] = [];
  let checkpointReads = 0;

  /** Reads while hits keep arriving: each read writes what is buffered first, to ClickHouse too. */
  async function checkWhileCollecting(partial: Reference, collected: number): Promise<void> {
    for (const site of ASKED_SITES) {
      for (const name of CHECKPOINT_STATISTICS) {
        const problem = await checkpointProblem(partial, collected, site.key, name);
        checkpointReads++;
        if (problem) checkpointProblems.push(problem);
      }
    }
  }

  beforeAll(async () => {
    reference = await openReference("sqlite", {
      clickhouse: `chdb:${folder}`,
      sessions: 3000,
      checkpoints: (count) => [1, 2, 3].map((k) => Math.floor((count * k) / 4)),
      onCheckpoint: checkWhileCollecting,
    });
    check = createChecker(reference.tally, reference.accountId, reference.websiteIds);
  }, 240_000);

  afterAll(async () => {
    if (check) console.info(`reference on ClickHouse: ${check.queries} statistics queries`);
    await reference?.dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  /** Unfiltered counts of a site: the model's rollups, and revenue from the rows kept. */
  const unfiltered = unfilteredCounts(() => reference);

  it("reads while collecting saw exactly the hits collected so far", () => {
    expect(checkpointReads).toBe(3 * ASKED_SITES.length * 4);
    expect(checkpointProblems.slice(0, 5)).toEqual([]);
  });

  describe("funnels and journeys (reference-path-asks.ts) on these sites", () => {
    const sites = ASKED_SITES.map((site) => site.key);

    it("funnels: every funnel, site, range, filter set and comparison", { timeout: 600_000 }, async () => {
      const { problems, converted } = await funnelProblems(reference, await createFunnels(reference), sites);
      expect(problems).toEqual([]);
      expect(converted).toBeGreaterThan(20);
    });

    it("journeys: every start, direction and depth, site, range, filter set and comparison", { timeout: 600_000 }, async () => {
      const { problems, deepest } = await journeyProblems(reference, sites);
      expect(problems).toEqual([]);
      expect(deepest).toBe(5);
    });
  });

  describe("filtered: the filter sets of the filtered reference on these sites", () => {
    /** The sets on the sites asked here, each with its index in the whole sample (which picks its statistics and breakdown). */
    const asked = () =>
      filterCases(
        reference.model.visits,
        SITES.map((site) => site.key),
        FILTER_SEED,
        COMBINED,
      )
        .map((filterCase, index) => [index, filterCase] as const)
        .filter(([, filterCase]) => ASKED_SITES.some((site) => site.key === filterCase.site));
    /** Every statistic but the engagement ones (asked under their own sets, below). */
    const counted = (index: number) => statisticsFor(index).filter((statistic) => !isEngagement(statistic.name));

    it.each([0, 1].map((part) => [part]))(
      "part %i of 2: a statistic per set (every statistic over the sets, in turn), all rows, compared where the set says so; the totals call under every third set",
      { timeout: 600_000 },
      async (part) => {
        const problems: string[] = [];
        const statistics = new Set<string>();
        let matching = 0;
        for (const [at, [index, filterCase]] of asked().entries()) {
          if (at % 2 !== part) continue;
          const statistic = (i: number) => {
            const all = counted(i);
            return [all[at % all.length]!];
          };
          statistic(index).forEach((named) => statistics.add(named.name));
          const checked = await filteredCaseProblems(reference, check, filterCase, index, {
            statistics: statistic,
            lists: false,
            totals: at % 3 === 0,
          });
          problems.push(...checked.problems);
          matching += checked.matching;
          if (problems.length > 5) break;
        }
        expect(problems.slice(0, 5)).toEqual([]);
        expect(matching).toBeGreaterThan(100);
        expect(statistics.size).toBeGreaterThan(20);
      },
    );

    it("the engagement statistics under every fourth set, in turn, all rows", { timeout: 600_000 }, async () => {
      const problems: string[] = [];
      let matching = 0;
      for (const [at, [index, filterCase]] of asked().entries()) {
        if (at % 4 !== 3) continue;
        const checked = await filteredCaseProblems(reference, check, filterCase, index, {
          statistics: () => [{ name: ENGAGEMENT_STATISTICS[at % ENGAGEMENT_STATISTICS.length]! }],
          lists: false,
          totals: false,
        });
        problems.push(...checked.problems);
        matching += checked.matching;
        if (problems.length > 5) break;
      }
      expect(problems.slice(0, 5)).toEqual([]);
      expect(matching).toBeGreaterThan(20);
    });

    it("page goals (goal_page), unfiltered and filtered, compared and searched", { timeout: 600_000 }, async () => {
      const unfiltered: FilterCase[] = ASKED_SITES.map((site) => ({
        site: site.key,
        conditions: [],
        from: "2025-01-01",
        to: "2028-12-31",
      }));
      const filtered = asked()
        .filter(([index]) => index % 9 === 4)
        .slice(0, 1)
        .map(([, filterCase]) => filterCase);
      const { problems, rowsSeen } = await pageGoalProblems(reference, check, [...unfiltered, ...filtered]);
      expect(problems).toEqual([]);
      expect([...rowsSeen].sort()).toEqual(MATCHED_PAGE_GOALS.map((pattern) => `Visit ${pattern}`).sort());
    });

    it(
      "Stats API v2: time:hour under every eighth set (a week of the longer ranges), every hour's figures",
      { timeout: 600_000 },
      async () => {
        const { problems, rows } = await hourlyProblems(
          reference,
          asked()
            .filter((_, at) => at % 8 === 1)
            .map(([, filterCase]) => filterCase),
        );
        expect(problems).toEqual([]);
        expect(rows).toBeGreaterThan(20);
      },
    );

    it(
      "Stats API v2: a breakdown by a visit column under every fourth set counts every row as the set with `column is value`",
      { timeout: 600_000 },
      async () => {
        const { problems, rows } = await breakdownProblems(
          reference,
          asked().filter((_, at) => at % 4 === 2),
        );
        expect(problems).toEqual([]);
        expect(rows).toBeGreaterThan(30);
      },
    );
  });

  for (const site of ASKED_SITES) {
    describe(`${site.key} (${site.timezone})`, () => {
      it.each(ASKED.map((named) => [named.label, named] as const))(
        "%s: every range, in pages, sorted and searched",
        { timeout: 120_000 },
        async (_label, named) => {
          const problems: string[] = [];
          const fromVisits = FROM_VISITS.has(named.name);
          for (const [from, to] of fromVisits ? ranges(site.key).filter(([a, b]) => VISIT_RANGES.has(`${a} ${b}`)) : ranges(site.key)) {
            const asked: Asked = { site: site.key, ...named, from, to };
            const expected = answer(unfiltered(site.key), asked);
            problems.push(...(await check.whole(asked, expected)));
            if (from === LISTED && !fromVisits) {
              const searches = searchesFor(expected.rows, FIXED_SEARCHES).map((search): ListQuery => ({ search, per_page: 100 }));
              for (const list of [...LIST_VARIANTS(expected.rows.length), ...searches]) {
                const problem = await check.page(asked, expected, list);
                if (problem) problems.push(problem);
              }
            }
            if (problems.length > 5) break;
          }
          expect(problems.slice(0, 5)).toEqual([]);
        },
      );

      it.each(ENGAGEMENT_STATISTICS.map((name) => [name] as const))(
        "%s (engagement): the DST days, a week, a year and everything, every order and page, and compared, against the signals the model saw",
        { timeout: 180_000 },
        async (name) => {
          const visits = keptVisits(reference.model.visits, site.key, reference.firstKeptDay.get(site.key)!);
          const { problems, rowsSeen } = await engagementProblems(
            check,
            site.key,
            name,
            visits,
            ranges(site.key).filter(([a, b]) => a === b || VISIT_RANGES.has(`${a} ${b}`)),
            COMPARED_HERE,
          );
          expect(problems.slice(0, 5)).toEqual([]);
          expect(rowsSeen).toBeGreaterThan(20);
        },
      );

      if (site.timezone === "UTC")
        it(
          "Stats API v2: parts of days (an afternoon, an hour, the half hour before midnight) over a week",
          { timeout: 180_000 },
          async () => {
            const week = ["2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10", "2026-03-11"];
            const parts = [
              ["12:00:00", "17:59:59"],
              ["09:00:00", "09:59:59"],
              ["23:30:00", "23:59:59"],
            ] as const;
            const { problems, visits } = await partProblems(reference, site.key, week, parts);
            expect(problems.slice(0, 5)).toEqual([]);
            expect(visits).toBeGreaterThan(20);
          },
        );

      it("every statistic compared: a week with the week before", { timeout: 180_000 }, async () => {
        expect(await comparisonProblems(check, site.key, ASKED, COMPARED_HERE, unfiltered(site.key))).toEqual([]);
      });

      it("the totals call, alone and compared, for every range", { timeout: 120_000 }, async () => {
        const visitRanges = ranges(site.key).filter(([a, b]) => VISIT_RANGES.has(`${a} ${b}`));
        await expectTotals(reference, site.key, visitRanges, unfiltered(site.key));
      });
    });
  }
});
