// The filter builder: any dimension (or an event property), is / is not / contains / does
// not contain / matches / does not match, and values suggested from the range's rows. Each
// filter it adds joins the others (all must hold); one on the same dimension replaces it.
// Loaded when first opened.
import { h } from "./dom.js";
import { dimensionLabel, FILTER_DIMENSIONS, OPERATOR_LABELS, statisticOf } from "./filters.js";
import { valueLabel } from "./format.js";
import { t } from "./i18n.js";
import type { CardQuery } from "./breakdown.js";
import type { StatsSource } from "./source.js";
import { OPERATORS, type Filter, type Operator } from "./view-state.js";

const PROPERTY = "prop:";
const SUGGESTIONS = 50;

let lists = 0;

/** The builder's form; `onAdd` gets the filter to add. */
export function filterBuilder(source: StatsSource, query: () => CardQuery, onAdd: (filter: Filter) => void): HTMLFormElement {
  const listId = `filter-values-${++lists}`;
  const dimension = h(
    "select",
    { name: "dimension", "aria-label": t("builder.dimension") },
    ...FILTER_DIMENSIONS.map((name) => h("option", { value: name }, dimensionLabel(name))),
    h("option", { value: PROPERTY }, t("builder.property")),
  );
  const property = h("input", {
    name: "property",
    placeholder: t("builder.propertyName"),
    "aria-label": t("builder.propertyName"),
    hidden: true,
  });
  const operator = h(
    "select",
    { name: "operator", "aria-label": t("builder.operator") },
    ...OPERATORS.map((name) => h("option", { value: name }, t(OPERATOR_LABELS[name]))),
  );
  const value = h("input", {
    name: "value",
    required: true,
    list: listId,
    autocomplete: "off",
    placeholder: t("builder.value"),
    "aria-label": t("builder.value"),
  });
  const suggestions = h("datalist", { id: listId });
  const hint = h("p", { class: "muted hint" });

  async function suggest(): Promise<void> {
    const name = dimension.value;
    property.hidden = name !== PROPERTY;
    hint.textContent = operator.value.startsWith("matches") ? t("builder.patternHint") : "";
    suggestions.replaceChildren();
    if (name === PROPERTY) return;
    try {
      const rows = await source.stats({ ...query(), name: statisticOf(name), per_page: SUGGESTIONS });
      if (dimension.value !== name) return;
      suggestions.replaceChildren(...rows.data.map((row) => h("option", { value: row.value }, valueLabel(name, row.value).text)));
    } catch {
      // No suggestions: any value can still be typed.
    }
  }
  dimension.addEventListener("change", () => void suggest());
  operator.addEventListener("change", () => void suggest());
  void suggest();

  return h(
    "form",
    {
      class: "filter-builder popover",
      "aria-label": t("builder.title"),
      onsubmit: (event: Event) => {
        event.preventDefault();
        const name = dimension.value === PROPERTY ? `${PROPERTY}${property.value.trim()}` : dimension.value;
        if (name === PROPERTY || !value.value.trim()) return;
        onAdd({ dimension: name, operator: operator.value as Operator, values: [value.value.trim()] });
      },
    },
    h(
      "div",
      { class: "builder-fields" },
      dimension,
      property,
      operator,
      value,
      suggestions,
      h("button", { type: "submit" }, t("builder.add")),
    ),
    hint,
  );
}
