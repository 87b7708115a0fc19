// A card listing one statistic's rows, with tabs for related statistics, search and paging.
import type { ListPage, StatName, StatRow } from "./api.js";
import type { Range } from "./dates.js";
import { debounce, h, mount } from "./dom.js";
import { formatNumber, valueLabel } from "./format.js";
import type { StatsSource } from "./source.js";

export interface BreakdownTab {
  name: StatName;
  label: string;
  /** What the count is: `Visitors`, `Pageviews`, `Visits`, `Events`. */
  unit: string;
}

export interface BreakdownCard {
  element: HTMLElement;
  load(range: Range): void;
}

const PER_PAGE = 10;

export function breakdownCard(title: string, tabs: readonly BreakdownTab[], source: StatsSource): BreakdownCard {
  let tab = tabs[0] as BreakdownTab;
  let range: Range | null = null;
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
    { class: "card breakdown", "data-card": tabs.map((t) => t.name).join(" ") },
    h("header", {}, h("h2", {}, title), tabs.length > 1 ? h("div", { class: "tabs", role: "tablist" }, ...tabButtons) : null),
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

  function render(result: ListPage<StatRow>): void {
    const max = Math.max(1, ...result.data.map((row) => row.count));
    const rows = result.data.map((row) => {
      const bar = h("span", { class: "row-bar" });
      bar.style.setProperty("width", `${(row.count / max) * 100}%`);
      const label = valueLabel(tab.name, row.value);
      return h(
        "li",
        { "data-value": row.value, "data-count": row.count },
        bar,
        h("span", { class: "row-label", title: row.value }, label.code ? h("span", { class: "code" }, label.code) : null, label.text),
        h("span", { class: "row-count" }, formatNumber(row.count)),
      );
    });
    mount(list, ...(rows.length > 0 ? rows : [h("li", { class: "empty" }, search.value ? "Nothing matches." : "No data for this period.")]));
    const { from, to, total, current_page, last_page } = result.meta;
    status.textContent = from === null ? "" : `${from}–${to ?? from} of ${formatNumber(total)}`;
    previous.disabled = current_page <= 1;
    next.disabled = current_page >= last_page;
  }

  async function go(target: number): Promise<void> {
    if (!range) return;
    page = Math.max(1, target);
    const mine = ++request;
    element.setAttribute("aria-busy", "true");
    try {
      const result = await source.stats({ name: tab.name, from: range.from, to: range.to, search: search.value.trim(), page, per_page: PER_PAGE });
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
      range = next;
      void go(1);
    },
  };
}
