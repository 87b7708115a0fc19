/**
 * What the unfiltered reference tests ask (reference.test.ts, and the same cases on
 * ClickHouse): the ranges, comparisons, statistics, pages and searches.
 */
import { ENGAGEMENT_STATISTICS, STAT_NAMES } from "@tally-analytics/core";
import { expect } from "vitest";
import { compared, comparisonRange, totalsOf, type CompareMode, type Counter } from "./reference-answers.js";
import type { Asked, createChecker } from "./reference-check.js";
import type { Reference } from "./reference-fixture.js";
import { engagementAnswer, engagementCompared } from "./reference-engagement.js";
import { expectedPage, sumDays, type ListQuery, type ModelVisit } from "./reference-model.js";
import { keptVisits, segmentOf } from "./reference-segments.js";

/** Ranges asked of every site; each site adds the local days of its DST changes. */
export const COMMON_RANGES: [string, string][] = [
  ["2026-03-01", "2026-03-01"],
  ["2026-03-05", "2026-03-11"],
  ["2026-02-25", "2026-04-03"], // both ends cut a month
  ["2026-02-19", "2026-02-21"], // the start of the main block, on both sides of UTC
  ["2026-02-01", "2026-12-31"], // whole months
  ["2026-01-01", "2026-12-31"], // a whole year
  ["2025-12-25", "2027-01-05"], // days + a year + days
  ["2026-10-31", "2026-11-02"],
  ["2025-02-15", "2028-03-05"], // everything, across four years
  ["2028-02-29", "2028-02-29"], // a leap day
  ["2026-06-01", "2026-06-30"], // no data
  ["2025-01-01", "2025-01-31"], // no data
];
export const DST_DAYS: Record<string, string[]> = {
  utc: [],
  ny: ["2026-03-08", "2026-11-01"],
  kolkata: [],
  lordhowe: ["2026-04-05"],
};
export const rangesOf = (site: string): [string, string][] => [
  ...COMMON_RANGES,
  ...DST_DAYS[site]!.map((day): [string, string] => [day, day]),
];
/** Ranges whose every search is tried too. */
export const searched = (site: string, from: string, to: string) =>
  from === "2026-02-01" || from === "2026-03-05" || (from === to && DST_DAYS[site]!.includes(from));

/** Ranges compared with the period before and with the year before. */
export const COMPARED: [string, string, CompareMode][] = [
  ["2026-03-05", "2026-03-11", "previous_period"],
  ["2026-02-20", "2026-03-21", "year"], // the year-before block
  ["2026-03-15", "2026-04-20", "previous_period"],
  ["2028-02-28", "2028-02-29", "year"], // 29 February compared with 28 February
  ["2026-10-31", "2026-11-02", "previous_period"],
  ["2025-01-01", "2026-12-31", "year"],
];

/** `event_property` is asked once per event and property. */
export const PROPERTY_PAIRS: [string, string][] = [
  ["purchase", "plan"],
  ["Download PDF", "file"],
  ["Outbound Link: Click", "url"],
  ["Search", "query"],
  ["play_video", "position"],
  ["signup", "no-such-property"],
  ["🎉 Celebrate", "mood"], // characters outside the BMP in the event and property names
  ["🎉 Celebrate", "🎨"],
  ["pageview", "author"], // the pageviews' properties
  ["pageview", "plan"],
];
export interface Named {
  label: string;
  name: string;
  event?: string;
  property?: string;
}
/** The counted statistics; the engagement statistics (per page figures of signals) are checked against their own model below. */
export const STATISTICS: Named[] = STAT_NAMES.filter((name) => !(ENGAGEMENT_STATISTICS as readonly string[]).includes(name)).flatMap(
  (name): Named[] =>
    name === "event_property"
      ? PROPERTY_PAIRS.map(([event, property]) => ({ label: `event_property ${event}.${property}`, name, event, property }))
      : [{ label: name, name }],
);

/** A statistic over a range, every row on one page (a property statistic with its event and property). */
export const wholeQuery = (named: Named, from: string, to: string) =>
  ({ name: named.name, from, to, per_page: 1000, ...(named.event ? { event: named.event, property: named.property } : {}) }) as never;

export const FIXED_SEARCHES = ["A", "e", "/BLOG", "20", "CHROME", "us:", "zzz-nothing", "%", "_", "FRIDAY", "Ü", "|"];

export const LIST_VARIANTS = (rows: number): ListQuery[] => [
  { sort_by: "value", sort: "asc", per_page: 50 },
  { sort_by: "value", sort: "desc", per_page: 50 },
  { sort_by: "value", sort: "asc", per_page: 25, page: 2 },
  { sort: "asc", per_page: 50 },
  { sort: "asc", per_page: 25, page: 3 },
  { sort_by: "count", sort: "desc" },
  { per_page: 10, page: 2 },
  { per_page: 25, page: 2 },
  { per_page: 10, page: Math.ceil(rows / 10) + 1 }, // past the end
  { per_page: 100, page: 7 },
];

/**
 * A site's unfiltered counts: the model's rollups, and revenue, which is kept with the rows
 * (docs/revenue.md), from the visits the store still holds (worked out once per site).
 */
export function unfilteredCounts(reference: () => Reference): (site: string) => Counter {
  const keptCounts = new Map<string, Counter>();
  const kept = (site: string) => {
    let found = keptCounts.get(site);
    if (!found) {
      const { model, firstKeptDay } = reference();
      found = segmentOf(keptVisits(model.visits, site, firstKeptDay.get(site)!), []).count;
      keptCounts.set(site, found);
    }
    return found;
  };
  return (site) => (name, from, to) =>
    name.startsWith("revenue_") ? kept(site)(name, from, to) : sumDays(reference().model.counts.get(site)?.get(name), from, to);
}

/** Every statistic asked with each comparison: the problems found (it stops a few past the first). */
export async function comparisonProblems(
  check: ReturnType<typeof createChecker>,
  site: string,
  statistics: readonly Named[],
  comparisons: readonly [string, string, CompareMode][],
  count: Counter,
): Promise<string[]> {
  const problems: string[] = [];
  for (const named of statistics) {
    for (const [from, to, compare] of comparisons) {
      const asked: Asked = { site, ...named, from, to, compare };
      problems.push(...(await check.whole(asked, compared(count, asked, compare))));
    }
    if (problems.length > 5) break;
  }
  return problems.slice(0, 5);
}

/** The totals call over each range, alone and compared both ways, equals the totals of the counts. */
export async function expectTotals(
  reference: Reference,
  site: string,
  ranges: readonly [string, string][],
  count: Counter,
): Promise<number> {
  const { tally, accountId, websiteIds } = reference;
  let calls = 0;
  for (const [from, to] of ranges) {
    for (const compare of [undefined, "previous_period", "year"] as const) {
      const got = await tally.stats.totals(accountId, websiteIds.get(site)!, { from, to, ...(compare ? { compare } : {}) });
      calls++;
      const comparison = compare && comparisonRange(from, to, compare);
      const expected = {
        data: totalsOf(count, from, to),
        ...(comparison ? { previous: totalsOf(count, comparison.from, comparison.to), comparison } : {}),
      };
      expect(got, `${site} ${from}..${to} ${compare ?? ""}`).toEqual(expected);
    }
  }
  return calls;
}

/** Statistics read while hits keep arriving: each read writes what is buffered first. */
export const CHECKPOINT_STATISTICS = ["pageviews", "visitors", "landing_page", "resolution"] as const;

/**
 * One read while hits keep arriving (a year, 100 rows): what differs from the hits collected
 * so far, or undefined when it sees exactly those.
 */
export async function checkpointProblem(
  partial: Reference,
  collected: number,
  site: string,
  name: (typeof CHECKPOINT_STATISTICS)[number],
): Promise<string | undefined> {
  const expected = expectedPage(partial.model.rowsAfter(collected, site, name, "2026-01-01", "2026-12-31"), { per_page: 100 });
  const page = await partial.tally.stats.query(partial.accountId, partial.websiteIds.get(site)!, {
    name,
    from: "2026-01-01",
    to: "2026-12-31",
    per_page: 100,
  });
  const actual = page.data.map((row) => ({ value: row.value, count: row.count }));
  if (JSON.stringify(actual) === JSON.stringify(expected.data) && page.total === expected.total) return undefined;
  return `after ${collected} hits, ${site} ${name}: got total ${page.total} / ${JSON.stringify(actual.slice(0, 3))}, expected ${expected.total} / ${JSON.stringify(expected.data.slice(0, 3))}`;
}

/** Differences between an engagement statistic over each range (whole, every order and page) and compared, and the signals the model saw. */
export async function engagementProblems(
  check: ReturnType<typeof createChecker>,
  site: string,
  name: string,
  visits: readonly ModelVisit[],
  ranges: readonly (readonly [string, string])[],
  comparedRanges: readonly (readonly [string, string, CompareMode])[],
): Promise<{ problems: string[]; rowsSeen: number }> {
  const problems: string[] = [];
  let rowsSeen = 0;
  for (const [from, to] of ranges) {
    const asked: Asked = { site, name, from, to };
    const expected = engagementAnswer(visits, name, from, to);
    rowsSeen += expected.rows.length;
    problems.push(...(await check.whole(asked, expected)));
    for (const list of LIST_VARIANTS(expected.rows.length)) {
      const problem = await check.page(asked, expected, list);
      if (problem) problems.push(problem);
    }
  }
  for (const [from, to, compare] of comparedRanges) {
    problems.push(...(await check.whole({ site, name, from, to, compare }, engagementCompared(visits, name, from, to, compare))));
  }
  return { problems, rowsSeen };
}
