/**
 * The engagement statistics (docs/statistics.md, "Engagement") computed by brute force
 * from the model's visits and the signals that joined them, written from the docs, not
 * from the engine's code.
 */
import { comparisonRange, type CompareMode, type ComparedAnswer } from "./reference-answers.js";
import type { ModelVisit, Row } from "./reference-model.js";

const VITALS = ["lcp", "inp", "cls", "fcp", "ttfb"] as const;
/** Good up to the first, poor above the second (web.dev's published thresholds). */
const THRESHOLDS: Record<(typeof VITALS)[number], [number, number]> = {
  lcp: [2500, 4000],
  inp: [200, 500],
  cls: [0.1, 0.25],
  fcp: [1800, 3000],
  ttfb: [800, 1800],
};

const oneDecimal = (x: number) => Math.round(x * 10) / 10;
const sumOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function middle(values: number[]): number {
  values.sort((a, b) => a - b);
  const n = values.length;
  return n % 2 === 1 ? values[(n - 1) / 2]! : (values[n / 2 - 1]! + values[n / 2]!) / 2;
}

function nearestRank75(values: number[]): number {
  values.sort((a, b) => a - b);
  return values[Math.ceil((values.length * 75) / 100) - 1]!;
}

/** Expected rows (unsorted) and range total of scroll_depth, time_on_page or vitals over the visits started in [from, to]. */
export function engagementAnswer(visits: readonly ModelVisit[], name: string, from: string, to: string): { rows: Row[]; total?: number } {
  const inRange = visits.filter((visit) => visit.day >= from && visit.day <= to);
  if (name === "vitals") {
    const byPage = new Map<string, Record<string, number>[]>();
    for (const visit of inRange)
      for (const signal of visit.signals) {
        const measured = signal.vitals && VITALS.some((vital) => signal.vitals![vital] !== undefined) ? signal.vitals : null;
        if (measured) byPage.set(signal.page, [...(byPage.get(signal.page) ?? []), measured]);
      }
    const rows = [...byPage].map(([page, list]) => {
      const vitals: Record<string, unknown> = {};
      for (const vital of VITALS) {
        const values = list.map((measured) => measured[vital]).filter((value): value is number => value !== undefined);
        if (values.length === 0) {
          vitals[vital] = null;
          continue;
        }
        const [good, poor] = THRESHOLDS[vital];
        const share = (n: number) => oneDecimal((100 * n) / values.length);
        const goodCount = values.filter((value) => value <= good).length;
        const poorCount = values.filter((value) => value > poor).length;
        vitals[vital] = {
          count: values.length,
          p75: nearestRank75([...values]),
          good: share(goodCount),
          needs_improvement: share(values.length - goodCount - poorCount),
          poor: share(poorCount),
        };
      }
      return { value: page, count: list.length, vitals };
    });
    return { rows };
  }
  // Per visit and page: the deepest scroll sent there, and the engaged milliseconds summed.
  const perPage = new Map<string, number[]>();
  for (const visit of inRange) {
    const deepest = new Map<string, number>();
    const engaged = new Map<string, number>();
    for (const signal of visit.signals) {
      engaged.set(signal.page, (engaged.get(signal.page) ?? 0) + signal.engagedMs);
      if (signal.scrollDepth !== undefined) deepest.set(signal.page, Math.max(deepest.get(signal.page) ?? 0, signal.scrollDepth));
    }
    const figures = name === "scroll_depth" ? deepest : new Map([...engaged].filter(([, ms]) => ms > 0));
    for (const [page, value] of figures) perPage.set(page, [...(perPage.get(page) ?? []), value]);
  }
  const all = [...perPage.values()].flat();
  if (name === "scroll_depth") {
    return {
      rows: [...perPage].map(([page, values]) => ({
        value: page,
        count: values.length,
        average: oneDecimal(sumOf(values) / values.length),
        median: middle([...values]),
      })),
      total: all.length === 0 ? 0 : oneDecimal(sumOf(all) / all.length),
    };
  }
  return {
    rows: [...perPage].map(([page, values]) => ({
      value: page,
      count: values.length,
      seconds: oneDecimal(sumOf(values) / values.length / 1000),
    })),
    total: all.length === 0 ? 0 : oneDecimal(sumOf(all) / all.length / 1000),
  };
}

/** The same compared: each row's `previous` count and `previous_figure`, and the previous range total. */
export function engagementCompared(
  visits: readonly ModelVisit[],
  name: string,
  from: string,
  to: string,
  mode: CompareMode,
): ComparedAnswer {
  const main = engagementAnswer(visits, name, from, to);
  const comparison = comparisonRange(from, to, mode);
  const before = engagementAnswer(visits, name, comparison.from, comparison.to);
  const previous = new Map(before.rows.map((row) => [row.value, row]));
  const rows = main.rows.map((row) => {
    const old = previous.get(row.value);
    const figure = old?.average ?? old?.seconds;
    return { ...row, previous: old?.count ?? 0, ...(figure === undefined ? {} : { previous_figure: figure }) };
  });
  return { rows, comparison, ...(main.total === undefined ? {} : { total: main.total, previousTotal: before.total }) };
}
