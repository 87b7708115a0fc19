/**
 * One filter set of the filtered reference (reference-filters.ts) asked of a real Tally:
 * every statistic asked (all rows, compared when the set says so, another order and page,
 * a search) and the totals call, each against the brute force over the visits the store
 * still holds (reference-segments.ts). The SQLite/PostgreSQL and ClickHouse reference tests
 * share it.
 */
import { isDeepStrictEqual } from "node:util";
import { ENGAGEMENT_STATISTICS, STAT_NAMES } from "@tally-analytics/core";
import { engagementAnswer, engagementCompared } from "./reference-engagement.js";
import { answer, compared, comparisonRange, totalsOf, type CompareMode, type Counter, type StatQuery } from "./reference-answers.js";
import { piece, type Asked, type createChecker } from "./reference-check.js";
import type { FilterCase } from "./reference-filters.js";
import type { Reference } from "./reference-fixture.js";
import { compareValues, VISIT_DIMENSIONS, type ListQuery, type ModelVisit, type VisitDimension } from "./reference-model.js";
import { breakdownColumns, plausibleFilter, totalsMetrics } from "./reference-plausible.js";
import { SITES } from "./reference-data.js";
import { filterText, keptVisits, segmentOf, visitMatches, type SimpleFilter } from "./reference-segments.js";
import { remembered } from "./reference-memo.js";

/** The sample of filter sets both filtered reference tests ask (reference-filters.ts). */
export const FILTER_SEED = 1207;
export const COMBINED = 24;

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

export type FilteredStatistic = Omit<StatQuery, "from" | "to">;
export const isEngagement = (name: string) => (ENGAGEMENT_STATISTICS as readonly string[]).includes(name);

/** The statistics asked of the filter set at `index`: every one, `event_property` of two pairs in turn. */
export function statisticsFor(index: number): FilteredStatistic[] {
  const pairs = [PROPERTY_PAIRS[(2 * index) % PROPERTY_PAIRS.length]!, PROPERTY_PAIRS[(2 * index + 1) % PROPERTY_PAIRS.length]!];
  return STAT_NAMES.flatMap((name): FilteredStatistic[] =>
    name === "event_property" ? pairs.map(([event, property]) => ({ name, event, property })) : [{ name }],
  );
}

/** What a filter set's check asks: which statistics (by default every one). */
export interface FilteredAsk {
  statistics?: (index: number) => FilteredStatistic[];
  /** Each statistic in another order and page, and searched, too. @default true */
  lists?: boolean;
  /** The totals call too. @default true */
  totals?: boolean;
}

/** Every statistic asked of one filter set, and the totals call: the problems found (a few past the first), and the visits it matched. */
export async function filteredCaseProblems(
  reference: Reference,
  check: ReturnType<typeof createChecker>,
  filterCase: FilterCase,
  index: number,
  { statistics = statisticsFor, lists = true, totals = true }: FilteredAsk = {},
): Promise<{ problems: string[]; matching: number }> {
  const { site, conditions, from, to, compare } = filterCase;
  const visits = keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!);
  const segment = segmentOf(visits, conditions);
  const { matching, count } = segment;
  const filter = conditions.map(filterText);
  const problems: string[] = [];
  for (const statistic of statistics(index)) {
    const asked: Asked = { site, ...statistic, from, to, filter };
    // The engagement statistics: from the signals of the matching visits (reference-engagement.ts).
    const engagement = isEngagement(statistic.name);
    const question = JSON.stringify([statistic, from, to]);
    const expected = remembered(segment, question, () =>
      engagement ? engagementAnswer(segment.visits, statistic.name, from, to) : answer(count, asked),
    );
    const comparedAnswer = (mode: CompareMode) =>
      remembered(segment, `${question} ${mode}`, () =>
        engagement ? engagementCompared(segment.visits, statistic.name, from, to, mode) : compared(count, asked, mode),
      );
    if (compare) problems.push(...(await check.whole({ ...asked, compare }, comparedAnswer(compare))));
    else problems.push(...(await check.whole(asked, expected)));
    if (!lists) continue;
    const middle = [...expected.rows].sort((a, b) => compareValues(a.value, b.value))[Math.floor(expected.rows.length / 2)]?.value ?? "a";
    const listed: ListQuery[] = [
      { sort_by: "value", sort: "asc", per_page: 10, page: 2 },
      { search: piece(middle, 1, 3).toUpperCase() || middle, sort: "asc", per_page: 25 },
    ];
    for (const list of listed) {
      const problem = await check.page(asked, expected, list);
      if (problem) problems.push(problem);
    }
    if (problems.length > 5) return { problems, matching };
  }
  if (!totals) return { problems, matching };
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
  return { problems, matching };
}

const PAGE_GOALS = ["/pricing", "/about", "/blog/*", "/docs*", "*-1", "/a|b", "/caf*", "/[x]?*", "/nothing-here*"];
/** The page goals that some visitor of the reference data reached. */
export const MATCHED_PAGE_GOALS = PAGE_GOALS.filter((pattern) => !["/nothing-here*", "/[x]?*"].includes(pattern));

/** `goals` with page goals under each filter set (all rows, compared with the period before, a search): the problems, and the page goals' rows seen. */
export async function pageGoalProblems(
  reference: Reference,
  check: ReturnType<typeof createChecker>,
  cases: readonly FilterCase[],
): Promise<{ problems: string[]; rowsSeen: Set<string> }> {
  const problems: string[] = [];
  const rowsSeen = new Set<string>();
  for (const { site, conditions, from, to } of cases) {
    const segment = segmentOf(keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!), conditions, PAGE_GOALS);
    const asked: Asked = { site, name: "goals", from, to, filter: conditions.map(filterText), goal_page: PAGE_GOALS };
    const expected = remembered(segment, `goals ${from} ${to}`, () => answer(segment.count, asked));
    const previous = remembered(segment, `goals ${from} ${to} previous_period`, () => compared(segment.count, asked, "previous_period"));
    for (const row of expected.rows) if (row.value.startsWith("Visit ")) rowsSeen.add(row.value);
    problems.push(...(await check.whole(asked, expected)));
    problems.push(...(await check.whole({ ...asked, compare: "previous_period" }, previous)));
    const search = await check.page(asked, expected, { search: "visit /B", sort_by: "value", sort: "desc", per_page: 10, page: 1 });
    if (search) problems.push(search);
    if (problems.length > 5) break;
  }
  return { problems: problems.slice(0, 5), rowsSeen };
}

/**
 * The visits (of those grouped by their value of the condition's visit column) that match
 * it, in their order: a visit column's condition depends on the value alone, so each value
 * is tested once, on its first visit.
 */
function visitsWhere(
  visits: readonly ModelVisit[],
  byValue: ReadonlyMap<string, readonly ModelVisit[]>,
  condition: SimpleFilter,
): readonly ModelVisit[] {
  const groups = [...byValue.values()].filter((group) => visitMatches(group[0]!, condition));
  if (groups.length <= 1) return groups[0] ?? [];
  const kept = new Set(groups.flat());
  return visits.filter((visit) => kept.has(visit));
}

/**
 * A Stats API v2 breakdown by a visit column (a different one for each filter set, in
 * turn) under each filter set: its rows must be the values of the matching visits, each
 * counted as the set with `column is value`. The problems, and the rows checked.
 */
export async function breakdownProblems(
  reference: Reference,
  cases: readonly (readonly [index: number, filterCase: FilterCase])[],
): Promise<{ problems: string[]; rows: number }> {
  const columns = breakdownColumns(VISIT_DIMENSIONS);
  const problems: string[] = [];
  let rows = 0;
  for (const [index, { site, conditions, from, to }] of cases) {
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
    const answered = await reference.tally.stats.plausible(reference.accountId, query);
    const visits = keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!);
    const matching = segmentOf(visits, conditions).visits;
    const byValue = remembered(matching, `by ${column}`, () => {
      const groups = new Map<string, ModelVisit[]>();
      for (const visit of matching) {
        const value = visit.dims[column as VisitDimension];
        const group = groups.get(value);
        if (group) group.push(visit);
        else groups.set(value, [visit]);
      }
      return groups;
    });
    const values = new Set(
      matching
        .filter((visit) => visit.day >= from && visit.day <= to)
        .map((visit) => visit.dims[column as VisitDimension])
        .filter((value) => value !== ""),
    );
    const shown = answered.results.map((row) => row.dimensions[0]!);
    if (!isDeepStrictEqual([...shown].sort(), [...values].sort()))
      problems.push(`${JSON.stringify(query)}: rows ${JSON.stringify(shown)}, the model has ${JSON.stringify([...values])}`);
    for (const row of answered.results) {
      const valueIs: SimpleFilter = { dimension: column, operator: "is", values: [row.dimensions[0]!] };
      const expected = remembered(matching, JSON.stringify([valueIs, from, to]), () =>
        totalsOf(segmentOf(visitsWhere(matching, byValue, valueIs), [...conditions, valueIs]).count, from, to),
      );
      const got = Object.fromEntries(query.metrics.map((metric, at) => [metric, row.metrics[at]]));
      const want = Object.fromEntries(query.metrics.map((metric) => [metric, expected[metric]]));
      if (!isDeepStrictEqual(got, want))
        problems.push(`${JSON.stringify(query)} ${row.dimensions[0]}: got ${JSON.stringify(got)} expected ${JSON.stringify(want)}`);
      rows++;
    }
    if (problems.length > 5) break;
  }
  return { problems: problems.slice(0, 5), rows };
}

/** The figures the hourly check asks (those the Stats API v2 breaks down by hour). */
const HOURLY_METRICS = ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration"] as const;

/**
 * The Stats API v2's `time:hour` under each filter set, over its range when at most a month
 * long, else a week of it: every hour with one of the figures, each figure as the model counts
 * it in that hour (visits and visitors by the hour the visit started, pageviews by their own).
 * The problems, and the rows checked.
 */
export async function hourlyProblems(reference: Reference, cases: readonly FilterCase[]): Promise<{ problems: string[]; rows: number }> {
  const problems: string[] = [];
  let rows = 0;
  for (const { site, conditions, from, to: end } of cases) {
    const filters = conditions.map(plausibleFilter);
    if (filters.includes(null)) continue;
    const to =
      Date.parse(end) - Date.parse(from) > 30 * 86_400_000 ? new Date(Date.parse(from) + 6 * 86_400_000).toISOString().slice(0, 10) : end;
    const query = {
      site_id: SITES.find((each) => each.key === site)!.domain,
      metrics: [...HOURLY_METRICS],
      date_range: [from, to],
      dimensions: ["time:hour"],
      filters,
    };
    const answered = await reference.tally.stats.plausible(reference.accountId, query);
    const { count } = segmentOf(keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!), conditions);
    const hours = new Set(["visitors", "visits", "pageviews"].flatMap((name) => [...count(`${name}_by_hour`, from, to).keys()]));
    const expected = [...hours].sort().map((hour) => {
      const inHour: Counter = (name, a, b) => new Map([[hour, count(`${name}_by_hour`, a, b).get(hour) ?? 0]]);
      const figures = totalsOf(inHour, from, to);
      return { dimensions: [`${hour}:00:00`], metrics: HOURLY_METRICS.map((metric) => figures[metric]) };
    });
    const got = answered.results.map(({ dimensions, metrics }) => ({ dimensions, metrics }));
    if (!isDeepStrictEqual(got, expected)) {
      const at = expected.findIndex((row, index) => !isDeepStrictEqual(row, got[index]));
      problems.push(
        `${JSON.stringify(query)}: ${got.length} rows (expected ${expected.length}), first differing: got ${JSON.stringify(got[at])} expected ${JSON.stringify(expected[at])}`,
      );
    }
    rows += expected.length;
    if (problems.length > 5) break;
  }
  return { problems: problems.slice(0, 5), rows };
}
