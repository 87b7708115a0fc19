// One website's statistics: range, comparison and filters (all in the URL), realtime,
// totals, the chart of one figure (with the comparison range over it), hours, and cards
// whose rows filter everything on a click. The dashboard and share pages both use it.
import type { StatName } from "./api.js";
import { breakdownCard } from "./breakdown.js";
import { chart } from "./chart.js";
import { comparisonRange, formatDay, todayIn } from "./dates.js";
import { h, mount } from "./dom.js";
import { filterBar } from "./filters.js";
import { formatNumber } from "./format.js";
import { goalCards } from "./goals.js";
import { rangePicker } from "./range-picker.js";
import { byMonth, daySeries, hourSeries } from "./series.js";
import { allRows, type StatsSource } from "./source.js";
import { METRIC_INFO, totalTiles } from "./totals.js";
import { filterParams, withFilter, type Compare, type Filter, type Metric, type ViewState } from "./view-state.js";

export interface StatsViewOptions {
  source: StatsSource;
  /** The website's time zone: "today" is its today. */
  timezone: string;
  /** The page's title area (domain, links). */
  heading: Node;
  state: ViewState;
  /** Asked for a new state (the caller puts it in the URL, then calls setState). */
  onState(state: ViewState): void;
  /** More controls beside the range (export). */
  tools?: Node;
}

export interface StatsView {
  element: HTMLElement;
  setState(state: ViewState): void;
  state(): ViewState;
  destroy(): void;
}

/** Longer ranges are charted by month (counts; ratios stay daily). */
const MAX_DAILY_POINTS = 93;
const REALTIME_EVERY_MS = 30_000;
const COMPARE_LABELS: Readonly<Record<Compare, string>> = { "": "No comparison", previous_period: "Previous period", year: "Year before" };

type Tab = [StatName, string, string];
const CARDS: ReadonlyArray<[string, readonly Tab[]]> = [
  ["Pages", [["page", "Pages", "Pageviews"], ["landing_page", "Entry pages", "Visits"], ["exit_page", "Exit pages", "Visits"]]],
  ["Sources", [["referrer", "Referrers", "Visits"], ["utm_source", "Source", "Visits"], ["utm_medium", "Medium", "Visits"], ["campaign", "Campaign", "Visits"], ["utm_content", "Content", "Visits"], ["utm_term", "Term", "Visits"]]],
  ["Locations", [["country", "Countries", "Visitors"], ["continent", "Continents", "Visitors"], ["city", "Cities", "Visitors"]]],
  ["Devices", [["browser", "Browsers", "Visitors"], ["os", "OS", "Visitors"], ["device", "Devices", "Visitors"]]],
  ["Screens and languages", [["resolution", "Screen sizes", "Visitors"], ["language", "Languages", "Visitors"]]],
];
const HOUR_SERIES = [
  { label: "Visitors", className: "series-0" },
  { label: "Pageviews", className: "series-1" },
] as const;

export function statsView(options: StatsViewOptions): StatsView {
  const { source, timezone } = options;
  let state = options.state;
  let request = 0;
  const query = () => ({ from: state.range.from, to: state.range.to, filter: filterParams(state) });
  const change = (next: Partial<ViewState>) => options.onState({ ...state, ...next });
  const addFilter = (filter: Filter) => change({ filters: withFilter(state.filters, filter) });

  const picker = h("div", { class: "picker-slot" });
  const compare = h(
    "select",
    { "aria-label": "Compare with", name: "compare", onchange: () => change({ compare: compare.value as Compare }) },
    ...(Object.keys(COMPARE_LABELS) as Compare[]).map((value) => h("option", { value }, COMPARE_LABELS[value])),
  );
  const filters = h("div", { class: "filter-slot" });
  const realtime = h("span", { class: "realtime", title: "Visitors in the last 5 minutes" }, "…");
  const totals = totalTiles((metric) => change({ metric }));
  const mainChart = h("div", { class: "chart-slot main-chart", "aria-busy": "true" });
  const hoursChart = h("div", { class: "chart-slot hours-chart", "aria-busy": "true" });
  const cards = CARDS.map(([title, tabs]) => breakdownCard(title, tabs.map(([name, label, unit]) => ({ name, label, unit })), source, addFilter));
  const goals = goalCards(source, addFilter);
  const element = h(
    "main",
    { class: "site" },
    h("div", { class: "toolbar" }, h("div", { class: "heading" }, options.heading, realtime), h("div", { class: "controls" }, picker, compare, options.tools)),
    filters,
    h("section", { class: "card overview", "aria-label": "Totals and chart" }, totals.element, mainChart),
    h("section", { class: "card", "aria-label": "By hour of day" }, h("header", {}, h("h2", {}, "By hour of day")), hoursChart),
    h("div", { class: "cards" }, ...cards.map((card) => card.element), ...goals.elements),
  );

  async function loadMain(mine: number): Promise<void> {
    const { range, metric } = state;
    const info = METRIC_INFO[metric];
    const previousRange = state.compare ? comparisonRange(range, state.compare) : null;
    const [rows, previousRows, figures] = await Promise.all([
      allRows(source, { ...query(), name: metric }),
      previousRange ? allRows(source, { ...query(), ...previousRange, name: metric }) : null,
      source.totals({ ...query(), ...(state.compare ? { compare: state.compare } : {}) }),
    ]);
    if (mine !== request) return;
    totals.set(figures.data, figures.previous);
    let points = daySeries(range.from, range.to, [rows]);
    let previous = previousRange ? daySeries(previousRange.from, previousRange.to, [previousRows ?? []]) : null;
    const monthly = points.length > MAX_DAILY_POINTS && ["visitors", "visits", "pageviews"].includes(metric);
    if (monthly) {
      points = byMonth(points);
      previous = previous && byMonth(previous);
    }
    if (previous) points = points.map((point, i) => ({ key: point.key, values: [...point.values, previous[i]?.values[0] ?? 0] }));
    const series = [{ label: info.label, className: "series-0" }];
    if (state.compare) series.push({ label: COMPARE_LABELS[state.compare], className: "series-prev" });
    mount(
      mainChart,
      chart(points, {
        kind: points.length > 31 ? "line" : "bar",
        series,
        legend: Boolean(state.compare),
        caption: `${info.label} by ${monthly ? "month" : "day"}${state.compare ? `, with the ${COMPARE_LABELS[state.compare].toLowerCase()}` : ""}`,
        label: formatDay,
        format: info.format,
      }),
    );
  }

  async function loadHours(mine: number): Promise<void> {
    const [visitors, pageviews] = await Promise.all((["visitors_hours", "pageviews_hours"] as const).map((name) => allRows(source, { ...query(), name })));
    if (mine !== request) return;
    mount(hoursChart, chart(hourSeries([visitors ?? [], pageviews ?? []]), { kind: "bar", series: HOUR_SERIES, caption: "Visitors and pageviews by hour of day", label: (hour) => `${hour}:00` }));
  }

  async function loading(slot: HTMLElement, mine: number, load: (mine: number) => Promise<void>): Promise<void> {
    slot.setAttribute("aria-busy", "true");
    try {
      await load(mine);
    } catch (error) {
      if (mine === request) mount(slot, h("p", { class: "error" }, error instanceof Error ? error.message : "Could not load."));
    } finally {
      if (mine === request) slot.removeAttribute("aria-busy");
    }
  }

  async function refreshRealtime(): Promise<void> {
    try {
      const count = await source.realtime();
      realtime.textContent = `${formatNumber(count)} ${count === 1 ? "visitor" : "visitors"} now`;
      realtime.dataset.count = String(count);
    } catch {
      realtime.textContent = "";
    }
  }

  function setState(next: ViewState): void {
    state = next;
    const mine = ++request;
    mount(picker, rangePicker(state.range, todayIn(timezone), (range) => change({ range })));
    compare.value = state.compare;
    totals.select(state.metric);
    mount(filters, filterBar(state.filters, (list) => change({ filters: list })));
    void loading(mainChart, mine, loadMain);
    void loading(hoursChart, mine, loadHours);
    for (const card of [...cards, goals]) card.load(query());
  }

  setState(state);
  void refreshRealtime();
  const timer = setInterval(() => void refreshRealtime(), REALTIME_EVERY_MS);
  return { element, setState, state: () => state, destroy: () => clearInterval(timer) };
}
