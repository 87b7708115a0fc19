import { formatRange, isDay, rangeFor, type Range, type RangeKey } from "./dates.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import type { MessageKey } from "./messages.js";
import { dismissable } from "./popover.js";

const PRESETS: readonly Exclude<RangeKey, "custom">[] = ["today", "7d", "30d", "12mo"];
const LABELS: Readonly<Record<RangeKey, MessageKey>> = {
  today: "range.today",
  "7d": "range.7d",
  "30d": "range.30d",
  "12mo": "range.12mo",
  custom: "range.custom",
};

/**
 * Preset buttons plus a custom from/to form that opens over the page (the toolbar never
 * reflows); `onChange` gets the new range.
 */
export function rangePicker(range: Range, today: string, onChange: (range: Range) => void): HTMLElement {
  const from = h("input", { type: "date", name: "from", value: range.from, max: today, "aria-label": t("range.from"), required: true });
  const to = h("input", { type: "date", name: "to", value: range.to, max: today, "aria-label": t("range.to"), required: true });
  const custom = h(
    "form",
    {
      class: "custom-range popover",
      hidden: true,
      "aria-label": t("range.custom"),
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (isDay(from.value) && isDay(to.value) && from.value <= to.value) onChange({ key: "custom", from: from.value, to: to.value });
        else to.setCustomValidity(t("range.endBeforeStart"));
        to.reportValidity();
      },
    },
    from,
    h("span", { "aria-hidden": "true" }, "–"),
    to,
    h("button", { type: "submit" }, t("range.apply")),
  );
  to.addEventListener("input", () => to.setCustomValidity(""));
  const toggle = (open: boolean) => {
    custom.hidden = !open;
    customButton.setAttribute("aria-expanded", String(open));
    if (open) from.focus();
  };
  const button = (key: RangeKey) =>
    h(
      "button",
      {
        type: "button",
        "data-range": key,
        "aria-pressed": String(range.key === key),
        onclick: () => (key === "custom" ? toggle(custom.hidden) : onChange(rangeFor(key, today))),
      },
      t(LABELS[key]),
    );
  const customButton = button("custom");
  customButton.setAttribute("aria-expanded", "false");
  const root = h(
    "div",
    { class: "range-picker" },
    h("div", { class: "segmented", role: "group", "aria-label": t("range.label") }, ...PRESETS.map(button), customButton),
    custom,
  );
  dismissable({ root, opener: customButton, isOpen: () => !custom.hidden, close: () => toggle(false) });
  return root;
}

/** `Mar 5 – Apr 3`: the range in words, beside the title. */
export const rangeLabel = (range: Range, today: string): HTMLElement =>
  h("span", { class: "range-label", "data-from": range.from, "data-to": range.to }, formatRange(range.from, range.to, today));
