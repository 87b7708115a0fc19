// Goals: events and page goals (`/blog/*`) with their visitors and conversion rate. A row
// filters like any other (`event:is:Signup`); its properties open in place, under the row;
// page goals are added and removed here (they live in the URL, and this browser remembers
// them per website).
import type { StatRow } from "./api.js";
import { breakdownCard, type BreakdownCard, type CardQuery } from "./breakdown.js";
import { h, mount } from "./dom.js";
import { formatNumber, formatPercent } from "./format.js";
import { t } from "./i18n.js";
import type { StatsSource } from "./source.js";
import { MAX_PAGE_GOALS, type Filter } from "./view-state.js";

/** Properties the tracker itself sends, offered first. */
const KNOWN_PROPERTIES: Readonly<Record<string, string>> = { "Outbound Link: Click": "url" };
const PROPERTY_ROWS = 10;
/** The API names a page goal's row `Visit <pattern>`. */
const PAGE_GOAL_PREFIX = "Visit ";
const NAMES_KEY = "tally.properties";

export interface GoalsOptions {
  source: StatsSource;
  onFilter(filter: Filter): void;
  /** The page goals of the view. */
  goals(): readonly string[];
  /** Asked to count these page goals instead (the caller puts them in the URL). */
  onGoals(goals: string[]): void;
  explained(error: unknown): boolean;
}

/** Property names this browser was asked for before, per event: offered as suggestions. */
const rememberedNames = {
  get(event: string): string[] {
    try {
      return (JSON.parse(localStorage.getItem(NAMES_KEY) ?? "{}") as Record<string, string[]>)[event] ?? [];
    } catch {
      return [];
    }
  },
  add(event: string, name: string): void {
    try {
      const all = JSON.parse(localStorage.getItem(NAMES_KEY) ?? "{}") as Record<string, string[]>;
      all[event] = [name, ...(all[event] ?? []).filter((other) => other !== name)].slice(0, 10);
      localStorage.setItem(NAMES_KEY, JSON.stringify(all));
    } catch {
      // No storage: no suggestions next time.
    }
  },
};

let lists = 0;

/** An event's breakdown by one property, under its row: the property's values, each filtering on `prop:<name>:is:<value>`. */
function propertiesPanel(goal: string, options: GoalsOptions, query: () => CardQuery): HTMLElement {
  const suggestions = [...new Set([KNOWN_PROPERTIES[goal], ...rememberedNames.get(goal)].filter((name): name is string => Boolean(name)))];
  const listId = `property-names-${++lists}`;
  const input = h("input", {
    name: "property",
    required: true,
    value: suggestions[0] ?? "",
    placeholder: t("goals.propertyPlaceholder"),
    list: listId,
    autocomplete: "off",
    "aria-label": t("goals.propertyOf", { goal }),
  });
  const rows = h("ol", { class: "property-rows" });
  async function show(event?: Event): Promise<void> {
    event?.preventDefault();
    const property = input.value.trim();
    if (!property) return void mount(rows, h("li", { class: "empty" }, t("goals.whichProperty")));
    rememberedNames.add(goal, property);
    rows.setAttribute("aria-busy", "true");
    try {
      const result = await options.source.stats({ ...query(), name: "event_property", event: goal, property, per_page: PROPERTY_ROWS });
      const max = Math.max(1, ...result.data.map((row) => row.count));
      const items = result.data.map((row) => {
        const bar = h("span", { class: "row-bar" });
        bar.style.setProperty("width", `${(row.count / max) * 100}%`);
        const filter: Filter = { dimension: `prop:${property}`, operator: "is", values: [row.value] };
        return h(
          "li",
          { "data-value": row.value, "data-count": row.count },
          bar,
          h("button", { type: "button", class: "row-label", onclick: () => options.onFilter(filter) }, row.value),
          h("span", { class: "row-count" }, formatNumber(row.count)),
        );
      });
      mount(rows, ...(items.length > 0 ? items : [h("li", { class: "empty" }, t("goals.noProperty", { property, goal }))]));
    } catch (error) {
      mount(
        rows,
        h("li", { class: "empty error" }, options.explained(error) ? "—" : error instanceof Error ? error.message : t("error.load")),
      );
    } finally {
      rows.removeAttribute("aria-busy");
    }
  }
  const panel = h(
    "div",
    { class: "properties", "data-goal": goal },
    h(
      "form",
      { class: "property-form", onsubmit: (event: Event) => void show(event) },
      input,
      h("datalist", { id: listId }, ...suggestions.map((name) => h("option", { value: name }))),
      h("button", { type: "submit" }, t("goals.show")),
    ),
    rows,
  );
  if (input.value) void show();
  else mount(rows, h("li", { class: "empty" }, t("goals.whichProperty")));
  return panel;
}

/** The page goal form at the foot of the goals card, and the page goals as removable chips. */
function pageGoalForm(options: GoalsOptions): HTMLElement {
  const input = h("input", {
    name: "goal_page",
    placeholder: "/blog/*",
    autocomplete: "off",
    spellcheck: "false",
    "aria-label": t("goals.pagePattern"),
    maxlength: 200,
  });
  const error = h("p", { class: "field-error error", role: "alert" });
  const chips = options.goals().map((goal) =>
    h(
      "li",
      {},
      h(
        "button",
        {
          type: "button",
          class: "chip",
          "aria-label": t("goals.removePage", { goal }),
          onclick: () => options.onGoals(options.goals().filter((other) => other !== goal)),
        },
        goal,
        h("span", { "aria-hidden": "true" }, " ×"),
      ),
    ),
  );
  function add(event: Event): void {
    event.preventDefault();
    const pattern = input.value.trim();
    error.textContent = "";
    if (!pattern.startsWith("/")) return void (error.textContent = t("goals.pageStartsWithSlash"));
    if (options.goals().length >= MAX_PAGE_GOALS) return void (error.textContent = t("goals.tooMany", { max: MAX_PAGE_GOALS }));
    if (!options.goals().includes(pattern)) options.onGoals([...options.goals(), pattern]);
  }
  return h(
    "div",
    { class: "page-goals" },
    chips.length > 0 ? h("ul", { class: "goal-chips", "aria-label": t("goals.pageGoals") }, ...chips) : null,
    h("form", { class: "property-form", onsubmit: add }, input, h("button", { type: "submit" }, t("goals.addPage"))),
    h("p", { class: "hint muted" }, t("goals.pageHint")),
    error,
  );
}

export function goalCards(options: GoalsOptions): { elements: HTMLElement[]; load(query: CardQuery): void } {
  let query: CardQuery = { from: "", to: "" };
  const footer = h("div", { class: "goal-footer" });
  const trackHint = h(
    "div",
    { class: "hint-block" },
    h("p", {}, t("goals.none")),
    h("pre", {}, h("code", {}, 'tally.track("Signup", { plan: "pro" })')),
    h("p", { class: "muted" }, t("goals.noneHint")),
  );
  const card: BreakdownCard = breakdownCard({
    title: "card.goals",
    source: options.source,
    onFilter: options.onFilter,
    explained: options.explained,
    footer,
    tabs: [
      {
        name: "goals",
        label: "card.goals",
        unit: "unit.conversionVisitors",
        params: () => (options.goals().length > 0 ? { goal_page: [...options.goals()] } : {}),
        extra: (row: StatRow) => formatPercent(row.conversion_rate ?? 0),
        filter(row) {
          if (!row.value.startsWith(PAGE_GOAL_PREFIX) || !options.goals().includes(row.value.slice(PAGE_GOAL_PREFIX.length)))
            return { dimension: "event", operator: "is", values: [row.value] };
          // A page goal filters on its page when it names one; a pattern has no filter of its own.
          const pattern = row.value.slice(PAGE_GOAL_PREFIX.length);
          return pattern.includes("*") ? null : { dimension: "page", operator: "is", values: [pattern] };
        },
        actions(row, detail) {
          if (row.value.startsWith(PAGE_GOAL_PREFIX) && options.goals().includes(row.value.slice(PAGE_GOAL_PREFIX.length))) return null;
          const button = h(
            "button",
            {
              type: "button",
              class: "ghost row-action",
              "aria-expanded": "false",
              "aria-label": t("goals.propertiesOf", { goal: row.value }),
              title: t("goals.properties"),
            },
            "▸",
          );
          button.addEventListener("click", () => {
            const open = detail.hidden;
            detail.hidden = !open;
            button.setAttribute("aria-expanded", String(open));
            button.textContent = open ? "▾" : "▸";
            if (open && !detail.firstChild) detail.append(propertiesPanel(row.value, options, () => query));
          });
          return button;
        },
        empty: () => trackHint,
      },
    ],
  });
  return {
    elements: [card.element],
    load(next) {
      query = next;
      mount(footer, pageGoalForm(options));
      card.load(next);
    },
  };
}
