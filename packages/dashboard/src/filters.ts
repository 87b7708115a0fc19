// Filters as people see them: which card row filters on what, and the removable chips.
import type { StatName } from "./api.js";
import { h } from "./dom.js";
import { valueLabel } from "./format.js";
import { t } from "./i18n.js";
import type { MessageKey } from "./messages.js";
import type { Filter, Operator } from "./view-state.js";

const LABELS: Readonly<Record<string, MessageKey>> = {
  page: "dimension.page",
  hostname: "dimension.hostname",
  entry_page: "dimension.entryPage",
  exit_page: "dimension.exitPage",
  referrer: "dimension.referrer",
  source: "dimension.source",
  channel: "dimension.channel",
  utm_source: "dimension.utmSource",
  utm_medium: "dimension.utmMedium",
  utm_campaign: "dimension.utmCampaign",
  utm_content: "dimension.utmContent",
  utm_term: "dimension.utmTerm",
  browser: "dimension.browser",
  os: "dimension.os",
  device: "dimension.device",
  browser_version: "dimension.browserVersion",
  os_version: "dimension.osVersion",
  country: "dimension.country",
  continent: "dimension.continent",
  region: "dimension.region",
  city: "dimension.city",
  language: "dimension.language",
  resolution: "dimension.resolution",
  event: "dimension.goal",
};

/** Statistics whose rows filter on a dimension of another name; the others on their own name. */
const RENAMED: Partial<Record<StatName, string>> = {
  landing_page: "entry_page",
  campaign: "utm_campaign",
  goals: "event",
  event: "event",
  scroll_depth: "page",
  time_on_page: "page",
  vitals: "page",
};

/** The filter dimension a card's row stands for, if any. */
export const filterOf = (name: StatName): string | undefined => RENAMED[name] ?? (Object.hasOwn(LABELS, name) ? name : undefined);

/** Every dimension a filter can be on (the filter builder's list), with its label. */
export const FILTER_DIMENSIONS = Object.keys(LABELS);
export const dimensionLabel = (dimension: string): string => t(LABELS[dimension] ?? "dimension.goal");

/** The statistic whose rows are a dimension's values (the filter builder's suggestions). */
export const statisticOf = (dimension: string): StatName =>
  (Object.keys(RENAMED) as StatName[]).find((name) => RENAMED[name] === dimension && !FIGURES_OF.has(name)) ?? (dimension as StatName);
/** Statistics whose rows filter on a dimension but list figures of it, not its values. */
const FIGURES_OF: ReadonlySet<StatName> = new Set(["goals", "scroll_depth", "time_on_page", "vitals"]);

export const OPERATOR_LABELS: Readonly<Record<Operator, MessageKey>> = {
  is: "operator.is",
  is_not: "operator.isNot",
  contains: "operator.contains",
  contains_not: "operator.containsNot",
  matches: "operator.matches",
  matches_not: "operator.matchesNot",
};
const OPERATORS = OPERATOR_LABELS;

/** What a row of no value (`(none)`) reads as: Direct / None for referrers, none elsewhere. */
export const NO_VALUE = "(none)";

/** `Country is United States`, `Property plan is pro`. */
export function filterText(filter: Filter): string {
  const { dimension } = filter;
  const label = LABELS[dimension];
  const name = dimension.startsWith("prop:") ? t("dimension.property", { name: dimension.slice(5) }) : label ? t(label) : dimension;
  const values = filter.values
    .map((value) =>
      value === NO_VALUE ? t(dimension === "referrer" ? "sources.direct" : "filter.noValue") : valueLabel(dimension, value).text,
    )
    .join(` ${t("operator.or")} `);
  return `${name} ${t(OPERATORS[filter.operator] ?? "operator.is")} ${values}`;
}

/** The active filters as chips, each a button that removes it. */
export function filterBar(filters: readonly Filter[], onChange: (filters: Filter[]) => void): HTMLElement | null {
  if (filters.length === 0) return null;
  const chips = filters.map((filter) => {
    const text = filterText(filter);
    return h(
      "li",
      {},
      h(
        "button",
        {
          type: "button",
          class: "chip",
          title: t("filter.removeTitle", { filter: text }),
          "aria-label": t("filter.remove", { filter: text }),
          onclick: () => onChange(filters.filter((f) => f !== filter)),
        },
        text,
        h("span", { "aria-hidden": "true" }, " ×"),
      ),
    );
  });
  return h(
    "div",
    { class: "filters", role: "region", "aria-label": t("filter.region") },
    h("ul", {}, ...chips),
    filters.length > 1 ? h("button", { type: "button", class: "ghost", onclick: () => onChange([]) }, t("filter.clear")) : null,
  );
}
