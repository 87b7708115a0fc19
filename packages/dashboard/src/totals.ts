// The top figures of a range, each against the comparison range when there is one; each
// tile is a button that puts its figure on the main chart.
import type { TotalFigures } from "./api.js";
import { h } from "./dom.js";
import { formatDecimal, formatDuration, formatNumber, formatPercent } from "./format.js";
import { t } from "./i18n.js";
import type { MessageKey } from "./messages.js";
import type { Metric } from "./view-state.js";

export const METRIC_INFO: Readonly<Record<Metric, { label: MessageKey; format(value: number): string }>> = {
  visitors: { label: "metric.visitors", format: formatNumber },
  visits: { label: "metric.visits", format: formatNumber },
  pageviews: { label: "metric.pageviews", format: formatNumber },
  views_per_visit: { label: "metric.viewsPerVisit", format: formatDecimal },
  bounce_rate: { label: "metric.bounceRate", format: formatPercent },
  visit_duration: { label: "metric.visitDuration", format: formatDuration },
};

/** What a change says: its text, what a screen reader hears, whether it is welcome (null: neither). */
export interface Change {
  text: string;
  label: string;
  good: boolean | null;
}

/** The period compared with had no visits: nothing to compare any figure with. */
const NOTHING_BEFORE = (): Change => ({ text: "—", label: t("change.noVisitsBefore"), good: null });

/**
 * `↑ 12%`, or for the bounce rate the move in percentage points (`↓ 3.5 pp`). `good` says
 * whether the move is welcome: more of everything, fewer bounces. Against a period
 * without visits there is nothing to compare: `—`.
 */
export function change(metric: Metric, current: number, previous: number, previousVisits = 1): Change {
  if (previousVisits === 0) return NOTHING_BEFORE();
  const points = metric === "bounce_rate";
  const delta = points
    ? Math.round((current - previous) * 10) / 10
    : previous === 0
      ? null
      : Math.round(((current - previous) / previous) * 100);
  if (delta === null)
    return current === 0
      ? { text: "–", label: t("change.none"), good: null }
      : { text: t("change.new"), label: t("change.noneBefore"), good: true };
  const unit = points ? " pp" : "%";
  const arrow = delta > 0 ? "↑" : delta < 0 ? "↓" : "";
  const text = `${arrow} ${Math.abs(delta)}${unit}`.trim();
  const amount = `${Math.abs(delta)}${points ? ` ${t("change.points")}` : "%"}`;
  const label = t(delta > 0 ? "change.up" : delta < 0 ? "change.down" : "change.same", { amount });
  return { text, label, good: delta === 0 ? null : delta > 0 !== points };
}

export interface TotalTiles {
  element: HTMLElement;
  set(data: TotalFigures, previous: TotalFigures | undefined): void;
  select(metric: Metric): void;
}

export function totalTiles(onSelect: (metric: Metric) => void): TotalTiles {
  const tiles = (Object.keys(METRIC_INFO) as Metric[]).map((metric) => {
    const value = h("strong", {}, h("span", { class: "skeleton" }));
    const delta = h("small", { class: "change" });
    const button = h(
      "button",
      { type: "button", class: "total", "data-total": metric, "aria-pressed": "false", onclick: () => onSelect(metric) },
      h("span", {}, t(METRIC_INFO[metric].label)),
      value,
      delta,
    );
    return { metric, button, value, delta };
  });
  return {
    element: h("div", { class: "totals", role: "group", "aria-label": t("totals.label") }, ...tiles.map((tile) => tile.button)),
    set(data, previous) {
      for (const { metric, value, delta } of tiles) {
        value.textContent = METRIC_INFO[metric].format(data[metric]);
        value.dataset.count = String(data[metric]);
        delta.replaceChildren();
        delete delta.dataset.previous;
        delta.className = "change";
        if (!previous) continue;
        const moved = change(metric, data[metric], previous[metric], previous.visits);
        delta.textContent = moved.text;
        delta.title =
          previous.visits === 0
            ? moved.label
            : `${moved.label}; ${t("change.before", { value: METRIC_INFO[metric].format(previous[metric]) })}`;
        delta.dataset.previous = String(previous[metric]);
        if (moved.good !== null) delta.classList.add(moved.good ? "good" : "bad");
      }
    },
    select(metric) {
      for (const tile of tiles) tile.button.setAttribute("aria-pressed", String(tile.metric === metric));
    },
  };
}
