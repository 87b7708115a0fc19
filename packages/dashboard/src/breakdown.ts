// A card listing one statistic's rows, with tabs for related statistics, search and paging.
// Clicking a row filters the whole page on it; a tab may add rows of its own (Direct /
// None), buttons beside a row (a goal's properties, opened in place) and an empty state.
import type { ListPage, StatName, StatRow, StatsQuery } from "./api.js";
import { debounce, h, mount, type Child } from "./dom.js";
import { filterOf, filterText } from "./filters.js";
import { formatNumber, valueLabel } from "./format.js";
import { t } from "./i18n.js";
import type { MessageKey } from "./messages.js";
import type { StatsSource } from "./source.js";
import type { Filter } from "./view-state.js";

/** A row a tab adds beside the API's (not a value of the statistic: Direct / None), with the filter it stands for. */
export interface ExtraRow {
  value: string;
  label: string;
  count: number;
  title: string;
  filter?: Filter;
}

export interface BreakdownTab {
  name: StatName;
  label: MessageKey;
  /** What the count is: `Visitors`, `Pageviews`, `Visits`, `Events`. */
  unit: MessageKey;
  /** More parameters of the statistic (`event` and `property` of `event_property`, `goal_page` of goals). */
  params?(): Partial<StatsQuery>;
  /** The filter a row stands for; by default `<filterOf(name)>:is:<value>`, null for none. */
  filter?(row: StatRow): Filter | null;
  /** How a row's value reads, when not as `valueLabel` shows it (a goal's display name). */
  text?(row: StatRow): string;
  /** A second figure beside the count (a goal's conversion rate, a page's scroll depth or web vitals). */
  extra?(row: StatRow): Child;
  /** Controls at the end of a row (a goal's properties); `detail` is the row's slot for what they open. */
  actions?(row: StatRow, detail: HTMLElement): Child;
  /** Rows to show on the first page beside the API's (Direct / None), in count order. */
  extraRows?(query: CardQuery, result: ListPage<StatRow>): Promise<ExtraRow[]>;
  /** What an empty first page says instead of "No data" (how to get data), given the range's query. */
  empty?(query: CardQuery): Promise<Child> | Child;
}

/** The range and filters every card reads. */
export type CardQuery = Pick<StatsQuery, "from" | "to" | "filter">;

export interface BreakdownCard {
  element: HTMLElement;
  load(query: CardQuery): void;
}

export interface BreakdownOptions {
  title: MessageKey;
  tabs: readonly BreakdownTab[];
  source: StatsSource;
  onFilter(filter: Filter): void;
  /** A failure the page explains once (a bad filter): the card then only shows `—`. @default never */
  explained?(error: unknown): boolean;
  /** More at the card's foot (the page-goal form). */
  footer?: Child;
}

const PER_PAGE = 10;
const SKELETON_ROWS = 5;

const skeletonRows = () =>
  Array.from({ length: SKELETON_ROWS }, () => h("li", { class: "skeleton-row", "aria-hidden": "true" }, h("span", { class: "skeleton" })));

function defaultFilter(name: StatName, row: StatRow): Filter | null {
  const dimension = filterOf(name);
  return dimension ? { dimension, operator: "is", values: [row.value] } : null;
}

export function breakdownCard({ title, tabs, source, onFilter, explained = () => false, footer }: BreakdownOptions): BreakdownCard {
  let tab = tabs[0] as BreakdownTab;
  let query: CardQuery | null = null;
  let page = 1;
  let request = 0;

  const search = h("input", {
    type: "search",
    placeholder: t("card.search"),
    "aria-label": t("card.searchIn", { card: t(title) }),
    class: "search",
  });
  const list = h("ol", { class: "rows" }, ...skeletonRows());
  const status = h("span", { class: "paging-status" });
  const previous = h("button", { type: "button", class: "ghost", "aria-label": t("card.previous"), onclick: () => go(page - 1) }, "‹");
  const next = h("button", { type: "button", class: "ghost", "aria-label": t("card.next"), onclick: () => go(page + 1) }, "›");
  const unit = h("span", { class: "unit" }, t(tab.unit));
  const tabButtons = tabs.map((item) =>
    h(
      "button",
      { type: "button", role: "tab", "aria-selected": String(item === tab), "data-name": item.name, onclick: () => select(item) },
      t(item.label),
    ),
  );
  const element = h(
    "section",
    { class: "card breakdown", "data-card": tabs.map((item) => item.name).join(" "), "aria-label": t(title), "aria-busy": "true" },
    h(
      "header",
      {},
      h("h2", {}, t(title)),
      tabs.length > 1 ? h("div", { class: "tabs", role: "tablist", "aria-label": t(title) }, ...tabButtons) : null,
    ),
    h("div", { class: "card-tools" }, search, unit),
    list,
    h("footer", { class: "paging" }, status, h("span", {}, previous, next)),
    footer,
  );
  search.addEventListener(
    "input",
    debounce(() => go(1), 250),
  );

  function select(chosen: BreakdownTab): void {
    tab = chosen;
    tabButtons.forEach((button) => button.setAttribute("aria-selected", String(button.dataset.name === chosen.name)));
    unit.textContent = t(chosen.unit);
    search.value = "";
    go(1);
  }

  function rowElement(value: string, count: number, max: number, ...content: Child[]): HTMLLIElement {
    const bar = h("span", { class: "row-bar" });
    bar.style.setProperty("width", `${(count / max) * 100}%`);
    return h("li", { "data-value": value, "data-count": count }, bar, ...content, h("span", { class: "row-count" }, formatNumber(count)));
  }

  function row(item: StatRow, max: number): HTMLElement {
    const current = tab;
    const label = valueLabel(current.name, item.value);
    const filter = current.filter ? current.filter(item) : defaultFilter(current.name, item);
    const text = [label.code ? h("span", { class: "code" }, label.code) : null, current.text?.(item) ?? label.text];
    const detail = h("div", { class: "row-detail", hidden: true });
    const element = rowElement(
      item.value,
      item.count,
      max,
      filter
        ? h(
            "button",
            { type: "button", class: "row-label", title: t("filter.add", { filter: filterText(filter) }), onclick: () => onFilter(filter) },
            ...text,
          )
        : h("span", { class: "row-label", title: item.value }, ...text),
      current.extra ? h("span", { class: "row-extra" }, current.extra(item)) : null,
      current.actions?.(item, detail),
    );
    element.append(detail);
    return element;
  }

  function extraRow(extra: ExtraRow, max: number): HTMLElement {
    const { filter } = extra;
    const label = filter
      ? h("button", { type: "button", class: "row-label", title: extra.title, onclick: () => onFilter(filter) }, extra.label)
      : h("span", { class: "row-label", title: extra.title }, extra.label);
    const element = rowElement(extra.value, extra.count, max, label);
    element.classList.add("extra-row");
    return element;
  }

  async function render(result: ListPage<StatRow>, shown: CardQuery): Promise<Child[]> {
    const extras = page === 1 && !search.value && tab.extraRows ? await tab.extraRows(shown, result) : [];
    const max = Math.max(1, ...result.data.map((item) => item.count), ...extras.map((extra) => extra.count));
    const rows: { count: number; element: HTMLElement }[] = result.data.map((item) => ({ count: item.count, element: row(item, max) }));
    for (const extra of extras) {
      const at = rows.findIndex((other) => other.count < extra.count);
      rows.splice(at < 0 ? rows.length : at, 0, { count: extra.count, element: extraRow(extra, max) });
    }
    if (rows.length > 0) return rows.map((item) => item.element);
    if (search.value) return [h("li", { class: "empty" }, t("card.noMatch"))];
    return [h("li", { class: "empty" }, (tab.empty && (await tab.empty(shown))) || t("card.noData"))];
  }

  async function go(target: number): Promise<void> {
    if (!query) return;
    const shown = query;
    page = Math.max(1, target);
    const mine = ++request;
    element.setAttribute("aria-busy", "true");
    try {
      const result = await source.stats({
        ...tab.params?.(),
        ...shown,
        name: tab.name,
        search: search.value.trim(),
        page,
        per_page: PER_PAGE,
      });
      const rows = await render(result, shown);
      if (mine !== request) return;
      mount(list, ...rows);
      const { from, to, total, current_page, last_page } = result.meta;
      status.textContent = from === null ? "" : t("card.range", { from, to: to ?? from, total: formatNumber(total) });
      previous.disabled = current_page <= 1;
      next.disabled = current_page >= last_page;
    } catch (error) {
      if (mine !== request) return;
      const message = explained(error) ? "—" : error instanceof Error ? error.message : t("error.load");
      mount(list, h("li", { class: "empty error" }, message));
      status.textContent = "";
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
