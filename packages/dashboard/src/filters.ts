// Filters as people see them: which card row filters on what, and the removable chips.
import type { StatName } from "./api.js";
import { h } from "./dom.js";
import { valueLabel } from "./format.js";
import type { Filter } from "./view-state.js";

const LABELS: Readonly<Record<string, string>> = {
  page: "Page",
  entry_page: "Entry page",
  exit_page: "Exit page",
  referrer: "Referrer",
  utm_source: "Source",
  utm_medium: "Medium",
  utm_campaign: "Campaign",
  utm_content: "Content",
  utm_term: "Term",
  browser: "Browser",
  os: "OS",
  device: "Device",
  country: "Country",
  continent: "Continent",
  city: "City",
  language: "Language",
  resolution: "Screen size",
  event: "Goal",
};

/** Statistics whose rows filter on a dimension of another name; the others on their own name. */
const RENAMED: Partial<Record<StatName, string>> = { landing_page: "entry_page", campaign: "utm_campaign", goals: "event", event: "event" };

/** The filter dimension a card's row stands for, if any. */
export const filterOf = (name: StatName): string | undefined => RENAMED[name] ?? (Object.hasOwn(LABELS, name) ? name : undefined);

const OPERATORS = { is: "is", is_not: "is not", contains: "contains" } as const;

/** `Country is United States`, `Property plan is pro`. */
export function filterText(filter: Filter): string {
  const { dimension } = filter;
  const name = dimension.startsWith("prop:") ? `Property ${dimension.slice(5)}` : (LABELS[dimension] ?? dimension);
  const values = filter.values.map((value) => valueLabel(dimension, value).text).join(" or ");
  return `${name} ${OPERATORS[filter.operator]} ${values}`;
}

/** The active filters as chips, each a button that removes it. */
export function filterBar(filters: readonly Filter[], onChange: (filters: Filter[]) => void): HTMLElement | null {
  if (filters.length === 0) return null;
  const chips = filters.map((filter) => {
    const text = filterText(filter);
    return h(
      "li",
      {},
      h("button", { type: "button", class: "chip", title: `Remove the filter ${text}`, "aria-label": `Remove filter: ${text}`, onclick: () => onChange(filters.filter((f) => f !== filter)) }, text, h("span", { "aria-hidden": "true" }, " ×")),
    );
  });
  return h(
    "div",
    { class: "filters", role: "region", "aria-label": "Filters" },
    h("ul", {}, ...chips),
    filters.length > 1 ? h("button", { type: "button", class: "ghost", onclick: () => onChange([]) }, "Clear all") : null,
  );
}
