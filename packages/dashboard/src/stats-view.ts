// One website's statistics: range, comparison and filters (all in the URL), realtime,
// totals, the chart of one figure (by hour for a single day, with the comparison range
// over it), hours, and cards whose rows filter everything on a click. The dashboard and
// share pages both use it.
import { isApiError, type Annotation, type Client, type StatName, type StatRow } from "./api.js";
import { annotationsPanel } from "./annotations.js";
import { breakdownCard, type BreakdownTab, type CardQuery, type ExtraRow } from "./breakdown.js";
import { chart } from "./chart.js";
import { engagementTabs } from "./engagement.js";
import { comparisonRange, formatDay, todayIn } from "./dates.js";
import { h, mount } from "./dom.js";
import { filterBar, filterText, NO_VALUE } from "./filters.js";
import { formatNumber } from "./format.js";
import { goalCards } from "./goals.js";
import { plural, t } from "./i18n.js";
import type { MessageKey } from "./messages.js";
import { rangeLabel, rangePicker } from "./range-picker.js";
import { byMonth, daySeries, hourSeries, total, type Point } from "./series.js";
import { allRows, type StatsSource } from "./source.js";
import { METRIC_INFO, totalTiles } from "./totals.js";
import { segmentsMenu, type Viewer } from "./segments.js";
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
  /** Cards read through the account's API only (funnels and journeys), after the others. */
  paths?: { elements: HTMLElement[]; load(query: CardQuery): void };
  /** The account's website (share pages have none): saved segments, annotations, the team's goals, the live view. */
  account?: { client: Client; websiteId: number; viewer: Viewer };
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
const COMPARE_LABELS: Readonly<Record<Compare, MessageKey>> = {
  "": "compare.none",
  previous_period: "compare.previous",
  year: "compare.year",
};
const COUNTS: ReadonlySet<Metric> = new Set(["visitors", "visits", "pageviews"]);
/** Hour series the API keeps; the other figures are charted by hour through visitors. */
const HOURLY: Partial<Record<Metric, StatName>> = { visitors: "visitors_hours", pageviews: "pageviews_hours" };
/** What Direct / None stands for in the referrers' list (no value of the statistic has it). */
const DIRECT = "(direct)";

type Tab = [StatName, MessageKey, MessageKey];
const CARDS: ReadonlyArray<[MessageKey, readonly Tab[]]> = [
  [
    "card.pages",
    [
      ["page", "tab.pages", "unit.pageviews"],
      ["landing_page", "tab.entryPages", "unit.visits"],
      ["exit_page", "tab.exitPages", "unit.visits"],
      ["hostname", "tab.hostnames", "unit.pageviews"],
    ],
  ],
  [
    "card.acquisition",
    [
      ["channel", "tab.channels", "unit.visits"],
      ["source", "tab.sources", "unit.visits"],
    ],
  ],
  [
    "card.sources",
    [
      ["referrer", "tab.referrers", "unit.visits"],
      ["utm_source", "tab.utmSource", "unit.visits"],
      ["utm_medium", "tab.utmMedium", "unit.visits"],
      ["campaign", "tab.utmCampaign", "unit.visits"],
      ["utm_content", "tab.utmContent", "unit.visits"],
      ["utm_term", "tab.utmTerm", "unit.visits"],
    ],
  ],
  [
    "card.locations",
    [
      ["country", "tab.countries", "unit.visitors"],
      ["continent", "tab.continents", "unit.visitors"],
      ["region", "tab.regions", "unit.visitors"],
      ["city", "tab.cities", "unit.visitors"],
    ],
  ],
  [
    "card.devices",
    [
      ["browser", "tab.browsers", "unit.visitors"],
      ["os", "tab.os", "unit.visitors"],
      ["device", "tab.devices", "unit.visitors"],
      ["browser_version", "tab.browserVersions", "unit.visitors"],
      ["os_version", "tab.osVersions", "unit.visitors"],
    ],
  ],
  [
    "card.screens",
    [
      ["resolution", "tab.screens", "unit.visitors"],
      ["language", "tab.languages", "unit.visitors"],
    ],
  ],
  [
    "card.engagement",
    [
      ["scroll_depth", "tab.scrollDepth", "unit.visits"],
      ["time_on_page", "tab.timeOnPage", "unit.visits"],
      ["vitals", "tab.vitals", "unit.measurements"],
    ],
  ],
];

/** The filters a 422 names (`filter.2`), with the API's words; empty for any other failure. */
function badFilters(error: unknown, filters: readonly Filter[]): { filter: Filter; message: string }[] {
  if (!isApiError(error) || error.status !== 422) return [];
  return Object.entries(error.errors).flatMap(([field, messages]) => {
    const index = /^filter(?:\.(\d+))?/.exec(field);
    const filter = index ? filters[Number(index[1] ?? 0)] : undefined;
    return filter ? [{ filter, message: messages.join(" ") }] : [];
  });
}

export function statsView(options: StatsViewOptions): StatsView {
  const { source, timezone, account } = options;
  let state = options.state;
  let request = 0;
  /** The current request's totals, asked once and shared (tiles, Direct / None, empty states). */
  let totalsOnce: Promise<number> | null = null;
  /** The saved segment's filters (the API's texts), while one applies. */
  let segmentFilters: readonly string[] = [];
  let segmentName = "";
  const query = (): CardQuery => ({ from: state.range.from, to: state.range.to, filter: filterParams(state, segmentFilters) });
  const change = (next: Partial<ViewState>) => options.onState({ ...state, ...next });
  const segments = account
    ? segmentsMenu(account.client, account.websiteId, account.viewer, (segment, filters = "keep") =>
        change({ segment, ...(filters === "clear" ? { filters: [] } : {}) }),
      )
    : null;
  let notes: Annotation[] = [];
  const annotations = account ? annotationsPanel(account.client, account.websiteId, account.viewer.canWrite, () => setState(state)) : null;
  const addOne = (filter: Filter) => change({ filters: withFilter(state.filters, filter) });
  const visits = () => (totalsOnce ??= source.totals(query()).then((answer) => answer.data.visits));

  const picker = h("div", { class: "picker-slot" });
  const label = h("span", { class: "label-slot" });
  const compare = h(
    "select",
    { "aria-label": t("compare.label"), name: "compare", class: "compare", onchange: () => change({ compare: compare.value as Compare }) },
    ...(Object.keys(COMPARE_LABELS) as Compare[]).map((value) => h("option", { value }, t(COMPARE_LABELS[value]))),
  );
  const filters = h("div", { class: "filter-slot" });
  const problems = h("div", { class: "problem-slot", role: "alert" });
  // On the account's dashboard, visitors right now open the live view.
  const realtime = account
    ? h("a", { class: "realtime", href: `#/websites/${account.websiteId}/live`, title: t("realtime.live"), "data-count": "0" }, "…")
    : h("span", { class: "realtime", title: t("realtime.title"), "data-count": "0" }, "…");
  const builderSlot = h("div", { class: "builder-slot" });
  const addFilter = h(
    "button",
    { type: "button", class: "ghost add-filter", "aria-expanded": "false", onclick: () => void toggleBuilder() },
    `+ ${t("builder.open")}`,
  );
  const totals = totalTiles((metric) => change({ metric }));
  const mainChart = h("div", { class: "chart-slot main-chart", "aria-busy": "true" }, h("div", { class: "skeleton chart-skeleton" }));
  const hoursTitle = h("h2", {}, t("hours.title", { metric: t("metric.visitors") }));
  const hoursNote = h("p", { class: "muted hint" });
  const hoursChart = h("div", { class: "chart-slot hours-chart", "aria-busy": "true" }, h("div", { class: "skeleton chart-skeleton" }));
  const hoursCard = h(
    "section",
    { class: "card hours", "aria-label": t("hours.label") },
    h("header", {}, hoursTitle),
    hoursChart,
    hoursNote,
  );
  /** A failure the page already explains once (a bad filter in the URL). */
  const explained = (error: unknown) => badFilters(error, state.filters).length > 0;

  const tabsOf = (tabs: readonly Tab[]): BreakdownTab[] =>
    tabs.map(([name, tabLabel, unit]) => ({ name, label: tabLabel, unit, ...TAB_EXTRAS[name] }));
  const TAB_EXTRAS: Partial<Record<StatName, Partial<BreakdownTab>>> = {
    referrer: { extraRows: directRow },
    country: { empty: () => locationsHint("locations.noGeo") },
    continent: { empty: () => locationsHint("locations.noGeo") },
    city: { empty: () => locationsHint("locations.noCity") },
    ...engagementTabs(() => state.compare),
  };
  const cards = CARDS.map(([title, tabs]) => breakdownCard({ title, tabs: tabsOf(tabs), source, onFilter: addOne, explained }));
  const map = mapCard();
  cards.splice(CARDS.findIndex(([title]) => title === "card.locations") + 1, 0, map);
  const goals = goalCards({
    source,
    onFilter: addOne,
    explained,
    ...(account ? { account: { client: account.client, websiteId: account.websiteId, canWrite: account.viewer.canWrite } } : {}),
  });
  const element = h(
    "main",
    { class: "site" },
    h(
      "div",
      { class: "toolbar" },
      h("div", { class: "heading" }, options.heading, h("div", { class: "subheading" }, label, realtime)),
      h("div", { class: "controls" }, picker, compare, segments?.element, options.tools),
    ),
    problems,
    h("div", { class: "filter-row" }, filters, addFilter),
    builderSlot,
    h("section", { class: "card overview", "aria-label": t("overview.label") }, totals.element, mainChart, annotations?.element),
    hoursCard,
    h("div", { class: "cards" }, ...cards.map((card) => card.element), ...goals.elements, ...(options.paths?.elements ?? [])),
  );

  /** Direct / None: visits minus the visits with a referrer (no `source` statistic yet). */
  async function directRow(shown: CardQuery, result: { data: StatRow[]; meta: { last_page: number } }): Promise<ExtraRow[]> {
    const referred = result.meta.last_page <= 1 ? result.data : await allRows(source, { ...shown, name: "referrer" });
    const count = (await visits()) - total(referred);
    const filter: Filter = { dimension: "referrer", operator: "is", values: [NO_VALUE] };
    return count > 0 ? [{ value: DIRECT, label: t("sources.direct"), count, title: t("sources.directTitle"), filter }] : [];
  }

  /** No locations while there are visits: say what would give them. */
  async function locationsHint(key: MessageKey): Promise<HTMLElement | null> {
    return (await visits()) > 0 ? h("span", { class: "hint-block geo-hint" }, t(key)) : null;
  }

  /** The Locations card's map: the range's countries shaded by visitors (the map's module and shapes load with it). */
  function mapCard(): { element: HTMLElement; load(shown: CardQuery): void } {
    const slot = h("div", { class: "map-slot", "aria-busy": "true" });
    const element = h(
      "section",
      { class: "card map-card", "aria-label": t("locations.mapLabel") },
      h("header", {}, h("h2", {}, t("locations.map"))),
      slot,
    );
    return {
      element,
      load(shown) {
        slot.setAttribute("aria-busy", "true");
        void Promise.all([allRows(source, { ...shown, name: "country" }), import("./world-map.js")])
          .then(async ([rows, { worldMap }]) => {
            if (shown.from !== query().from || shown.to !== query().to) return;
            mount(
              slot,
              await worldMap(
                rows.map((row) => ({ value: row.value, visitors: row.count })),
                t("locations.mapLabel"),
              ),
            );
          })
          .catch((error: unknown) => mount(slot, h("p", { class: "error" }, explained(error) ? "—" : t("error.load"))))
          .finally(() => slot.removeAttribute("aria-busy"));
      },
    };
  }

  /** The filter builder, loaded when first opened. */
  async function toggleBuilder(): Promise<void> {
    if (builderSlot.firstChild) {
      builderSlot.replaceChildren();
      addFilter.setAttribute("aria-expanded", "false");
      return;
    }
    const { filterBuilder } = await import("./filter-builder.js");
    const form = filterBuilder(source, query, (filter) => {
      builderSlot.replaceChildren();
      addFilter.setAttribute("aria-expanded", "false");
      addOne(filter);
    });
    mount(builderSlot, form);
    addFilter.setAttribute("aria-expanded", "true");
    form.querySelector("select")?.focus();
  }

  function showProblems(error: unknown, mine: number): void {
    const bad = badFilters(error, state.filters);
    if (mine !== request || bad.length === 0) return;
    mount(
      problems,
      h(
        "div",
        { class: "card problem" },
        ...bad.map(({ filter, message }) =>
          h(
            "p",
            {},
            t("filter.invalid", { filter: filterText(filter) }),
            " ",
            h("span", { class: "muted" }, message),
            " ",
            h(
              "button",
              { type: "button", class: "ghost", onclick: () => change({ filters: state.filters.filter((f) => f !== filter) }) },
              t("filter.removeInvalid"),
            ),
          ),
        ),
      ),
    );
  }

  /** The rows of a figure over a range: by hour for one day, else by day (by month when long). */
  async function series(metric: Metric, range: { from: string; to: string }, hourly: boolean): Promise<Point[]> {
    const name = hourly ? (HOURLY[metric] ?? "visitors_hours") : metric;
    const rows = await allRows(source, { ...query(), ...range, name });
    if (hourly) return hourSeries([rows]);
    // A rate has no figure on a day without visits: a gap, not 0 %.
    return daySeries(range.from, range.to, [rows], COUNTS.has(metric) ? 0 : null);
  }

  async function loadMain(mine: number): Promise<void> {
    const { range, metric } = state;
    const info = METRIC_INFO[metric];
    const hourly = range.from === range.to;
    const previousRange = state.compare ? comparisonRange(range, state.compare) : null;
    const asked = source.totals({ ...query(), ...(state.compare ? { compare: state.compare } : {}) });
    totalsOnce = asked.then((answer) => answer.data.visits);
    // Read only by some cards: a refusal is theirs (and the tiles') to show, never unhandled.
    totalsOnce.catch(() => {});
    // The figures show as soon as they come, before the chart's rows.
    const shown = asked.then((answer) => mine === request && totals.set(answer.data, answer.previous));
    const [current, before] = await Promise.all([
      series(metric, range, hourly),
      previousRange ? series(metric, previousRange, hourly) : null,
      shown,
    ]);
    if (mine !== request) return;
    let points = current;
    let previous = before;
    const monthly = !hourly && points.length > MAX_DAILY_POINTS && COUNTS.has(metric);
    if (monthly) {
      points = byMonth(points);
      previous = previous && byMonth(previous);
    }
    if (previous) points = points.map((point, i) => ({ key: point.key, values: [...point.values, previous[i]?.values[0] ?? null] }));
    const charted = hourly && !HOURLY[metric] ? METRIC_INFO.visitors : info;
    const lines = [{ label: t(charted.label), className: "series-0" }];
    if (state.compare) lines.push({ label: t(COMPARE_LABELS[state.compare]), className: "series-prev" });
    const by = hourly ? ("chart.by.hour" as const) : monthly ? ("chart.by.month" as const) : ("chart.by.day" as const);
    const caption =
      t(by, { metric: t(charted.label) }) + (state.compare ? `, ${t("chart.with", { other: t(COMPARE_LABELS[state.compare]) })}` : "");
    mount(
      mainChart,
      chart(points, {
        kind: hourly || points.length <= 31 ? "bar" : "line",
        series: lines,
        legend: Boolean(state.compare),
        caption,
        label: hourly ? (hour) => `${hour}:00` : formatDay,
        format: charted.format,
        marks: hourly ? [] : notes.map((note) => ({ key: monthly ? note.date.slice(0, 7) : note.date, text: note.text })),
      }),
      hourly && !HOURLY[metric] ? h("p", { class: "muted hint" }, t("hours.onlyCounts", { metric: t(info.label) })) : null,
    );
  }

  async function loadHours(mine: number): Promise<void> {
    const metric = HOURLY[state.metric] ? state.metric : "visitors";
    const info = METRIC_INFO[metric];
    const rows = await allRows(source, { ...query(), name: HOURLY[metric] ?? "visitors_hours" });
    if (mine !== request) return;
    hoursTitle.textContent = t("hours.title", { metric: t(info.label) });
    hoursNote.textContent = metric === state.metric ? "" : t("hours.onlyCounts", { metric: t(METRIC_INFO[state.metric].label) });
    mount(
      hoursChart,
      chart(hourSeries([rows]), {
        kind: "bar",
        series: [{ label: t(info.label), className: "series-0" }],
        legend: false,
        caption: t("chart.by.hour", { metric: t(info.label) }),
        label: (hour) => `${hour}:00`,
      }),
    );
  }

  async function loading(slot: HTMLElement, mine: number, load: (mine: number) => Promise<void>): Promise<void> {
    slot.setAttribute("aria-busy", "true");
    try {
      await load(mine);
    } catch (error) {
      showProblems(error, mine);
      if (mine === request)
        mount(slot, h("p", { class: "error" }, explained(error) ? "—" : error instanceof Error ? error.message : t("error.load")));
    } finally {
      if (mine === request) slot.removeAttribute("aria-busy");
    }
  }

  async function refreshRealtime(): Promise<void> {
    try {
      const count = await source.realtime();
      realtime.textContent = plural(count, "realtime.one", "realtime.other", formatNumber(count));
      realtime.dataset.count = String(count);
    } catch {
      realtime.textContent = "";
    }
  }

  /** The segment's filters and the range's notes, before anything is read. */
  async function prepare(): Promise<void> {
    const segment = state.segment === null ? null : await segments?.filtersOf(state.segment);
    segmentFilters = segment?.filters ?? [];
    segmentName = segment?.name ?? "";
    segments?.update({ filters: state.filters.map((filter) => filterParams({ ...state, filters: [filter] })[0]!), segment: state.segment });
    notes = annotations ? await annotations.load(state.range) : [];
  }

  function setState(next: ViewState): void {
    state = next;
    void prepare().then(() => next === state && load());
  }

  function load(): void {
    const mine = ++request;
    totalsOnce = null;
    const today = todayIn(timezone);
    mount(
      picker,
      rangePicker(state.range, today, (range) => change({ range })),
    );
    mount(label, rangeLabel(state.range, today));
    compare.value = state.compare;
    totals.select(state.metric);
    mount(
      filters,
      filterBar(state.filters, (list) => change({ filters: list })),
      state.segment !== null && segmentName
        ? h(
            "button",
            {
              type: "button",
              class: "chip segment-chip",
              "aria-label": t("segments.remove", { name: segmentName }),
              onclick: () => change({ segment: null }),
            },
            t("segments.active", { name: segmentName }),
            h("span", { "aria-hidden": "true" }, " ×"),
          )
        : null,
    );
    mount(problems);
    // One day: the main chart is already by hour.
    hoursCard.hidden = state.range.from === state.range.to;
    void loading(mainChart, mine, loadMain);
    if (hoursCard.hidden) hoursChart.removeAttribute("aria-busy");
    else void loading(hoursChart, mine, loadHours);
    for (const card of [...cards, goals, ...(options.paths ? [options.paths] : [])]) card.load(query());
  }

  setState(state);
  void refreshRealtime();
  const timer = setInterval(() => void refreshRealtime(), REALTIME_EVERY_MS);
  return { element, setState, state: () => state, destroy: () => clearInterval(timer) };
}
