import { addDays, dayNumber } from "../shared/calendar.js";
import { ratio } from "../model/stat-names.js";
import type { DayRange } from "./count-reader.js";
import type { Totals } from "../model/stats-schemas.js";
import { PLAUSIBLE_DIMENSIONS } from "./plausible-dimensions.js";
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
import { isTimeDimension, PlausibleQueryError, resolveDateRange, type PlausibleMetric, type PlausibleQuery } from "./plausible-query.js";

/** Plausible's answer: `{results: [{dimensions, metrics}], meta, query}`. */
export interface PlausibleAnswer {
  results: { dimensions: string[]; metrics: number[] }[];
  meta: { total_rows?: number; time_labels?: string[]; imports_included?: boolean };
  query: Record<string, unknown>;
}

type Figures = Partial<Record<PlausibleMetric, number>>;

interface Computed {
  dimensions: string[];
  figures: Figures;
}

/** A percentage with one decimal, 0 of nothing: as v1's `conversion_rate` and `bounce_rate`. */
const percent = (part: number, whole: number) => ratio("bounce_rate", part, whole);

const TOTALS_METRICS: readonly PlausibleMetric[] = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration"];

/** The website and the day "today" is, in its time zone. */
export interface PlausibleSite {
  timezone: string;
  today: string;
}

/** `+02:00`: the zone's offset at the start of a day, as Plausible writes `query.date_range`. */
function offsetAt(timeZone: string, day: string): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(new Date(`${day}T12:00:00Z`))
    .find((part) => part.type === "timeZoneName")?.value;
  const offset = name?.replace("GMT", "") ?? "";
  return offset === "" ? "+00:00" : offset;
}

/** How many rows are counted at once: the reader threads or the pool's connections work side by side. */
const CONCURRENT_ROWS = 4;

async function mapConcurrently<T, R>(items: readonly T[], map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += CONCURRENT_ROWS) {
    results.push(...(await Promise.all(items.slice(start, start + CONCURRENT_ROWS).map(map))));
  }
  return results;
}

/** A one-dimension row's figures from its statistic alone (`browser` counts visitors, `goals` also events and conversion rates), when they are all the query asks. */
function countedFigures(query: PlausibleQuery, row: Row): Figures | null {
  const mapping = PLAUSIBLE_DIMENSIONS[query.dimensions[0] ?? ""];
  // A goal filter changes what v1's goals divide by: counted row by row instead.
  if (!row.counted || !mapping || query.conditions.some((condition) => condition.dimension === "event:goal")) return null;
  const figures: Figures = { [mapping.counts]: row.counted.count };
  if (row.counted.events !== undefined) figures.events = row.counted.events;
  if (row.counted.conversion_rate !== undefined) figures.conversion_rate = row.counted.conversion_rate;
  const missing = query.metrics.some(
    (metric) => figures[metric] === undefined && !(metric === "percentage" && figures.visitors !== undefined),
  );
  return missing ? null : figures;
}

function compareRows(query: PlausibleQuery): (a: Computed, b: Computed) => number {
  const time = query.dimensions.find(isTimeDimension);
  const order = query.order_by.length > 0 ? query.order_by : time ? [[time, "asc"] as const] : [[query.metrics[0]!, "desc"] as const];
  const keyOf = (row: Computed, name: string): number | string => {
    const index = query.dimensions.indexOf(name);
    return index >= 0 ? row.dimensions[index]! : (row.figures[name as PlausibleMetric] ?? 0);
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
  async function figuresOf(scope: Scope, metrics: readonly PlausibleMetric[], totals: Totals["data"] | undefined): Promise<Figures> {
    const figures: Figures = { ...totals };
    if (metrics.includes("events")) {
      const events = await reader.allRows(scope, { name: "event" });
      figures.events = events.reduce((sum, row) => sum + row.count, scope.eventsOnly ? 0 : (figures.pageviews ?? 0));
    }
    return figures;
  }

  /** `time:hour`: visitors (by their first hit's hour) and pageviews of each hour of each day, from the hour series. */
  async function hourRows(query: PlausibleQuery, scope: Scope): Promise<Computed[]> {
    const other = query.metrics.find((metric) => metric !== "visitors" && metric !== "pageviews");
    if (other) throw new PlausibleQueryError(`Tally counts only visitors and pageviews by hour, not ${other}.`);
    if (query.dimensions.length > 1) throw new PlausibleQueryError("Tally breaks down by hour only on its own, without other dimensions.");
    if (dayNumber(scope.range.to) - dayNumber(scope.range.from) >= 31)
      throw new PlausibleQueryError("Tally breaks down by hour at most 31 days.");
    const rows: Computed[] = [];
    for (let day = scope.range.from; day <= scope.range.to; day = addDays(day, 1)) {
      const dayScope = { ...scope, range: { from: day, to: day } };
      const [visitors, pageviews] = await Promise.all([
        reader.allRows(dayScope, { name: "visitors_hours" }),
        reader.allRows(dayScope, { name: "pageviews_hours" }),
      ]);
      const hours = new Set([...visitors, ...pageviews].filter((row) => row.count > 0).map((row) => row.value));
      for (const hour of hours) {
        const count = (series: typeof visitors) => series.find((row) => row.value === hour)?.count ?? 0;
        rows.push({ dimensions: [`${day} ${hour}:00:00`], figures: { visitors: count(visitors), pageviews: count(pageviews) } });
      }
    }
    return rows;
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

  /** Every row's figures, the shares (`percentage`, `conversion_rate`) against the query's totals. */
  async function computedRows(query: PlausibleQuery, base: Scope): Promise<Computed[]> {
    const time = query.dimensions.find(isTimeDimension);
    if (time && timeUnit(time, base.range) === "hour") return hourRows(query, base);
    if (
      time &&
      query.dimensions.length === 1 &&
      timeUnit(time, base.range) === "day" &&
      query.metrics.every((metric) => TOTALS_METRICS.includes(metric))
    ) {
      return dayRows(query, base);
    }
    const rows = await reader.rowsOf(query.dimensions, base);
    const uncounted = rows.filter((row) => countedFigures(query, row) === null);
    const totals = needsTotals(query.metrics)
      ? await source.totalsOf(uncounted.map(({ scope }) => ({ ...scope.range, filter: scope.filters })))
      : [];
    const totalsOfRow = new Map(uncounted.map((row, index) => [row, totals[index]?.data]));
    const computed = await mapConcurrently(rows, async (row) => ({
      dimensions: row.dimensions,
      figures: countedFigures(query, row) ?? (await figuresOf(row.scope, query.metrics, totalsOfRow.get(row))),
    }));
    if (query.metrics.includes("percentage")) {
      const whole = (await source.totals({ ...base.range, filter: base.filters })).data.visitors;
      for (const row of computed) row.figures.percentage = percent(row.figures.visitors ?? 0, whole);
    }
    if (query.metrics.includes("conversion_rate")) {
      // The divisor: every visitor of the range, under the query's filters except the goal ones.
      const goals = query.conditions.filter((condition) => condition.dimension !== "event:goal");
      const all = await reader.baseScope(base.range, goals);
      const whole = (await source.totals({ ...all.range, filter: all.filters })).data.visitors;
      for (const row of computed) row.figures.conversion_rate ??= percent(row.figures.visitors ?? 0, whole);
    }
    return computed;
  }

  async function answer(query: PlausibleQuery, site: PlausibleSite): Promise<PlausibleAnswer> {
    const range: DayRange = await resolveDateRange(query.date_range, site.today, async () => {
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
    const base = await reader.baseScope(range, query.conditions);
    const rows = (await computedRows(query, base)).sort(compareRows(query));
    if (rows.length > MAX_ROWS) throw new PlausibleQueryError(`This breakdown has more than ${MAX_ROWS} rows.`);
    const { limit, offset } = query.pagination;
    const meta: PlausibleAnswer["meta"] = {};
    if (query.include.imports) meta.imports_included = false;
    const time = query.dimensions.find(isTimeDimension);
    if (query.include.time_labels && time) meta.time_labels = timeLabels(time, range).map((label) => label.shown);
    if (query.include.total_rows) meta.total_rows = rows.length;
    const offsetText = offsetAt(site.timezone, range.from);
    return {
      results: rows.slice(offset, offset + limit).map((row) => ({
        dimensions: row.dimensions,
        metrics: query.metrics.map((metric) => row.figures[metric] ?? 0),
      })),
      meta,
      query: {
        site_id: query.site_id,
        metrics: query.metrics,
        date_range: [`${range.from}T00:00:00${offsetText}`, `${range.to}T23:59:59${offsetAt(site.timezone, range.to)}`],
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
