/**
 * The proof of docs/statistics.md, filtered: the reference data set (reference-fixture.ts)
 * is asked every statistic under a seeded sample of filter sets (reference-filters.ts:
 * every dimension with every operator, alone and combined), with comparisons and the
 * totals call, and every answer must equal the brute force over the visits the store
 * still holds (reference-segments.ts).
 */
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGAGEMENT_STATISTICS, STAT_NAMES } from "@tally-analytics/core";
import { engagementAnswer, engagementCompared } from "./reference-engagement.js";
import { DIALECTS, runSql } from "../support/databases.js";
import { SITES } from "./reference-data.js";
import { answer, compared, comparisonRange, totalsOf, type CompareMode, type Counter, type StatQuery } from "./reference-answers.js";
import { createChecker, piece, type Asked } from "./reference-check.js";
import { ANY_CASES, FILTER_DIMENSIONS, filterCases, type FilterCase } from "./reference-filters.js";
import { openReference, type Reference } from "./reference-fixture.js";
import { compareValues, sumDays, VISIT_DIMENSIONS, type ListQuery, type VisitDimension } from "./reference-model.js";
import { filterText, keptVisits, segmentOf } from "./reference-segments.js";
import { breakdownColumns, plausibleFilter, totalsMetrics } from "./reference-plausible.js";

const FILTER_SEED = 1207;
const COMBINED = 24;

/** `event_property` is asked for two of these per filter set, in turn. */
const PROPERTY_PAIRS: [string, string][] = [
  ["purchase", "plan"],
  ["Search", "plan"],
  ["Download PDF", "file"],
  ["play_video", "position"],
  ["🎉 Celebrate", "mood"],
  ["signup", "method"],
  ["pageview", "author"],
  ["pageview", "plan"],
];

type Statistic = Omit<StatQuery, "from" | "to">;
const isEngagement = (name: string) => (ENGAGEMENT_STATISTICS as readonly string[]).includes(name);

function statisticsFor(index: number): Statistic[] {
  const pairs = [PROPERTY_PAIRS[(2 * index) % PROPERTY_PAIRS.length]!, PROPERTY_PAIRS[(2 * index + 1) % PROPERTY_PAIRS.length]!];
  return STAT_NAMES.flatMap((name): Statistic[] =>
    name === "event_property" ? pairs.map(([event, property]) => ({ name, event, property })) : [{ name }],
  );
}

/**
 * Filtered statistics read the rows, then (the same store, filled once per dialect) day blocks
 * for most days and rows for the rest (a day in five has none).
 */
describe.each(DIALECTS)("reference, filtered, on %s", (dialect) => {
  let reference: Reference;
  let check: ReturnType<typeof createChecker>;
  let cases: FilterCase[];
  const matched: number[] = [];

  beforeAll(async () => {
    reference = await openReference(dialect);
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

  /** Every statistic of one filter set: all rows (compared when the set says so), another order and page, a search; and the totals call. */
  async function checkCase(filterCase: FilterCase, index: number): Promise<string[]> {
    const { site, conditions, from, to, compare } = filterCase;
    const visits = keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!);
    const segment = segmentOf(visits, conditions);
    const { matching, count } = segment;
    matched[index] = matching;
    const filter = conditions.map(filterText);
    const problems: string[] = [];
    for (const statistic of statisticsFor(index)) {
      const asked: Asked = { site, ...statistic, from, to, filter };
      // The engagement statistics: from the signals of the matching visits (reference-engagement.ts).
      const engagement = isEngagement(statistic.name);
      const expected = engagement ? engagementAnswer(segment.visits, statistic.name, from, to) : answer(count, asked);
      const comparedAnswer = (mode: CompareMode) =>
        engagement ? engagementCompared(segment.visits, statistic.name, from, to, mode) : compared(count, asked, mode);
      if (compare) problems.push(...(await check.whole({ ...asked, compare }, comparedAnswer(compare))));
      else problems.push(...(await check.whole(asked, expected)));
      const middle = [...expected.rows].sort((a, b) => compareValues(a.value, b.value))[Math.floor(expected.rows.length / 2)]?.value ?? "a";
      const lists: ListQuery[] = [
        { sort_by: "value", sort: "asc", per_page: 10, page: 2 },
        { search: piece(middle, 1, 3).toUpperCase() || middle, sort: "asc", per_page: 25 },
      ];
      for (const list of lists) {
        const problem = await check.page(asked, expected, list);
        if (problem) problems.push(problem);
      }
      if (problems.length > 5) return problems;
    }
    const got = await reference.tally.stats.totals(reference.accountId, reference.websiteIds.get(site)!, {
      from,
      to,
      filter,
      ...(compare ? { compare } : {}),
    });
    const comparison = compare && comparisonRange(from, to, compare);
    const expected = {
      data: totalsOf(count, from, to),
      ...(comparison ? { previous: totalsOf(count, comparison.from, comparison.to), comparison } : {}),
    };
    if (!isDeepStrictEqual({ ...got }, expected)) {
      problems.push(
        `${site} totals ${from}..${to} ${JSON.stringify({ filter, compare })}: got ${JSON.stringify(got)} expected ${JSON.stringify(expected)}`,
      );
    }
    return problems;
  }

  async function checkCases(which: (filterCase: FilterCase, index: number) => boolean): Promise<void> {
    const problems: string[] = [];
    for (const [index, filterCase] of cases.entries()) {
      if (!which(filterCase, index)) continue;
      problems.push(...(await checkCase(filterCase, index)));
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
          const columns = breakdownColumns(VISIT_DIMENSIONS);
          const problems: string[] = [];
          let rows = 0;
          for (const [index, { site, conditions, from, to }] of cases.entries()) {
            const filters = conditions.map(plausibleFilter);
            if (filters.includes(null)) continue;
            const [dimension, column] = columns[index % columns.length]!;
            const query = {
              site_id: SITES.find((each) => each.key === site)!.domain,
              metrics: totalsMetrics(dimension),
              date_range: [from, to],
              dimensions: [dimension],
              filters,
            };
            const answer = await reference.tally.stats.plausible(reference.accountId, query);
            const visits = keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!);
            const values = new Set(
              segmentOf(visits, conditions)
                .visits.filter((visit) => visit.day >= from && visit.day <= to)
                .map((visit) => visit.dims[column as VisitDimension])
                .filter((value) => value !== ""),
            );
            const shown = answer.results.map((row) => row.dimensions[0]!);
            if (!isDeepStrictEqual([...shown].sort(), [...values].sort()))
              problems.push(`${JSON.stringify(query)}: rows ${JSON.stringify(shown)}, the model has ${JSON.stringify([...values])}`);
            for (const row of answer.results) {
              const { count } = segmentOf(visits, [...conditions, { dimension: column, operator: "is", values: [row.dimensions[0]!] }]);
              const expected = totalsOf(count, from, to);
              const got = Object.fromEntries(query.metrics.map((metric, at) => [metric, row.metrics[at]]));
              const want = Object.fromEntries(query.metrics.map((metric) => [metric, expected[metric]]));
              if (!isDeepStrictEqual(got, want))
                problems.push(`${JSON.stringify(query)} ${row.dimensions[0]}: got ${JSON.stringify(got)} expected ${JSON.stringify(want)}`);
              rows++;
            }
            if (problems.length > 5) break;
          }
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
          const PAGE_GOALS = ["/pricing", "/about", "/blog/*", "/docs*", "*-1", "/a|b", "/caf*", "/[x]?*", "/nothing-here*"];
          const unfiltered: FilterCase[] = SITES.map((site) => ({ site: site.key, conditions: [], from: "2025-01-01", to: "2028-12-31" }));
          const problems: string[] = [];
          const rowsSeen = new Set<string>();
          for (const filterCase of [...unfiltered, ...cases.filter((_, index) => index % 9 === 4)]) {
            const { site, conditions, from, to } = filterCase;
            const { count } = segmentOf(
              keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!),
              conditions,
              PAGE_GOALS,
            );
            const asked: Asked = { site, name: "goals", from, to, filter: conditions.map(filterText), goal_page: PAGE_GOALS };
            const expected = answer(count, asked);
            for (const row of expected.rows) if (row.value.startsWith("Visit ")) rowsSeen.add(row.value);
            problems.push(...(await check.whole(asked, expected)));
            problems.push(...(await check.whole({ ...asked, compare: "previous_period" }, compared(count, asked, "previous_period"))));
            const search = await check.page(asked, expected, { search: "visit /B", sort_by: "value", sort: "desc", per_page: 10, page: 1 });
            if (search) problems.push(search);
            if (problems.length > 5) break;
          }
          expect(problems.slice(0, 5)).toEqual([]);
          // The patterns matched something (and /nothing-here* nothing), so the comparison above meant something.
          expect([...rowsSeen].sort()).toEqual(
            PAGE_GOALS.filter((pattern) => !["/nothing-here*", "/[x]?*"].includes(pattern))
              .map((p) => `Visit ${p}`)
              .sort(),
          );
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
