import { fromScaled, type RevenueSum } from "../model/revenue.js";
import type { RevenueMetric } from "./plausible-query.js";

/** A revenue metric's figure in Plausible's shape: `$1.2K`, `$1,234.50`, 1234.5, `USD`. */
export interface RevenueFigure {
  short: string;
  long: string;
  value: number;
  currency: string;
}

/** Why a row's revenue metric is null, in Plausible's codes (`meta.metric_warnings`). */
export type RevenueWarning = "no_single_revenue_currency" | "no_revenue_goals_matching";

const WARNINGS: Readonly<Record<RevenueWarning, string>> = {
  no_single_revenue_currency:
    "Revenue metrics are null where the events counted carried several currencies: Tally sums each currency apart and converts none.",
  no_revenue_goals_matching: "Revenue metrics are null as no event counted carried revenue.",
};

/** One row's revenue metrics: null without revenue, or with revenue in more than one currency (`mixed`). */
export interface RowRevenue {
  figures: Partial<Record<RevenueMetric, RevenueFigure | null>>;
  mixed: boolean;
}

function figure(value: number, currency: string): RevenueFigure {
  const long = new Intl.NumberFormat("en-US", { style: "currency", currency }).format(value);
  const short = new Intl.NumberFormat("en-US", { style: "currency", currency, notation: "compact", maximumFractionDigits: 1 }).format(
    value,
  );
  return { short, long, value, currency };
}

/** A scope's revenue metrics from its sums per event and currency. */
export function rowRevenue(sums: readonly RevenueSum[], metrics: readonly RevenueMetric[]): RowRevenue {
  const byCurrency = new Map<string, { amount: number; events: number }>();
  for (const { currency, amount, events } of sums) {
    const found = byCurrency.get(currency) ?? { amount: 0, events: 0 };
    byCurrency.set(currency, { amount: found.amount + amount, events: found.events + events });
  }
  const [only, ...others] = [...byCurrency];
  const figures: RowRevenue["figures"] = {};
  for (const metric of metrics) {
    if (!only || others.length > 0) figures[metric] = null;
    else {
      const [currency, { amount, events }] = only;
      figures[metric] = figure(fromScaled(metric === "total_revenue" ? amount : amount / events), currency);
    }
  }
  return { figures, mixed: others.length > 0 };
}

/** `meta.metric_warnings` of the revenue metrics asked: several currencies in a row, or no revenue in any. */
export function revenueWarnings(
  rows: readonly RowRevenue[],
  metrics: readonly RevenueMetric[],
): Record<string, { code: RevenueWarning; warning: string }> | undefined {
  if (metrics.length === 0) return undefined;
  const code: RevenueWarning | null = rows.some((row) => row.mixed)
    ? "no_single_revenue_currency"
    : rows.every((row) => metrics.every((metric) => row.figures[metric] === null))
      ? "no_revenue_goals_matching"
      : null;
  if (code === null) return undefined;
  return Object.fromEntries(metrics.map((metric) => [metric, { code, warning: WARNINGS[code] }]));
}
