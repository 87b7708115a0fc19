import type { Page, Websites } from "../websites/websites.js";
import { NotFoundError } from "../shared/errors.js";
import { createLocalClock } from "../model/local-time.js";
import { createPlausibleAnswerer, type PlausibleAnswer } from "./plausible-answer.js";
import { parsePlausibleQuery } from "./plausible-query.js";
import { expandSegments, usesSegments } from "./plausible-segments.js";
import type { SegmentViewer } from "../websites/saved-segments.js";
import type { PathStats } from "./path-stats.js";
import { createPathRunner, type PathRunner, type PathsFor } from "./paths.js";
import { comparedDay, comparisonRange, type CompareMode } from "./comparison.js";
import type { Realtime, createRealtimeReader } from "./realtime.js";
import type { DroppedHit, Live } from "./live.js";
import { pageRows, type CountRange, type CountReader, type DayRange, type ListOptions, type Statistic } from "./count-reader.js";
import { engagementRows } from "./engagement.js";
import type { BlockColumnCache } from "./segment-reader.js";
import type { VisitDimension } from "../model/filters.js";
import { goalRevenue, type RevenueSum } from "../model/revenue.js";
import {
  DAILY_SERIES,
  HAS_RANGE_TOTAL,
  isEngagementStatistic,
  HOUR_SERIES,
  isRatio,
  ratio,
  RATIO_SERIES,
  type RatioName,
} from "../model/stat-names.js";
import type { HourFigures, StatRow, TotalFigures, Totals, ValueTotals } from "../model/stats-schemas.js";
import {
  fromFirstData,
  parseStatsQuery,
  parseTotalsQuery,
  type StatsQuery,
  type StatsQueryInput,
  type TotalsQuery,
  type TotalsQueryInput,
} from "./stats-query.js";

/** One page of a statistic, with what the query asked for beside the rows. */
export interface StatsPage extends Page<StatRow> {
  /** `visits` and the ratios: the figure over the whole range. */
  rangeTotal?: number;
  previousRangeTotal?: number;
  /** With `compare`: the range compared with. */
  comparison?: DayRange;
  /** The first day answered, when a range longer than the limit began before the website's first data. */
  startsAt?: string;
}

export type { HourFigures, TotalFigures, Totals, ValueTotals } from "../model/stats-schemas.js";

/** Every statistics call: counts (`query`, `totals`, `realtime`) and paths (`funnel`, `journey`). */
export interface Stats extends CountStats, PathStats {}

export interface CountStats {
  /** One statistic of one of the account's websites (docs/statistics.md); waits for buffered hits first. */
  query(accountId: number, websiteId: number, input: StatsQueryInput): Promise<StatsPage>;
  /** The same without an account check, for pages that already decided access (shared stats). */
  queryWebsite(websiteId: number, input: StatsQueryInput): Promise<StatsPage>;
  /** Visitors, visits, pageviews, views per visit, bounce rate and visit duration of a range, in one call. */
  totals(accountId: number, websiteId: number, input: TotalsQueryInput): Promise<Totals>;
  totalsWebsite(websiteId: number, input: TotalsQueryInput): Promise<Totals>;
  /** Visitors in the last five minutes on one of the account's websites; waits for buffered hits first. */
  realtime(accountId: number, websiteId: number): Promise<Realtime>;
  /** The same without an account check (shared stats). */
  realtimeWebsite(websiteId: number): Promise<Realtime>;
  /** The last 30 minutes minute by minute, with pages, sources, countries and the hits dropped lately (docs/statistics.md, "Live"). */
  live(accountId: number, websiteId: number): Promise<Live>;
  /** The same without an account check (shared stats): without the dropped hits. */
  liveWebsite(websiteId: number): Promise<Live>;
  /**
   * A Plausible Stats API v2 query (`POST /api/v2/query`) on the account's website whose domain
   * is `site_id`, answered from the statistics above; a `segment` filter stands for the filters
   * of a saved segment the asker sees. A query Tally cannot answer is a PlausibleQueryError (400).
   */
  plausible(accountId: number, body: unknown, options?: PlausibleOptions): Promise<PlausibleAnswer>;
}

/** Who asks a Stats API v2 query, beyond the account. */
export interface PlausibleOptions {
  /** Narrows the websites further (a user limited to some). @default every website of the account */
  canSee?: (websiteId: number) => boolean;
  /** The user asking: their personal saved segments can be filtered on. @default none (shared segments only) */
  userId?: number | undefined;
}

/**
 * Picks where a query is counted from: rollups without filters or page goals, the visits and
 * hits with them, or when `fromRows` (statistics only the rows keep: by the hour of each day);
 * sharing `columnCache`, when given, with the request's other readers.
 */
export type ReaderFor = (
  websiteId: number,
  query: TotalsQuery & { goal_page?: readonly string[]; fromRows?: boolean },
  columnCache?: BlockColumnCache,
) => CountReader;

/** The hourly series read together (segment-reader.ts), in the order `hourFigures` reads them. */
const HOUR_FIGURES = [
  "visitors_by_hour",
  "visits_by_hour",
  "pageviews_by_hour",
  "bounces_by_hour",
  "visit_duration_by_hour",
  "visit_pageviews_by_hour",
  "events_by_hour",
] as const;

/** The sums a range's (or an hour's) figures are worked out from, in this order. */
type Sums = [visitors: number, visits: number, pageviews: number, bounces: number, duration: number, visitPageviews: number];

/** Counts and ratios from the sums, as docs/statistics.md defines them. */
function figuresFrom([visitors, visits, pageviews, bounces, duration, visitPageviews]: Sums): TotalFigures {
  return {
    visitors,
    visits,
    pageviews,
    views_per_visit: ratio("views_per_visit", visitPageviews, visits),
    bounce_rate: ratio("bounce_rate", bounces, visits),
    visit_duration: ratio("visit_duration", duration, visits),
  };
}

/** Every hour of a range with a visit, a pageview or an event, in time order: every series of every hour read in one plan. */
async function hourFigures(reader: CountReader, range: CountRange): Promise<HourFigures[]> {
  const series = (await reader.allOf(HOUR_FIGURES.map((name) => ({ stat: { name }, range })))).map(
    (rows) => new Map(rows.map((row) => [row.value, row.count])),
  );
  const hours = [...new Set(series.flatMap((byHour) => [...byHour.keys()]))].sort();
  return hours.map((hour) => {
    const counts = series.map((byHour) => byHour.get(hour) ?? 0);
    return { hour, ...figuresFrom(counts.slice(0, 6) as Sums), events: counts[6]! };
  });
}

const sum = (rows: readonly StatRow[]) => rows.reduce((total, row) => total + row.count, 0);

/** A ratio series by day: both sums per day, divided. */
async function ratioRows(reader: CountReader, name: RatioName, range: DayRange): Promise<{ rows: StatRow[]; total: number }> {
  const { numerator, denominator } = RATIO_SERIES[name];
  // One plan: a reader that counts visit series together reads the range's visits once for both.
  const [tops, bottoms] = (await reader.allOf([numerator, denominator].map((series) => ({ stat: { name: series }, range })))) as [
    StatRow[],
    StatRow[],
  ];
  const topByDay = new Map(tops.map((row) => [row.value, row.count]));
  const rows = bottoms
    .filter((row) => row.count > 0)
    .map((row) => ({ value: row.value, count: ratio(name, topByDay.get(row.value) ?? 0, row.count) }));
  return { rows, total: ratio(name, sum(tops), sum(bottoms)) };
}

/** Every row of a day or hour series (ratios included), and its range total where it has one. */
async function seriesRows(reader: CountReader, name: string, range: DayRange): Promise<{ rows: StatRow[]; total: number }> {
  if (isRatio(name)) return ratioRows(reader, name, range);
  const rows = await reader.all({ name }, range);
  return { rows, total: sum(rows) };
}

const isSeries = (name: string) => DAILY_SERIES.has(name) || HOUR_SERIES.has(name) || isRatio(name);

const FIGURES = ["visitors", "visits", "pageviews", "bounces", "visit_duration", "visit_pageviews"] as const;

/** The totals of each value of a visit column over a range: every figure of every value read in one plan. */
async function totalFiguresBy(reader: CountReader, range: DayRange, by: VisitDimension): Promise<ValueTotals[]> {
  const rows = await reader.allOf(FIGURES.map((name) => ({ stat: { name, by }, range })));
  const sums = new Map<string, Sums>();
  rows.forEach((figure, at) => {
    for (const { value, count } of figure) {
      let found = sums.get(value);
      if (!found) sums.set(value, (found = [0, 0, 0, 0, 0, 0]));
      found[at] = count;
    }
  });
  return [...sums].map(([value, counts]) => ({ value, data: figuresFrom(counts) }));
}

/** The totals of each range, every figure of every range read in one plan. */
async function totalFigures(reader: CountReader, ranges: readonly CountRange[]): Promise<TotalFigures[]> {
  const rows = await reader.allOf(ranges.flatMap((range) => FIGURES.map((name) => ({ stat: { name }, range }))));
  return ranges.map((_, index) => figuresFrom(rows.slice(index * FIGURES.length, (index + 1) * FIGURES.length).map(sum) as Sums));
}

/** `goals`: visitors who fired each event (or viewed a page goal's pages), its events (or those pageviews), and their share of all visitors. */
/**
 * The goals statistic's rows: every event's visitors, each page goal's (`Visit <pattern>`), and
 * the website's event goals that no visitor reached in the range (0), so a goal that stopped
 * converting still shows.
 */
async function goalRows(reader: CountReader, range: DayRange, list: ListOptions, goals: GoalQuery) {
  const { goal_page: patterns, event_goals: eventGoals = [] } = goals;
  let rows: StatRow[];
  let total: number;
  let events: Map<string, number>;
  // Asked first: the range's visitors are read while the goals are (a failure is met where they are awaited).
  const allVisitors = reader.all({ name: "visitors" }, range);
  allVisitors.catch(() => {});
  if (patterns.length === 0 && eventGoals.length === 0) {
    // Event goals alone: paged by the database.
    ({ rows, total } = await reader.page({ name: "event_visitors" }, range, list));
    events = await reader.countsOf(
      { name: "event" },
      range,
      rows.map((row) => row.value),
    );
  } else {
    const reached = await goalVisitors(reader, range, patterns);
    const named = new Set(reached.map((row) => row.value));
    const unreached = eventGoals.filter((name) => !named.has(name)).map((value) => ({ value, count: 0 }));
    ({ rows, total } = pageRows([...reached, ...unreached], list));
    const [eventCounts, views] = await Promise.all([
      reader.countsOf(
        { name: "event" },
        range,
        rows.map((row) => row.value),
      ),
      Promise.all(patterns.map((pattern) => reader.all({ name: "page_goal_views", pattern }, range))),
    ]);
    events = new Map([...eventCounts, ...views.flat().map((row): [string, number] => [row.value, row.count])]);
  }
  const visitors = sum(await allVisitors);
  return {
    rows: rows.map((row) => ({ ...row, events: events.get(row.value) ?? 0, conversion_rate: ratio("bounce_rate", row.count, visitors) })),
    total,
    visitors,
  };
}

/** Each event goal's row with its revenue per currency, when its events carried any (`sums`: the range's revenue under the filters). */
function withRevenue(rows: readonly StatRow[], sums: readonly RevenueSum[], visitors: number): StatRow[] {
  const byEvent = new Map<string, RevenueSum[]>();
  for (const each of sums) byEvent.set(each.event, [...(byEvent.get(each.event) ?? []), each]);
  return rows.map((row) => {
    const own = byEvent.get(row.value);
    return own ? { ...row, revenue: goalRevenue(own, visitors) } : row;
  });
}

/** The goals a `goals` query counts: page patterns, and the website's event goals (listed even when none reached them). */
export interface GoalQuery {
  goal_page: readonly string[];
  event_goals?: readonly string[];
}

/** Visitors of every event goal and of each page goal (`Visit <pattern>`), unsorted. */
async function goalVisitors(reader: CountReader, range: DayRange, patterns: readonly string[]): Promise<StatRow[]> {
  const [events, ...pages] = await Promise.all([
    reader.all({ name: "event_visitors" }, range),
    ...patterns.map((pattern) => reader.all({ name: "page_goal_visitors", pattern }, range)),
  ]);
  return [...events, ...pages.flat()];
}

/** A totals query, or (`seconds`, local wall-clock [start, end)) one of a part of its days: counted from the visits and hits. */
export type PartQuery = TotalsQuery & Pick<CountRange, "seconds">;

/** Answers parsed queries: in the caller's thread, or behind a reader thread (StatsRunner over messages). */
export interface StatsRunner extends PathRunner {
  page(websiteId: number, query: StatsQuery & Partial<GoalQuery>): Promise<StatsPage>;
  totals(websiteId: number, query: PartQuery): Promise<Totals>;
  /** The totals of each hour of the range (from the visits and hits, so within `retention_days`). */
  hourly(websiteId: number, query: PartQuery): Promise<HourFigures[]>;
  /** The totals of several queries of one website (a v2 query's rows): the day blocks they read are decoded once for all. */
  totalsOf(websiteId: number, queries: readonly PartQuery[]): Promise<Totals[]>;
  /** The totals of each value of a visit column under the query's filters (a v2 breakdown by it), from the visits and hits. */
  totalsBy(websiteId: number, query: TotalsQuery, by: VisitDimension): Promise<ValueTotals[]>;
  /** Revenue per event name and currency under the query's filters, from the rows (docs/revenue.md). */
  revenue(websiteId: number, query: TotalsQuery): Promise<RevenueSum[]>;
}

/** Where a request's statistics are read: counts (rollups or segments), and the hits of funnels and journeys. */
export interface StatsSources {
  readerFor: ReaderFor;
  pathsFor: PathsFor;
}

/** Statistics counted from a database: rollups without filters, visits and hits with them. */
export function createStatsRunner({ readerFor, pathsFor }: StatsSources): StatsRunner {
  /** `scroll_depth`, `time_on_page`, `vitals`: from the range's engagement signals, each range read once. */
  async function engagementPage(websiteId: number, query: StatsQuery & { name: "scroll_depth" | "time_on_page" | "vitals" }) {
    const reader = pathsFor(websiteId, query.conditions);
    const range = { from: query.from, to: query.to };
    const answer = engagementRows(query.name, await reader.engagementSignals(range));
    const list = { search: query.search.toLowerCase(), sortBy: query.sort_by, sort: query.sort, perPage: query.per_page, page: query.page };
    const { rows, total } = pageRows(answer.rows, list);
    const page: StatsPage = { data: rows, total, page: query.page, perPage: query.per_page };
    if (answer.rangeTotal !== undefined) page.rangeTotal = answer.rangeTotal;
    if (!query.compare) return page;
    const previousRange = comparisonRange(range, query.compare);
    const previous = engagementRows(query.name, await reader.engagementSignals(previousRange));
    const before = new Map(previous.rows.map((row) => [row.value, row]));
    page.comparison = previousRange;
    if (previous.rangeTotal !== undefined) page.previousRangeTotal = previous.rangeTotal;
    page.data = rows.map((row) => {
      const old = before.get(row.value);
      const figure = old?.average ?? old?.seconds;
      return { ...row, previous: old?.count ?? 0, ...(figure === undefined ? {} : { previous_figure: figure }) };
    });
    return page;
  }

  async function statsPage(websiteId: number, query: StatsQuery & Partial<GoalQuery>): Promise<StatsPage> {
    if (isEngagementStatistic(query.name)) return engagementPage(websiteId, { ...query, name: query.name });
    const reader = readerFor(websiteId, query);
    const range = { from: query.from, to: query.to };
    const stat: Statistic = { name: query.name, event: query.event, property: query.property };
    const list: ListOptions = {
      search: query.search.toLowerCase(),
      sortBy: query.sort_by,
      sort: query.sort,
      perPage: query.per_page,
      page: query.page,
    };
    let result: { rows: StatRow[]; total: number };
    let rangeTotal: number | undefined;
    if (isSeries(query.name)) {
      const series = await seriesRows(reader, query.name, range);
      result = pageRows(series.rows, list);
      rangeTotal = series.total;
    } else if (query.name === "goals") {
      const goals = await goalRows(reader, range, list, query);
      const sums = await pathsFor(websiteId, query.conditions).revenue(range);
      result = { rows: withRevenue(goals.rows, sums, goals.visitors), total: goals.total };
    } else result = await reader.page(stat, range, list);

    const page: StatsPage = { data: result.rows, total: result.total, page: query.page, perPage: query.per_page };
    if (HAS_RANGE_TOTAL.has(query.name)) page.rangeTotal = rangeTotal ?? 0;
    if (query.compare) await addComparison(page, reader, stat, range, query.compare, query.goal_page);
    return page;
  }

  /** Each row's count in the comparison range, and the range total's. */
  async function addComparison(
    page: StatsPage,
    reader: CountReader,
    stat: Statistic,
    range: DayRange,
    mode: CompareMode,
    patterns: readonly string[],
  ): Promise<void> {
    const previousRange = comparisonRange(range, mode);
    page.comparison = previousRange;
    let previousOf: (value: string) => number;
    if (isSeries(stat.name)) {
      const previous = await seriesRows(reader, stat.name, previousRange);
      const byValue = new Map(previous.rows.map((row) => [row.value, row.count]));
      const compared = HOUR_SERIES.has(stat.name) ? (value: string) => value : (value: string) => comparedDay(value, range, mode);
      previousOf = (value) => byValue.get(compared(value)) ?? 0;
      if (HAS_RANGE_TOTAL.has(stat.name)) page.previousRangeTotal = previous.total;
    } else if (stat.name === "goals" && patterns.length > 0) {
      const counts = new Map((await goalVisitors(reader, previousRange, patterns)).map((row) => [row.value, row.count]));
      previousOf = (value) => counts.get(value) ?? 0;
    } else {
      const counted = stat.name === "goals" ? { name: "event_visitors" } : stat;
      const counts = await reader.countsOf(
        counted,
        previousRange,
        page.data.map((row) => row.value),
      );
      previousOf = (value) => counts.get(value) ?? 0;
    }
    page.data = page.data.map((row) => ({ ...row, previous: previousOf(row.value) }));
  }

  async function totals(websiteId: number, query: PartQuery, columnCache?: BlockColumnCache): Promise<Totals> {
    const reader = readerFor(websiteId, query.seconds ? { ...query, fromRows: true } : query, columnCache);
    const range = { from: query.from, to: query.to, seconds: query.seconds };
    const comparison = query.compare ? comparisonRange(range, query.compare) : null;
    const [data, previous] = await totalFigures(reader, comparison ? [range, comparison] : [range]);
    const result: Totals = { data: data! };
    if (comparison) Object.assign(result, { comparison, previous });
    return result;
  }

  async function hourly(websiteId: number, query: PartQuery): Promise<HourFigures[]> {
    return hourFigures(readerFor(websiteId, { ...query, fromRows: true }), { from: query.from, to: query.to, seconds: query.seconds });
  }

  async function totalsOf(websiteId: number, queries: readonly PartQuery[]): Promise<Totals[]> {
    const columnCache: BlockColumnCache = new Map();
    const answers: Totals[] = [];
    for (const query of queries) answers.push(await totals(websiteId, query, columnCache));
    return answers;
  }

  async function totalsBy(websiteId: number, query: TotalsQuery, by: VisitDimension): Promise<ValueTotals[]> {
    return totalFiguresBy(readerFor(websiteId, { ...query, fromRows: true }), { from: query.from, to: query.to }, by);
  }

  return {
    page: statsPage,
    totals: (websiteId, query) => totals(websiteId, query),
    hourly,
    totalsOf,
    totalsBy,
    revenue: (websiteId, query) => pathsFor(websiteId, query.conditions).revenue({ from: query.from, to: query.to }),
    ...createPathRunner(pathsFor),
  };
}

const localTime = createLocalClock();

/** What the count statistics read through: the websites, a runner, the realtime reader, and the goals each website keeps. */
export interface CountStatsOptions {
  websites: Websites;
  runner: StatsRunner;
  /** Writes what is buffered first: a read sees every hit accepted before it. */
  beforeRead(): Promise<void>;
  readRealtime: ReturnType<typeof createRealtimeReader>;
  /** The website's goals: its page patterns and event names (websites/goals.ts). */
  goalsOf(websiteId: number): Promise<{ pages: string[]; events: string[] }>;
  /** The live view of a website (stats/live.ts), `now` its local wall-clock seconds in its time zone. */
  readLive(websiteId: number, now: number, timezone: string): Promise<Omit<Live, "visitors" | "dropped">>;
  /** Its time zone, whoever asks (shared stats too). */
  timezoneOf(websiteId: number): Promise<string>;
  /** The hits dropped lately that concern it: its rules', and unknown hosts near its domain (ingest/drop-log.ts). */
  recentDrops(websiteId: number, domain: string): DroppedHit[];
  /** The first day with statistics of a website, in its time zone; null before any. */
  firstDay(websiteId: number): Promise<string | null>;
  /** A saved segment's filters, when `viewer` sees it (websites/saved-segments.ts); NotFoundError otherwise. */
  segmentFilters(viewer: SegmentViewer, websiteId: number, segmentId: number): Promise<string[]>;
}

export function createStats(options: CountStatsOptions): CountStats {
  const { websites, runner, beforeRead, readRealtime, goalsOf, segmentFilters } = options;
  async function liveOf(websiteId: number, dropped: DroppedHit[]): Promise<Live> {
    const timezone = await options.timezoneOf(websiteId);
    await beforeRead();
    const [{ visitors }, view] = await Promise.all([
      readRealtime(websiteId),
      options.readLive(websiteId, localTime(timezone, Date.now()).seconds, timezone),
    ]);
    return { visitors, ...view, dropped };
  }

  /** The account's website whose domain is `siteId`, when the asker may see it. */
  async function siteOf(accountId: number, siteId: string, canSee: (websiteId: number) => boolean) {
    const domain = siteId.toLowerCase();
    const found = await websites.list(accountId, { search: domain, perPage: 100 });
    const website = found.data.find((candidate) => candidate.domain === domain);
    if (!website || !canSee(website.id)) throw new NotFoundError(`Site ${JSON.stringify(siteId)} not found in this account.`);
    return website;
  }

  const stats: CountStats = {
    async query(accountId, websiteId, input) {
      await websites.get(accountId, websiteId);
      return stats.queryWebsite(websiteId, input);
    },
    async queryWebsite(websiteId, input) {
      const { input: ranged, startsAt } = await fromFirstData(input, () => options.firstDay(websiteId));
      const query = parseStatsQuery(ranged);
      // The goals statistic counts the website's own goals; page goals the request names replace its page goals.
      const goals = query.name === "goals" ? await goalsOf(websiteId) : null;
      await beforeRead();
      const page = goals
        ? await runner.page(websiteId, {
            ...query,
            goal_page: query.goal_page.length > 0 ? query.goal_page : goals.pages,
            event_goals: goals.events,
          })
        : await runner.page(websiteId, query);
      return startsAt === undefined ? page : { ...page, startsAt };
    },
    async totals(accountId, websiteId, input) {
      await websites.get(accountId, websiteId);
      return stats.totalsWebsite(websiteId, input);
    },
    async totalsWebsite(websiteId, input) {
      const query = parseTotalsQuery(input);
      await beforeRead();
      return runner.totals(websiteId, query);
    },
    async realtime(accountId, websiteId) {
      await websites.get(accountId, websiteId);
      return stats.realtimeWebsite(websiteId);
    },
    async realtimeWebsite(websiteId) {
      await beforeRead();
      return readRealtime(websiteId);
    },
    async live(accountId, websiteId) {
      const { domain } = await websites.get(accountId, websiteId);
      return liveOf(websiteId, options.recentDrops(websiteId, domain));
    },
    liveWebsite: (websiteId) => liveOf(websiteId, []),
    async plausible(accountId, body, { canSee = () => true, userId } = {}) {
      let asked = body;
      if (usesSegments(body) && typeof (body as { site_id?: unknown }).site_id === "string") {
        const site = await siteOf(accountId, (body as { site_id: string }).site_id, canSee);
        asked = await expandSegments(body as Record<string, unknown>, (id) => segmentFilters({ accountId, userId }, site.id, id));
      }
      const query = parsePlausibleQuery(asked);
      const website = await siteOf(accountId, query.site_id, canSee);
      // The part of a day a date-time range asks (`seconds`) is kept past the v1 checks.
      const partOf = (input: TotalsQueryInput & Pick<PartQuery, "seconds">): PartQuery => ({
        ...parseTotalsQuery(input),
        seconds: input.seconds,
      });
      const answerer = createPlausibleAnswerer({
        list: (input) => stats.queryWebsite(website.id, input),
        async totals(input) {
          const query = partOf(input);
          await beforeRead();
          return runner.totals(website.id, query);
        },
        async hourly(input) {
          const query = partOf(input);
          await beforeRead();
          return runner.hourly(website.id, query);
        },
        async totalsOf(inputs) {
          const queries = inputs.map(partOf);
          await beforeRead();
          return runner.totalsOf(website.id, queries);
        },
        async totalsBy(input, by) {
          const query = parseTotalsQuery(input);
          await beforeRead();
          return runner.totalsBy(website.id, query, by);
        },
        async revenue(input) {
          const query = parseTotalsQuery(input);
          await beforeRead();
          return runner.revenue(website.id, query);
        },
      });
      const now = Date.now();
      return answerer.answer(query, { timezone: website.timezone, today: localTime(website.timezone, now).day, now });
    },
  };
  return stats;
}
