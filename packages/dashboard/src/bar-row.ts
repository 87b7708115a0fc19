// A list row with a bar as wide as its share of the largest (funnels, journeys, the live view).
import { h, type Child } from "./dom.js";
import { formatNumber } from "./format.js";

/** A row with a bar as wide as its share of `max`. */
export function barRow(label: string, count: number, max: number, extra?: Child): HTMLElement {
  const bar = h("span", { class: "row-bar" });
  bar.style.setProperty("width", `${max > 0 ? (count / max) * 100 : 0}%`);
  return h(
    "li",
    { "data-value": label, "data-count": count },
    bar,
    h("span", { class: "row-label", title: label }, label),
    extra ? h("span", { class: "row-extra" }, extra) : null,
    h("span", { class: "row-count" }, formatNumber(count)),
  );
}
