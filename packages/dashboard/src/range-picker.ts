import { formatRange, isDay, RANGE_LABELS, rangeFor, type Range, type RangeKey } from "./dates.js";
import { h } from "./dom.js";

const PRESETS: readonly Exclude<RangeKey, "custom">[] = ["today", "7d", "30d", "12mo"];

/** Preset buttons plus a custom from/to form; `onChange` gets the new range. */
export function rangePicker(range: Range, today: string, onChange: (range: Range) => void): HTMLElement {
  const from = h("input", { type: "date", name: "from", value: range.from, max: today, "aria-label": "From", required: true });
  const to = h("input", { type: "date", name: "to", value: range.to, max: today, "aria-label": "To", required: true });
  const custom = h(
    "form",
    {
      class: "custom-range",
      hidden: range.key !== "custom",
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (isDay(from.value) && isDay(to.value) && from.value <= to.value) onChange({ key: "custom", from: from.value, to: to.value });
        else to.setCustomValidity("The end must be on or after the start.");
        to.reportValidity();
      },
    },
    from,
    h("span", { "aria-hidden": "true" }, "–"),
    to,
    h("button", { type: "submit" }, "Apply"),
  );
  to.addEventListener("input", () => to.setCustomValidity(""));
  const button = (key: RangeKey) =>
    h(
      "button",
      {
        type: "button",
        "data-range": key,
        "aria-pressed": String(range.key === key),
        onclick: () => (key === "custom" ? (custom.hidden = !custom.hidden) : onChange(rangeFor(key, today))),
      },
      RANGE_LABELS[key],
    );
  return h(
    "div",
    { class: "range-picker" },
    h("div", { class: "segmented", role: "group", "aria-label": "Date range" }, ...PRESETS.map(button), button("custom")),
    h("span", { class: "range-label", "data-from": range.from, "data-to": range.to }, formatRange(range.from, range.to, today)),
    custom,
  );
}
