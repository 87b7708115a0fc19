import type { TotalFigures } from "../stats/stats.js";
import { lazy } from "../shared/lazy.js";
import type { ReportRange } from "./report-period.js";

const numbers = lazy(() => new Intl.NumberFormat("en"));
const MINUS = "\u2212";

export const formatNumber = (value: number): string => numbers().format(value);

/** `45s`, `3m 05s`, `1h 02m`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

export const formatPercent = (value: number): string => `${numbers().format(value)}%`;

/** How a figure moved against the period before: its text and whether that is good news. */
export interface Change {
  text: string;
  /** null when it did not move (or there is nothing to compare with). */
  good: boolean | null;
}

const signed = (value: number, unit: string): string =>
  value > 0 ? `+${numbers().format(value)}${unit}` : value < 0 ? `${MINUS}${numbers().format(-value)}${unit}` : `0${unit}`;

function percentChange(current: number, previous: number): Change {
  if (previous === 0) return current === 0 ? { text: "0%", good: null } : { text: "new", good: true };
  const change = Math.round(((current - previous) / previous) * 100);
  return { text: signed(change, "%"), good: change === 0 ? null : change > 0 };
}

/** A rate moves in percentage points, and a lower bounce rate is the good direction. */
function pointChange(current: number, previous: number): Change {
  const change = Math.round((current - previous) * 10) / 10;
  return { text: signed(change, " pts"), good: change === 0 ? null : change < 0 };
}

export type MetricName = "visitors" | "pageviews" | "visits" | "bounce_rate" | "visit_duration";

export interface Metric {
  name: MetricName;
  label: string;
  format(value: number): string;
  change(current: number, previous: number): Change;
}

/** The figures every report shows, in order (the totals call's names). */
export const METRICS: readonly Metric[] = [
  { name: "visitors", label: "Visitors", format: formatNumber, change: percentChange },
  { name: "pageviews", label: "Pageviews", format: formatNumber, change: percentChange },
  { name: "visits", label: "Visits", format: formatNumber, change: percentChange },
  { name: "bounce_rate", label: "Bounce rate", format: formatPercent, change: pointChange },
  { name: "visit_duration", label: "Visit duration", format: formatDuration, change: percentChange },
];

/** One metric of one website, ready to print. */
export function metricLine(metric: Metric, current: TotalFigures, previous: TotalFigures) {
  return {
    label: metric.label,
    value: metric.format(current[metric.name]),
    previous: metric.format(previous[metric.name]),
    change: metric.change(current[metric.name], previous[metric.name]),
  };
}

const dayFormat = lazy(() => new Intl.DateTimeFormat("en", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" }));
const monthFormat = lazy(() => new Intl.DateTimeFormat("en", { month: "long", year: "numeric", timeZone: "UTC" }));
const utc = (day: string) => new Date(`${day}T00:00:00Z`);

/** `Mar 16 – 22, 2026`, or `March 2026` for a whole month. */
export function rangeLabel(range: { from: string; to: string; kind?: ReportRange["kind"] }): string {
  if (range.kind === "month") return monthFormat().format(utc(range.from));
  // Intl puts thin spaces around the dash: plain ones read the same in every client and terminal.
  return dayFormat()
    .formatRange(utc(range.from), utc(range.to))
    .replace(/[\u2009\u202f]/g, " ");
}

export const periodNoun = (range: ReportRange) => (range.kind === "week" ? "week" : "month");
export const periodAdjective = (range: ReportRange) => (range.kind === "week" ? "Weekly" : "Monthly");
