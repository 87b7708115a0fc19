// The top figures of a range, each against the comparison range when there is one; each
// tile is a button that puts its figure on the main chart.
import type { TotalFigures } from "./api.js";
import { h } from "./dom.js";
import { formatDuration, formatNumber, formatPercent } from "./format.js";
import type { Metric } from "./view-state.js";

export const METRIC_INFO: Readonly<Record<Metric, { label: string; format(value: number): string }>> = {
  visitors: { label: "Visitors", format: formatNumber },
  visits: { label: "Visits", format: formatNumber },
  pageviews: { label: "Pageviews", format: formatNumber },
  views_per_visit: { label: "Views per visit", format: (value) => value.toFixed(2) },
  bounce_rate: { label: "Bounce rate", format: formatPercent },
  visit_duration: { label: "Visit duration", format: formatDuration },
};

/**
 * `↑ 12%`, or for the bounce rate the move in percentage points (`↓ 3.5 pp`). `good` says
 * whether the move is welcome: more of everything, fewer bounces.
 */
export function change(metric: Metric, current: number, previous: number): { text: string; label: string; good: boolean | null } {
  const points = metric === "bounce_rate";
  const delta = points ? Math.round((current - previous) * 10) / 10 : previous === 0 ? null : Math.round(((current - previous) / previous) * 100);
  if (delta === null) return current === 0 ? { text: "–", label: "no change", good: null } : { text: "new", label: "none before", good: true };
  const unit = points ? " pp" : "%";
  const arrow = delta > 0 ? "↑" : delta < 0 ? "↓" : "";
  const text = `${arrow} ${Math.abs(delta)}${unit}`.trim();
  return { text, label: `${delta > 0 ? "up" : delta < 0 ? "down" : "unchanged"} ${Math.abs(delta)}${points ? " percentage points" : "%"}`, good: delta === 0 ? null : (delta > 0) !== points };
}

export interface TotalTiles {
  element: HTMLElement;
  set(data: TotalFigures, previous: TotalFigures | undefined): void;
  select(metric: Metric): void;
}

export function totalTiles(onSelect: (metric: Metric) => void): TotalTiles {
  const tiles = (Object.keys(METRIC_INFO) as Metric[]).map((metric) => {
    const value = h("strong", {}, "–");
    const delta = h("small", { class: "change" });
    const button = h("button", { type: "button", class: "total", "data-total": metric, "aria-pressed": "false", onclick: () => onSelect(metric) }, h("span", {}, METRIC_INFO[metric].label), value, delta);
    return { metric, button, value, delta };
  });
  return {
    element: h("div", { class: "totals", role: "group", "aria-label": "Totals (choose the chart's figure)" }, ...tiles.map((tile) => tile.button)),
    set(data, previous) {
      for (const { metric, value, delta } of tiles) {
        value.textContent = METRIC_INFO[metric].format(data[metric]);
        value.dataset.count = String(data[metric]);
        delta.replaceChildren();
        delete delta.dataset.previous;
        delta.className = "change";
        if (!previous) continue;
        const moved = change(metric, data[metric], previous[metric]);
        delta.textContent = moved.text;
        delta.title = `${moved.label}; before: ${METRIC_INFO[metric].format(previous[metric])}`;
        delta.dataset.previous = String(previous[metric]);
        if (moved.good !== null) delta.classList.add(moved.good ? "good" : "bad");
      }
    },
    select(metric) {
      for (const tile of tiles) tile.button.setAttribute("aria-pressed", String(tile.metric === metric));
    },
  };
}
