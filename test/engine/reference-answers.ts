/**
 * A statistic's answer from counts, composed as docs/statistics.md says: plain rows, the
 * visit ratios by day with their range total, goals, comparison with an earlier range,
 * and the totals call. The counts come from the unfiltered model (reference-model.ts)
 * or from the visits a filter keeps (reference-segments.ts).
 */
import type { TotalFigures } from "@tally-analytics/core";
import { propertyCounter, REVENUE_CURRENCIES, revenueCounter, type Row } from "./reference-model.js";

/** Additive counts of one name over an inclusive range of local days: value → count. */
export type Counter = (name: string, from: string, to: string) => Map<string, number>;

export interface StatQuery {
  name: string;
  from: string;
  to: string;
  /** `event_property` */
  event?: string;
  property?: string;
  /** `goals`: page goals' patterns (their counts come from the segment's `goal_visitors` and `page_goal_views`). */
  goal_page?: string[];
}

export interface Answer {
  rows: Row[];
  /** `visits` and the ratios: the figure over the whole range. */
  total?: number;
}

export type CompareMode = "previous_period" | "year";

export interface ComparedAnswer extends Answer {
  previousTotal?: number;
  comparison: { from: string; to: string };
}

const sum = (counts: ReadonlyMap<string, number>) => [...counts.values()].reduce((total, count) => total + count, 0);

// The formulas of docs/statistics.md, 0 for a day or range without visits.
const bounceRate = (bounced: number, visits: number) => (visits === 0 ? 0 : Math.round((1000 * bounced) / visits) / 10);
const visitDuration = (seconds: number, visits: number) => (visits === 0 ? 0 : Math.round(seconds / visits));
const viewsPerVisit = (pageviews: number, visits: number) => (visits === 0 ? 0 : Math.round((100 * pageviews) / visits) / 100);

/** Each ratio: the count it divides by visits, and how. */
const RATIOS: Record<string, [string, (part: number, visits: number) => number]> = {
  bounce_rate: ["bounces", bounceRate],
  visit_duration: ["visit_duration", visitDuration],
  views_per_visit: ["visit_pageviews", viewsPerVisit],
};

const DAY_SERIES = new Set(["pageviews", "visitors", "visits", ...Object.keys(RATIOS)]);

const positive = (counts: ReadonlyMap<string, number>): Row[] =>
  [...counts].filter(([, count]) => count > 0).map(([value, count]) => ({ value, count }));

/** Every row of a statistic over a range (unsorted), and its total where it has one. */
export function answer(count: Counter, query: StatQuery): Answer {
  const { name, from, to } = query;
  const ratio = RATIOS[name];
  if (ratio) {
    const [partName, formula] = ratio;
    const visits = count("visits", from, to);
    const parts = count(partName, from, to);
    // Every day with visits has a row, also when its figure is 0.
    const rows = [...visits].filter(([, n]) => n > 0).map(([day, n]) => ({ value: day, count: formula(parts.get(day) ?? 0, n) }));
    return { rows, total: formula(sum(parts), sum(visits)) };
  }
  if (name === "visits") {
    const visits = count("visits", from, to);
    return { rows: positive(visits), total: sum(visits) };
  }
  if (name === "goals") {
    // Page goals' rows ("Visit <pattern>") carry their pageviews as `events`.
    const events = new Map([...count("event", from, to), ...count("page_goal_views", from, to)]);
    const everyone = sum(count("visitors", from, to));
    const rows = positive(count("goal_visitors", from, to)).map((row) => {
      const revenue = goalRevenue(count, from, to, row.value, everyone);
      return {
        ...row,
        events: events.get(row.value) ?? 0,
        conversion_rate: bounceRate(row.count, everyone),
        ...(revenue.length > 0 ? { revenue } : {}),
      };
    });
    return { rows };
  }
  if (name === "event_property") return { rows: positive(count(propertyCounter(query.event ?? "", query.property ?? ""), from, to)) };
  return { rows: positive(count(name, from, to)) };
}

/** Ten-thousandths as the currency's unit, to four decimals. */
const unit = (scaled: number) => Math.round(scaled) / 10_000;

/** A goal's revenue per currency (docs/revenue.md): the sum, the sum per event, the sum per visitor of the range. */
function goalRevenue(count: Counter, from: string, to: string, goal: string, everyone: number) {
  return REVENUE_CURRENCIES.flatMap((currency) => {
    const events = count(revenueCounter("events", currency), from, to).get(goal) ?? 0;
    if (events === 0) return [];
    const amount = count(revenueCounter("amount", currency), from, to).get(goal)!;
    return [
      {
        currency,
        total_revenue: unit(amount),
        average_revenue: unit(amount / events),
        revenue_per_visitor: everyone === 0 ? 0 : unit(amount / everyone),
        events,
      },
    ];
  });
}

const DAY_MS = 86_400_000;
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The same day a year earlier; 29 February becomes the 28th. */
export function yearBefore(day: string): string {
  const year = String(Number(day.slice(0, 4)) - 1).padStart(4, "0");
  const monthDay = day.slice(5);
  return `${year}-${monthDay === "02-29" ? "02-28" : monthDay}`;
}

/** The range a comparison reads (docs/statistics.md, "Comparison"). */
export function comparisonRange(from: string, to: string, mode: CompareMode): { from: string; to: string } {
  if (mode === "year") return { from: yearBefore(from), to: yearBefore(to) };
  const length = (dayMs(to) - dayMs(from)) / DAY_MS + 1;
  return { from: dayOf(dayMs(from) - length * DAY_MS), to: dayOf(dayMs(from) - DAY_MS) };
}

/** A statistic's rows with each one's `previous`, and the totals of both ranges. */
export function compared(count: Counter, query: StatQuery, mode: CompareMode): ComparedAnswer {
  const main = answer(count, query);
  const comparison = comparisonRange(query.from, query.to, mode);
  const before = answer(count, { ...query, ...comparison });
  const previous = new Map(before.rows.map((row) => [row.value, row.count]));
  const offset = dayMs(query.from) - dayMs(comparison.from);
  /** The value a row is compared with: the day at the same distance from the range's start, the same hour, the same value. */
  const counterpart = (value: string) => {
    if (!DAY_SERIES.has(query.name)) return value;
    return mode === "year" ? yearBefore(value) : dayOf(dayMs(value) - offset);
  };
  const rows = main.rows.map((row) => ({ ...row, previous: previous.get(counterpart(row.value)) ?? 0 }));
  return {
    rows,
    ...(main.total === undefined ? {} : { total: main.total, previousTotal: before.total! }),
    comparison,
  };
}

/** The totals call's figures for a range. */
export function totalsOf(count: Counter, from: string, to: string): TotalFigures {
  const visits = sum(count("visits", from, to));
  return {
    visitors: sum(count("visitors", from, to)),
    visits,
    pageviews: sum(count("pageviews", from, to)),
    views_per_visit: viewsPerVisit(sum(count("visit_pageviews", from, to)), visits),
    bounce_rate: bounceRate(sum(count("bounces", from, to)), visits),
    visit_duration: visitDuration(sum(count("visit_duration", from, to)), visits),
  };
}
