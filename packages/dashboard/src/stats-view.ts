// One website's statistics: range picker, realtime, totals, day and hour charts, breakdown cards.
// Used by the dashboard (account API) and by share pages (their public API) alike.
import { breakdownCard, type BreakdownCard } from "./breakdown.js";
import { chart } from "./chart.js";
import { formatDay, todayIn, type Range } from "./dates.js";
import { h, mount } from "./dom.js";
import { formatNumber } from "./format.js";
import { rangePicker } from "./range-picker.js";
import { byMonth, daySeries, hourSeries, total } from "./series.js";
import type { StatName } from "./api.js";
import { allRows, type StatsSource } from "./source.js";

export interface StatsViewOptions {
  source: StatsSource;
  /** The website's time zone: "today" is its today. */
  timezone: string;
  /** The page's title area (domain, links). */
  heading: Node;
  range: Range;
  onRange(range: Range): void;
}

export interface StatsView {
  element: HTMLElement;
  setRange(range: Range): void;
  destroy(): void;
}

const SERIES = [
  { label: "Visitors", className: "series-0" },
  { label: "Pageviews", className: "series-1" },
] as const;

/** Longer ranges are charted by month. */
const MAX_DAILY_POINTS = 93;
const REALTIME_EVERY_MS = 30_000;

const CARDS: ReadonlyArray<[string, ReadonlyArray<[StatName, string, string]>]> = [
  ["Pages", [["page", "Pages", "Pageviews"], ["landing_page", "Landing pages", "Visits"]]],
  ["Sources", [["referrer", "Referrers", "Visits"], ["campaign", "Campaigns", "Visits"]]],
  ["Locations", [["country", "Countries", "Visitors"], ["continent", "Continents", "Visitors"], ["city", "Cities", "Visitors"]]],
  ["Devices", [["browser", "Browsers", "Visitors"], ["os", "OS", "Visitors"], ["device", "Devices", "Visitors"]]],
  ["Screens and languages", [["resolution", "Resolutions", "Visitors"], ["language", "Languages", "Visitors"]]],
  ["Events", [["event", "Events", "Events"]]],
];

function totalTile(name: string, label: string): { element: HTMLElement; set(value: number): void } {
  const value = h("strong", {}, "–");
  return {
    element: h("div", { class: "total", "data-total": name }, h("span", {}, label), value),
    set(count) {
      value.textContent = formatNumber(count);
      value.dataset.count = String(count);
    },
  };
}

export function statsView(options: StatsViewOptions): StatsView {
  const { source, timezone } = options;
  let range = options.range;
  let request = 0;
  const picker = h("div", { class: "picker-slot" });
  const realtime = h("span", { class: "realtime", title: "Visitors in the last 5 minutes" }, "…");
  const visitors = totalTile("visitors", "Visitors");
  const pageviews = totalTile("pageviews", "Pageviews");
  const views = totalTile("views_per_visitor", "Views per visitor");
  const mainChart = h("div", { class: "chart-slot", "aria-busy": "true" });
  const hoursChart = h("div", { class: "chart-slot", "aria-busy": "true" });
  const cards: BreakdownCard[] = CARDS.map(([title, tabs]) =>
    breakdownCard(title, tabs.map(([name, label, unit]) => ({ name, label, unit })), source),
  );
  const element = h(
    "main",
    { class: "site" },
    h("div", { class: "toolbar" }, h("div", { class: "heading" }, options.heading, realtime), picker),
    h("section", { class: "card overview" }, h("div", { class: "totals" }, visitors.element, pageviews.element, views.element), mainChart),
    h("section", { class: "card" }, h("header", {}, h("h2", {}, "By hour of day")), hoursChart),
    h("div", { class: "cards" }, ...cards.map((card) => card.element)),
  );

  async function loadCharts(): Promise<void> {
    const mine = ++request;
    const query = { from: range.from, to: range.to };
    mainChart.setAttribute("aria-busy", "true");
    hoursChart.setAttribute("aria-busy", "true");
    try {
      const [dayVisitors, dayViews, hourVisitors, hourViews] = await Promise.all(
        (["visitors", "pageviews", "visitors_hours", "pageviews_hours"] as const).map((name) => allRows(source, { ...query, name })),
      );
      if (mine !== request || !dayVisitors || !dayViews || !hourVisitors || !hourViews) return;
      visitors.set(total(dayVisitors));
      pageviews.set(total(dayViews));
      const ratio = total(dayVisitors) === 0 ? 0 : total(dayViews) / total(dayVisitors);
      views.set(Math.round(ratio * 100) / 100);
      const days = daySeries(range.from, range.to, [dayVisitors, dayViews]);
      const monthly = days.length > MAX_DAILY_POINTS;
      const points = monthly ? byMonth(days) : days;
      mount(
        mainChart,
        chart(points, {
          kind: points.length > 31 ? "line" : "bar",
          series: SERIES,
          legend: false,
          caption: monthly ? "Visitors and pageviews by month" : "Visitors and pageviews by day",
          label: formatDay,
        }),
      );
      mount(hoursChart, chart(hourSeries([hourVisitors, hourViews]), { kind: "bar", series: SERIES, caption: "Visitors and pageviews by hour of day", label: (hour) => `${hour}:00` }));
    } catch (error) {
      if (mine === request) mount(mainChart, h("p", { class: "error" }, error instanceof Error ? error.message : "Could not load."));
    } finally {
      if (mine === request) {
        mainChart.removeAttribute("aria-busy");
        hoursChart.removeAttribute("aria-busy");
      }
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

  function setRange(next: Range): void {
    range = next;
    mount(picker, rangePicker(range, todayIn(timezone), options.onRange));
    void loadCharts();
    for (const card of cards) card.load(range);
  }

  setRange(range);
  void refreshRealtime();
  const timer = setInterval(() => void refreshRealtime(), REALTIME_EVERY_MS);
  return { element, setRange, destroy: () => clearInterval(timer) };
}
