// Goals: events and page goals (`/blog/*`) with their visitors and conversion rate, and a
// revenue goal's total in each currency its events carried (never converted). A row
// filters like any other (`event:is:Signup`); its properties open in place, under the row,
// with the property names the event was sent with suggested. The website's goals are the
// team's (stored through the API): admins and owners add and remove them at the card's foot.
import { isApiError, type Client, type Goal, type StatRow } from "./api.js";
import { breakdownCard, type BreakdownCard, type CardQuery } from "./breakdown.js";
import { h, mount } from "./dom.js";
import { formatNumber, formatPercent } from "./format.js";
import { locale, t } from "./i18n.js";
import type { StatsSource } from "./source.js";
import type { Filter } from "./view-state.js";

/** Properties the tracker itself sends, offered first. */
const KNOWN_PROPERTIES: Readonly<Record<string, string>> = { "Outbound Link: Click": "url", "File Download": "url", "404": "path" };
const PROPERTY_ROWS = 10;
/** The API names a page goal's row `Visit <pattern>`. */
const PAGE_GOAL_PREFIX = "Visit ";
const isPageGoal = (row: StatRow) => row.value.startsWith(`${PAGE_GOAL_PREFIX}/`);

export interface GoalsOptions {
  source: StatsSource;
  onFilter(filter: Filter): void;
  explained(error: unknown): boolean;
  /** The account's website (share pages have none): its goals managed here by those who may, property names from the data. */
  account?: { client: Client; websiteId: number; canWrite: boolean };
}

let lists = 0;

/** A goal's conversion rate, then its revenue's total in each currency its events carried. */
const goalExtra = (row: StatRow) =>
  [
    formatPercent(row.conversion_rate ?? 0),
    ...(row.revenue ?? []).map((each) =>
      new Intl.NumberFormat(locale(), { style: "currency", currency: each.currency }).format(each.total_revenue),
    ),
  ].join(" · ");

/** An event's breakdown by one property, under its row: the property's values, each filtering on `prop:<name>:is:<value>`. */
function propertiesPanel(goal: string, options: GoalsOptions, query: () => CardQuery): HTMLElement {
  const listId = `property-names-${++lists}`;
  const datalist = h("datalist", { id: listId });
  const input = h("input", {
    name: "property",
    required: true,
    value: KNOWN_PROPERTIES[goal] ?? "",
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
      datalist,
      h("button", { type: "submit" }, t("goals.show")),
    ),
    rows,
  );
  const account = options.account;
  // The names the event was sent with in the range, most used first; the first is shown at once.
  void (account ? account.client.stats.properties(account.websiteId, { ...query(), event: goal }) : Promise.resolve([]))
    .catch(() => [] as string[])
    .then((names) => {
      const all = [...new Set([...(KNOWN_PROPERTIES[goal] ? [KNOWN_PROPERTIES[goal]] : []), ...names])];
      mount(datalist, ...all.map((name) => h("option", { value: name })));
      if (!input.value && all[0]) input.value = all[0];
      if (input.value) void show();
      else mount(rows, h("li", { class: "empty" }, t("goals.whichProperty")));
    });
  return panel;
}

/** The website's goals at the card's foot: each removable, and a form to add one (admins and owners). */
function goalsFooter(account: NonNullable<GoalsOptions["account"]>, goals: readonly Goal[], onChange: () => void): HTMLElement {
  const { client, websiteId, canWrite } = account;
  const type = h(
    "select",
    { name: "goal_type", "aria-label": t("goals.type") },
    h("option", { value: "page" }, t("goals.typePage")),
    h("option", { value: "event" }, t("goals.typeEvent")),
  );
  const input = h("input", {
    name: "goal",
    required: true,
    autocomplete: "off",
    spellcheck: "false",
    maxlength: 200,
    placeholder: "/blog/*",
    "aria-label": t("goals.value"),
  });
  type.addEventListener("change", () => (input.placeholder = type.value === "page" ? "/blog/*" : "Signup"));
  const error = h("p", { class: "field-error error", role: "alert" });
  const chips = goals.map((goal) =>
    h(
      "li",
      { "data-goal": goal.id },
      canWrite
        ? h(
            "button",
            {
              type: "button",
              class: "chip",
              "aria-label": t("goals.remove", { goal: goal.display_name }),
              onclick: () => void client.goals.delete(websiteId, goal.id).then(onChange),
            },
            goal.display_name,
            h("span", { "aria-hidden": "true" }, " ×"),
          )
        : h("span", { class: "chip" }, goal.display_name),
    ),
  );
  function add(event: Event): void {
    event.preventDefault();
    error.textContent = "";
    const value = input.value.trim();
    const fields =
      type.value === "page" ? { goal_type: "page" as const, page_path: value } : { goal_type: "event" as const, event_name: value };
    client.goals.create(websiteId, fields).then(onChange, (failure: unknown) => {
      error.textContent = isApiError(failure) ? (Object.values(failure.errors).flat()[0] ?? failure.message) : t("error.generic");
    });
  }
  return h(
    "div",
    { class: "page-goals" },
    chips.length > 0 ? h("ul", { class: "goal-chips", "aria-label": t("goals.teamGoals") }, ...chips) : null,
    canWrite
      ? h("form", { class: "property-form goal-form", onsubmit: add }, type, input, h("button", { type: "submit" }, t("goals.add")))
      : null,
    canWrite ? h("p", { class: "hint muted" }, t("goals.addHint")) : null,
    error,
  );
}

export function goalCards(options: GoalsOptions): { elements: HTMLElement[]; load(query: CardQuery): void } {
  let query: CardQuery = { from: "", to: "" };
  let names = new Map<string, string>();
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
        text: (row) => names.get(row.value) ?? row.value,
        extra: goalExtra,
        filter(row) {
          if (!isPageGoal(row)) return { dimension: "event", operator: "is", values: [row.value] };
          // A page goal filters on its page when it names one; a pattern has no filter of its own.
          const pattern = row.value.slice(PAGE_GOAL_PREFIX.length);
          return pattern.includes("*") ? null : { dimension: "page", operator: "is", values: [pattern] };
        },
        actions(row, detail) {
          if (isPageGoal(row)) return null;
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

  async function refresh(): Promise<void> {
    const account = options.account;
    if (!account) return;
    const goals = await account.client.goals.list(account.websiteId).catch(() => [] as Goal[]);
    names = new Map(
      goals.map((goal) => [goal.page_path === null ? (goal.event_name ?? "") : `${PAGE_GOAL_PREFIX}${goal.page_path}`, goal.display_name]),
    );
    mount(
      footer,
      goalsFooter(account, goals, () => void refresh().then(() => card.load(query))),
    );
  }

  return {
    elements: [card.element],
    load(next) {
      query = next;
      void refresh().then(() => card.load(next));
    },
  };
}
