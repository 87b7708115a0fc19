// Goals (events with their visitors and conversion rate) and, on a click, one goal's
// breakdown by an event property; its rows filter like any other (`prop:plan:is:pro`).
import type { StatRow } from "./api.js";
import { breakdownCard, type BreakdownCard, type CardQuery } from "./breakdown.js";
import { h, mount } from "./dom.js";
import { formatPercent } from "./format.js";
import type { StatsSource } from "./source.js";
import type { Filter } from "./view-state.js";

/** Properties the tracker itself sends, offered first. */
const KNOWN_PROPERTY: Readonly<Record<string, string>> = { "Outbound Link: Click": "url" };

export function goalCards(source: StatsSource, onFilter: (filter: Filter) => void): { elements: HTMLElement[]; load(query: CardQuery): void } {
  let query: CardQuery | null = null;
  let properties: BreakdownCard | null = null;
  const slot = h("div", { class: "properties-slot" });

  function open(goal: string): void {
    const input = h("input", { name: "property", required: true, value: KNOWN_PROPERTY[goal] ?? "", placeholder: "e.g. plan", "aria-label": `Property of ${goal}` });
    const show = (event?: Event) => {
      event?.preventDefault();
      const property = input.value.trim();
      if (!property) return;
      properties = breakdownCard(`${goal}: ${property}`, [{ name: "event_property", label: property, unit: "Events", params: { event: goal, property }, filter: `prop:${property}` }], source, onFilter);
      properties.element.classList.add("properties");
      properties.element.querySelector("header")?.append(close);
      properties.element.insertBefore(form, properties.element.children[1] ?? null);
      mount(slot, properties.element);
      if (query) properties.load(query);
    };
    const close = h("button", { type: "button", class: "ghost", "aria-label": "Close the properties", onclick: () => ((properties = null), mount(slot)) }, "×");
    const form = h(
      "form",
      { class: "property-form", onsubmit: show },
      input,
      h("button", { type: "submit" }, "Show"),
      h("button", { type: "button", class: "ghost", onclick: () => onFilter({ dimension: "event", operator: "is", values: [goal] }) }, "Filter on this goal"),
    );
    show();
    if (!input.value) {
      mount(slot, h("section", { class: "card breakdown properties", "aria-label": `${goal}: properties` }, h("header", {}, h("h2", {}, `${goal}: properties`), close), form, h("p", { class: "muted" }, "Which property? Its values are listed by events.")));
    }
    input.focus();
  }

  const goals = breakdownCard(
    "Goals",
    [{ name: "goals", label: "Goals", unit: "Conversion · Visitors", extra: (row: StatRow) => formatPercent(row.conversion_rate ?? 0), open: (row) => open(row.value) }],
    source,
    onFilter,
  );
  return {
    elements: [goals.element, slot],
    load(next) {
      query = next;
      goals.load(next);
      properties?.load(next);
    },
  };
}
