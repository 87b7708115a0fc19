import { addDays, dayNumber } from "../shared/calendar.js";
import { ratio } from "../model/stat-names.js";
import type { TotalFigures } from "../model/stats-schemas.js";
import { PLAUSIBLE_DIMENSIONS, visitColumnOf } from "./plausible-dimensions.js";
import {
  createRowReader,
  MAX_ROWS,
  timeLabels,
  timeUnit,
  type Row,
  type RowReader,
  type Scope,
  type StatsSource,
} from "./plausible-rows.js";
import { revenueWarnings, rowRevenue, type RevenueFigure, type RowRevenue } from "./plausible-revenue.js";
import {
  conditionsIn,
  filteredPage,
  isPageMetric,
  isRevenueMetric,
  isTimeDimension,
  PAGE_METRICS,
  PlausibleQueryError,
  resolveDateRange,
  type PlausibleFilter,
  type RangeClock,
  type PlausibleMetric,
  type PlausibleQuery,
  type RevenueMetric,
} from "./plausible-query.js";

/** Plausible's answer: `{results: [{dimensions, metrics}], meta, query}`. */
export interface PlausibleAnswer {
  /**
   * A metric is null where Plausible's is: `scroll_depth` or `time_on_page` of a page without any,
   * a revenue metric without revenue or with several currencies; a revenue metric is `{short, long, value, currency}`.
   */
  results: { dimensions: string[]; metrics: (number | RevenueFigure | null)[] }[];
  meta: {
    total_rows?: number;
    time_labels?: string[];
    imports_included?: boolean;
    metric_warnings?: ReturnType<typeof revenueWarnings>;
  };
  query: Record<string, unknown>;
}

type Figures = Partial<Record<PlausibleMetric, number | null>>;

interface Computed {
  dimensions: string[];
  figures: Figures;
  revenue?: RowRevenue;
}

/** A percentage with one decimal, 0 of nothing: as v1's `conversion_rate` and `bounce_rate`. */
const percent = (part: number, whole: number) => ratio("bounce_rate", part, whole);

const TOTALS_METRICS: readonly PlausibleMetric[] = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration"];

/** The website's time zone, the day "today" is there, and the moment now. */
export type PlausibleSite = RangeClock;

/** `+02:00`: the zone's offset at the start of a day, as Plausible writes `query.date_range`. */
function offsetAt(timeZone: string, day: string): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(new Date(`${day}T12:00:00Z`))
    .find((part) => part.type === "timeZoneName")?.value;
  const offset = name?.replace("GMT", "") ?? "";
  return offset === "" ? "+00:00" : offset;
}

/** Longest range `time:hour` breaks down (744 rows at most). */
const MAX_HOUR_DAYS = 31;

/** How many rows are counted at once: the reader threads or the pool's connections work side by side. */
const CONCURRENT_ROWS = 4;

async function mapConcurrently<T, R>(items: readonly T[], map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += CONCURRENT_ROWS) {
    results.push(...(await Promise.all(items.slice(start, start + CONCURRENT_ROWS).map(map))));
  }
  return results;
}

/** A goal filter changes what v1's goals divide by: such rows are counted row by row. */
const goalFiltered = (query: PlausibleQuery) => conditionsIn(query.conditions).some((condition) => condition.dimension === "event:goal");

/** A one-dimension row's figures from its statistic alone (`browser` counts visitors, `goals` also events and conversion rates), when they are all the query asks. */
function countedFigures(query: PlausibleQuery, row: Row): Figures | null {
  const mapping = PLAUSIBLE_DIMENSIONS[query.dimensions[0] ?? ""];
  if (!row.counted || !mapping || goalFiltered(query)) return null;
  const figures: Figures = { [mapping.counts]: row.counted.count };
  if (row.counted.events !== undefined) figures.events = row.counted.events;
  if (row.counted.conversion_rate !== undefined) figures.conversion_rate = row.counted.conversion_rate;
  const missing = query.metrics.some(
    (metric) =>
      figures[metric] === undefined &&
      !(metric === "percentage" && figures.visitors !== undefined) &&
      !isPageMetric(metric) &&
      !isRevenueMetric(metric),
  );
  return missing ? null : figures;
}

function compareRows(query: PlausibleQuery): (a: Computed, b: Computed) => number {
  const time = query.dimensions.find(isTimeDimension);
  const order = query.order_by.length > 0 ? query.order_by : time ? [[time, "asc"] as const] : [[query.metrics[0]!, "desc"] as const];
  const keyOf = (row: Computed, name: string): number | string => {
    const index = query.dimensions.indexOf(name);
    if (index >= 0) return row.dimensions[index]!;
    return isRevenueMetric(name) ? (row.revenue?.figures[name]?.value ?? 0) : (row.figures[name as PlausibleMetric] ?? 0);
  };
  return (a, b) => {
    for (const [name, direction] of order) {
      const [x, y] = [keyOf(a, name), keyOf(b, name)];
      if (x !== y) return (x < y ? -1 : 1) * (direction === "asc" ? 1 : -1);
    }
    // Ties by the dimensions, ascending: a stable answer page after page.
    return a.dimensions.join("\u0000") < b.dimensions.join("\u0000")
      ? -1
      : a.dimensions.join("\u0000") > b.dimensions.join("\u0000")
        ? 1
        : 0;
  };
}

/** Answers Stats API v2 queries from a website's v1 statistics. */
export function createPlausibleAnswerer(source: StatsSource) {
  const reader: RowReader = createRowReader(source);

  const needsTotals = (metrics: readonly PlausibleMetric[]) =>
    metrics.some(
      (metric) => TOTALS_METRICS.includes(metric) || metric === "events" || metric === "percentage" || metric === "conversion_rate",
    );

  /** The metrics of one scope: its totals (read for every row at once), and the events' counts when `events` is asked. */
  async function figuresOf(scope: Scope, metrics: readonly PlausibleMetric[], totals: TotalFigures | undefined): Promise<Figures> {
    const figures: Figures = { ...totals };
    if (metrics.includes("events")) {
      // A part of a day: its events are the sum of its hours' (the v1 lists count whole days).
      const events = scope.range.seconds
        ? (await source.hourly({ ...scope.range, filter: scope.filters })).map((hour) => ({ count: hour.events }))
        : await reader.allRows(scope, { name: "event" });
      figures.events = events.reduce((sum, row) => sum + row.count, scope.eventsOnly ? 0 : (figures.pageviews ?? 0));
    }
    return figures;
  }

  /** A part of a day (date-times, `24h`) is counted by `totals` and `hourly` alone: its totals, or its hours. */
  function checkPart(query: PlausibleQuery): void {
    const [dimension, ...others] = query.dimensions;
    const byHour = dimension === undefined || ((dimension === "time" || dimension === "time:hour") && others.length === 0);
    const metric = query.metrics.find((each) => !TOTALS_METRICS.includes(each) && each !== "events" && each !== "percentage");
    if (!byHour || metric) {
      throw new PlausibleQueryError(
        `Tally answers a date_range within days (date-times, 24h) with ${[...TOTALS_METRICS, "events", "percentage"].join(", ")}, in total or by time:hour${metric ? `, not ${metric}` : ""}.`,
      );
    }
  }

  /**
   * `scroll_depth`, `time_on_page`: the v1 figure of the row's page (its `event:page` value, or the
   * query's one filtered page) under the row's filters, rounded to a whole number as Plausible's;
   * null when the page has none.
   */
  async function pageFigures(query: PlausibleQuery, row: Row): Promise<Figures> {
    const figures: Figures = {};
    const at = query.dimensions.indexOf("event:page");
    const page = at >= 0 ? row.dimensions[at]! : filteredPage(query.conditions)!;
    for (const metric of query.metrics.filter(isPageMetric)) {
      const rows = await reader.allRows(row.scope, { name: metric, search: page });
      const figure = rows.find((each) => each.value === page)?.[PAGE_METRICS[metric]];
      figures[metric] = figure === undefined ? null : Math.round(figure);
    }
    return figures;
  }

  /** A scope's revenue metrics: the revenue of the events its filters count (an `event:goal` filter: that goal's events). */
  async function revenueOf(scope: Scope, metrics: readonly RevenueMetric[]): Promise<RowRevenue> {
    return rowRevenue(await source.revenue({ ...scope.range, filter: scope.filters }), metrics);
  }

  /**
   * `time:hour`: every metric of each hour of each day, from the visits and hits (so within
   * `retention_days`): visits by the hour they started, visitors by the hour of their day's
   * first visit, pageviews and events by their own hour. An hour where none of the metrics
   * asked counts anything is left out (a visit's later pageviews in the next hour, when only
   * `visitors` is asked), as Plausible lists only the buckets its metrics count in.
   */
  async function hourRows(query: PlausibleQuery, scope: Scope): Promise<Computed[]> {
    const unhourly = query.metrics.find((metric) => metric === "conversion_rate" || isPageMetric(metric) || isRevenueMetric(metric));
    if (unhourly) throw new PlausibleQueryError(`Tally does not break ${unhourly} down by hour.`);
    if (query.dimensions.length > 1) throw new PlausibleQueryError("Tally breaks down by hour only on its own, without other dimensions.");
    if (dayNumber(scope.range.to) - dayNumber(scope.range.from) >= MAX_HOUR_DAYS)
      throw new PlausibleQueryError(`Tally breaks down by hour at most ${MAX_HOUR_DAYS} days.`);
    const hours = await source.hourly({ ...scope.range, filter: scope.filters });
    const whole = query.metrics.includes("percentage") ? (await source.totals({ ...scope.range, filter: scope.filters })).data.visitors : 0;
    return hours
      .map(({ hour, events, ...figures }): Computed => ({
        dimensions: [`${hour}:00:00`],
        figures: {
          ...figures,
          events: events + (scope.eventsOnly ? 0 : figures.pageviews),
          percentage: percent(figures.visitors, whole),
        },
      }))
      .filter(({ figures }) => query.metrics.some((metric) => (figures[metric] ?? 0) !== 0));
  }

  /** `time:day` alone, with metrics that are v1 day series: one series a metric instead of one totals call a day. */
  async function dayRows(query: PlausibleQuery, scope: Scope): Promise<Computed[]> {
    const names = [...new Set<PlausibleMetric>(["visits", ...query.metrics])];
    const series = await Promise.all(
      names.map(async (name) => new Map((await reader.allRows(scope, { name })).map((row) => [row.value, row.count]))),
    );
    const byName = new Map(names.map((name, index) => [name, series[index]!]));
    const days = [...byName.get("visits")!].filter(([, visits]) => visits > 0).map(([day]) => day);
    return days.map((day) => ({
      dimensions: [day],
      figures: Object.fromEntries(query.metrics.map((metric) => [metric, byName.get(metric)!.get(day) ?? 0])),
    }));
  }

  /**
   * A breakdown by one visit column (`visit:browser`) with more than its statistic's count:
   * every value's totals in one pass over the query's scope, its rows listed from them.
   */
  async function groupedTotals(query: PlausibleQuery, base: Scope): Promise<Map<string, TotalFigures> | null> {
    const [dimension, ...others] = query.dimensions;
    const by = dimension !== undefined && others.length === 0 ? visitColumnOf(dimension) : null;
    if (!by || !needsTotals(query.metrics)) return null;
    const { counts } = PLAUSIBLE_DIMENSIONS[dimension!]!;
    const countSuffices =
      !goalFiltered(query) &&
      query.metrics.every((metric) => metric === counts || (metric === "percentage" && counts === "visitors") || isPageMetric(metric));
    if (countSuffices) return null;
    const totals = await source.totalsBy({ ...base.range, filter: base.filters }, by);
    return new Map(totals.map(({ value, data }) => [value, data]));
  }

  /** Each row's totals: from the grouped totals, or else under its own filters (the day blocks they read decoded once for all). */
  async function rowTotals(rows: readonly Row[], grouped: Map<string, TotalFigures> | null): Promise<Map<Row, TotalFigures>> {
    const found = new Map<Row, TotalFigures>();
    for (const row of rows) {
      const data = row.counted && grouped?.get(row.counted.value);
      if (data) found.set(row, data);
    }
    const rest = rows.filter((row) => !found.has(row));
    if (rest.length > 0) {
      const totals = await source.totalsOf(rest.map(({ scope }) => ({ ...scope.range, filter: scope.filters })));
      rest.forEach((row, index) => found.set(row, totals[index]!.data));
    }
    return found;
  }

  /** Every row's figures, the shares (`percentage`, `conversion_rate`) against the query's totals. */
  async function computedRows(query: PlausibleQuery, base: Scope): Promise<Computed[]> {
    const time = query.dimensions.find(isTimeDimension);
    if (time && (base.range.seconds || timeUnit(time, base.range) === "hour")) return hourRows(query, base);
    if (
      time &&
      query.dimensions.length === 1 &&
      timeUnit(time, base.range) === "day" &&
      query.metrics.every((metric) => TOTALS_METRICS.includes(metric))
    ) {
      return dayRows(query, base);
    }
    const grouped = await groupedTotals(query, base);
    // The values v1's statistic lists: those it counts at least once.
    const counts = PLAUSIBLE_DIMENSIONS[query.dimensions[0] ?? ""]?.counts ?? "visits";
    const listed = grouped && [...grouped].flatMap(([value, data]) => (data[counts] > 0 ? [{ value, count: data[counts] }] : []));
    const rows = await reader.rowsOf(query.dimensions, base, listed ?? undefined);
    const perPage = query.metrics.some(isPageMetric);
    const revenueMetrics = query.metrics.filter(isRevenueMetric);
    const uncounted = rows.filter((row) => countedFigures(query, row) === null);
    const totalsOfRow = needsTotals(query.metrics) ? await rowTotals(uncounted, grouped) : new Map<Row, TotalFigures>();
    const computed = await mapConcurrently(rows, async (row) => ({
      dimensions: row.dimensions,
      figures: {
        ...(countedFigures(query, row) ?? (await figuresOf(row.scope, query.metrics, totalsOfRow.get(row)))),
        ...(perPage ? await pageFigures(query, row) : {}),
      },
      ...(revenueMetrics.length > 0 ? { revenue: await revenueOf(row.scope, revenueMetrics) } : {}),
    }));
    if (query.metrics.includes("percentage")) {
      const whole = (await source.totals({ ...base.range, filter: base.filters })).data.visitors;
      for (const row of computed) row.figures.percentage = percent(row.figures.visitors ?? 0, whole);
    }
    if (query.metrics.includes("conversion_rate")) {
      // The divisor: every visitor of the range, under the query's filters except the goal ones.
      const onGoals = (filter: PlausibleFilter) => conditionsIn([filter]).some((condition) => condition.dimension === "event:goal");
      const goals = query.conditions.filter((filter) => !onGoals(filter));
      const all = await reader.baseScope(base.range, goals);
      const whole = (await source.totals({ ...all.range, filter: all.filters })).data.visitors;
      for (const row of computed) row.figures.conversion_rate ??= percent(row.figures.visitors ?? 0, whole);
    }
    return computed;
  }

  async function answer(query: PlausibleQuery, site: PlausibleSite): Promise<PlausibleAnswer> {
    const range = await resolveDateRange(query.date_range, site, async () => {
      const first = await source.list({
        name: "visitors",
        from: addDays(site.today, -3660),
        to: site.today,
        sort_by: "value",
        sort: "asc",
        per_page: 10,
      });
      return first.data[0]?.value ?? site.today;
    });
    if (range.seconds) checkPart(query);
    const base = await reader.baseScope({ from: range.from, to: range.to, seconds: range.seconds }, query.conditions);
    const rows = (await computedRows(query, base)).sort(compareRows(query));
    if (rows.length > MAX_ROWS) throw new PlausibleQueryError(`This breakdown has more than ${MAX_ROWS} rows.`);
    const { limit, offset } = query.pagination;
    const meta: PlausibleAnswer["meta"] = {};
    if (query.include.imports) meta.imports_included = false;
    const time = query.dimensions.find(isTimeDimension);
    if (query.include.time_labels && time) meta.time_labels = timeLabels(time, range).map((label) => label.shown);
    if (query.include.total_rows) meta.total_rows = rows.length;
    const warnings = revenueWarnings(
      rows.flatMap((row) => (row.revenue ? [row.revenue] : [])),
      query.metrics.filter(isRevenueMetric),
    );
    if (warnings) meta.metric_warnings = warnings;
    const offsetText = offsetAt(site.timezone, range.from);
    return {
      results: rows.slice(offset, offset + limit).map((row) => ({
        dimensions: row.dimensions,
        metrics: query.metrics.map((metric) => {
          if (isRevenueMetric(metric)) return row.revenue?.figures[metric] ?? null;
          const figure = row.figures[metric];
          return figure === undefined ? 0 : figure;
        }),
      })),
      meta,
      query: {
        site_id: query.site_id,
        metrics: query.metrics,
        date_range: range.shown ?? [`${range.from}T00:00:00${offsetText}`, `${range.to}T23:59:59${offsetAt(site.timezone, range.to)}`],
        filters: query.filters,
        dimensions: query.dimensions,
        order_by: query.order_by.length > 0 ? query.order_by : [[time ?? query.metrics[0], time ? "asc" : "desc"]],
        include: Object.fromEntries(Object.entries(query.include).filter(([, on]) => on)),
        pagination: query.pagination,
      },
    };
  }

  return { answer };
}
