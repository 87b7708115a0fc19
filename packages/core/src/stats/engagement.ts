import { VITALS, type Vital } from "../model/hit-input.js";
import type { EngagementStatistic } from "../model/stat-names.js";
import type { StatRow } from "../model/stats-schemas.js";

/** One stored engagement signal of a visit that starts in the range and matches the filters. */
export interface EngagementSignal {
  visit: number;
  page: string;
  engagedMs: number;
  scrollDepth: number | null;
  vitals: Record<Vital, number | null>;
}

/** The published thresholds (web.dev): good up to the first, poor above the second. */
export const VITAL_THRESHOLDS: Record<Vital, readonly [good: number, poor: number]> = {
  lcp: [2500, 4000],
  inp: [200, 500],
  cls: [0.1, 0.25],
  fcp: [1800, 3000],
  ttfb: [800, 1800],
};

/** One decimal, as the ratios round. */
const tenth = (value: number) => Math.round(value * 10) / 10;
const percent = (part: number, whole: number) => (whole === 0 ? 0 : tenth((100 * part) / whole));
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The middle value; the mean of the two middle ones when there is an even number. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The 75th percentile by nearest rank: the value at rank ⌈0.75 n⌉ of the sorted values. */
export function p75(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(0.75 * sorted.length) - 1]!;
}

/** What one visit did on one page: its deepest scroll (null: never sent) and its engaged milliseconds. */
export interface VisitPage {
  page: string;
  scrollDepth: number | null;
  engagedMs: number;
}

/** The signals summed per (visit, page): engaged milliseconds added up, the deepest scroll kept. */
export function visitPages(signals: readonly Pick<EngagementSignal, "visit" | "page" | "engagedMs" | "scrollDepth">[]): VisitPage[] {
  const byVisitPage = new Map<string, VisitPage>();
  for (const signal of signals) {
    const key = `${signal.visit}\u0000${signal.page}`;
    let seen = byVisitPage.get(key);
    if (!seen) byVisitPage.set(key, (seen = { page: signal.page, scrollDepth: null, engagedMs: 0 }));
    seen.engagedMs += signal.engagedMs;
    if (signal.scrollDepth !== null) seen.scrollDepth = Math.max(seen.scrollDepth ?? 0, signal.scrollDepth);
  }
  return [...byVisitPage.values()];
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string, valueOf: (item: T) => number | null): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const item of items) {
    const value = valueOf(item);
    if (value === null) continue;
    const key = keyOf(item);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(value);
  }
  return groups;
}

/** A vital's figures over its measurements: p75 and the shares of good, needs-improvement and poor. */
function vitalFigures(vital: Vital, values: readonly number[]) {
  if (values.length === 0) return null;
  const [good, poor] = VITAL_THRESHOLDS[vital];
  const goodCount = values.filter((value) => value <= good).length;
  const poorCount = values.filter((value) => value > poor).length;
  return {
    count: values.length,
    p75: p75(values),
    good: percent(goodCount, values.length),
    needs_improvement: percent(values.length - goodCount - poorCount, values.length),
    poor: percent(poorCount, values.length),
  };
}

export type VitalFigures = NonNullable<ReturnType<typeof vitalFigures>>;

/** A statistic's rows (unsorted) and its figure over every page where it has one. */
export interface EngagementAnswer {
  rows: StatRow[];
  rangeTotal?: number;
}

/**
 * `scroll_depth`: per page, the visits that sent a scroll depth there, and the average and
 * median of each visit's deepest. `time_on_page`: per page, the visits that engaged there
 * (more than 0 ms) and their mean engaged seconds. `vitals`: per page, the signals that
 * carried vitals, and each vital's figures.
 */
export function engagementRows(name: EngagementStatistic, signals: readonly EngagementSignal[]): EngagementAnswer {
  if (name === "vitals") {
    const measured = signals.filter((signal) => VITALS.some((vital) => signal.vitals[vital] !== null));
    const byPage = new Map<string, EngagementSignal[]>();
    for (const signal of measured) {
      const list = byPage.get(signal.page);
      if (list) list.push(signal);
      else byPage.set(signal.page, [signal]);
    }
    const rows = [...byPage].map(([page, pageSignals]): StatRow => {
      const vitals = Object.fromEntries(
        VITALS.map((vital) => [
          vital,
          vitalFigures(
            vital,
            pageSignals.flatMap((signal) => signal.vitals[vital] ?? []),
          ),
        ]),
      ) as Record<Vital, VitalFigures | null>;
      return { value: page, count: pageSignals.length, vitals };
    });
    return { rows };
  }
  const pages = visitPages(signals);
  if (name === "scroll_depth") {
    const depths = groupBy(
      pages,
      (seen) => seen.page,
      (seen) => seen.scrollDepth,
    );
    const all = [...depths.values()].flat();
    return {
      rows: [...depths].map(([page, values]) => ({
        value: page,
        count: values.length,
        average: tenth(mean(values)),
        median: median(values),
      })),
      rangeTotal: all.length === 0 ? 0 : tenth(mean(all)),
    };
  }
  // Summed in whole milliseconds (exact in any order), divided once.
  const engaged = groupBy(
    pages,
    (seen) => seen.page,
    (seen) => (seen.engagedMs > 0 ? seen.engagedMs : null),
  );
  const all = [...engaged.values()].flat();
  return {
    rows: [...engaged].map(([page, values]) => ({ value: page, count: values.length, seconds: tenth(mean(values) / 1000) })),
    rangeTotal: all.length === 0 ? 0 : tenth(mean(all) / 1000),
  };
}
