// A card listing one statistic's rows, with tabs for related statistics, search and paging.
// Clicking a row filters the whole page on it (or does what the tab says instead).
import type { ListPage, StatName, StatRow, StatsQuery } from "./api.js";
import { debounce, h, mount } from "./dom.js";
import { filterOf, filterText } from "./filters.js";
import { formatNumber, valueLabel } from "./format.js";
import type { StatsSource } from "./source.js";
import type { Filter } from "./view-state.js";

export interface BreakdownTab {
  name: StatName;
  label: string;
  /** What the count is: `Visitors`, `Pageviews`, `Visits`, `Events`. */
  unit: string;
  /** More parameters of the statistic (`event` and `property` of `event_property`). */
  params?: Partial<StatsQuery>;
  /** The dimension a row filters on; filterOf(name) when not given. */
  filter?: string;
  /** A second figure beside the count (a goal's conversion rate). */
  extra?(row: StatRow): string;
  /** Instead of filtering: what a click on a row does (a goal opens its properties). */
  open?(row: StatRow): void;
}

/** The range and filters every card reads. */
export type CardQuery = Pick<StatsQuery, "from" | "to" | "filter">;

export interface BreakdownCard {
  element: HTMLElement;
  load(query: CardQuery): void;
}

const PER_PAGE = 10;

export function breakdownCard(title: string, tabs: readonly BreakdownTab[], source: StatsSource, onFilter: (filter: Filter) => void): BreakdownCard {
  let tab = tabs[0] as BreakdownTab;
  let query: CardQuery | null = null;
  let page = 1;
  let request = 0;

  const search = h("input", { type: "search", placeholder: "Search", "aria-label": `Search ${title.toLowerCase()}`, class: "search" });
  const list = h("ol", { class: "rows" });
  const status = h("span", { class: "paging-status" });
  const previous = h("button", { type: "button", class: "ghost", "aria-label": "Previous page", onclick: () => go(page - 1) }, "‹");
  const next = h("button", { type: "button", class: "ghost", "aria-label": "Next page", onclick: () => go(page + 1) }, "›");
  const unit = h("span", { class: "unit" }, tab.unit);
  const tabButtons = tabs.map((t) =>
    h("button", { type: "button", role: "tab", "aria-selected": String(t === tab), "data-name": t.name, onclick: () => select(t) }, t.label),
  );
  const element = h(
    "section",
    { class: "card breakdown", "data-card": tabs.map((t) => t.name).join(" "), "aria-label": title },
    h("header", {}, h("h2", {}, title), tabs.length > 1 ? h("div", { class: "tabs", role: "tablist", "aria-label": title }, ...tabButtons) : null),
    h("div", { class: "card-tools" }, search, unit),
    list,
    h("footer", { class: "paging" }, status, h("span", {}, previous, next)),
  );
  search.addEventListener("input", debounce(() => go(1), 250));

  function select(next: BreakdownTab): void {
    tab = next;
    tabButtons.forEach((button) => button.setAttribute("aria-selected", String(button.dataset.name === next.name)));
    unit.textContent = next.unit;
    search.value = "";
    go(1);
  }

  function row(item: StatRow, max: number): HTMLElement {
    const current = tab;
    const bar = h("span", { class: "row-bar" });
    bar.style.setProperty("width", `${(item.count / max) * 100}%`);
    const label = valueLabel(current.name, item.value);
    const dimension = current.filter ?? filterOf(current.name);
    const filter: Filter | null = dimension ? { dimension, operator: "is", values: [item.value] } : null;
    const text = [label.code ? h("span", { class: "code" }, label.code) : null, label.text];
    const action = current.open ? () => current.open?.(item) : filter ? () => onFilter(filter) : null;
    return h(
      "li",
      { "data-value": item.value, "data-count": item.count },
      bar,
      action
        ? h("button", { type: "button", class: "row-label", title: current.open ? `${item.value}: properties` : `Filter: ${filterText(filter as Filter)}`, onclick: action }, ...text)
        : h("span", { class: "row-label", title: item.value }, ...text),
      current.extra ? h("span", { class: "row-extra" }, current.extra(item)) : null,
      h("span", { class: "row-count" }, formatNumber(item.count)),
    );
  }

  function render(result: ListPage<StatRow>): void {
    const max = Math.max(1, ...result.data.map((item) => item.count));
    const rows = result.data.map((item) => row(item, max));
    mount(list, ...(rows.length > 0 ? rows : [h("li", { class: "empty" }, search.value ? "Nothing matches." : "No data for this period.")]));
    const { from, to, total, current_page, last_page } = result.meta;
    status.textContent = from === null ? "" : `${from}–${to ?? from} of ${formatNumber(total)}`;
    previous.disabled = current_page <= 1;
    next.disabled = current_page >= last_page;
  }

  async function go(target: number): Promise<void> {
    if (!query) return;
    page = Math.max(1, target);
    const mine = ++request;
    element.setAttribute("aria-busy", "true");
    try {
      const result = await source.stats({ ...tab.params, ...query, name: tab.name, search: search.value.trim(), page, per_page: PER_PAGE });
      if (mine === request) render(result);
    } catch (error) {
      if (mine === request) mount(list, h("li", { class: "empty error" }, error instanceof Error ? error.message : "Could not load."));
    } finally {
      if (mine === request) element.removeAttribute("aria-busy");
    }
  }

  return {
    element,
    load(next) {
      query = next;
      void go(1);
    },
  };
}
