// Hand-rolled SVG charts: the plot stretches (preserveAspectRatio="none", strokes that do
// not scale), labels are HTML so they stay crisp on any width. A hidden table carries the
// same numbers for screen readers.
import { h, svg } from "./dom.js";
import { formatNumber } from "./format.js";
import { niceMax, type Point } from "./series.js";

export interface ChartSeries {
  label: string;
  /** `series-0`, `series-1`: colours come from the stylesheet. */
  className: string;
}

export interface ChartOptions {
  kind: "line" | "bar";
  series: readonly ChartSeries[];
  caption: string;
  /** Colour keys under the plot (off when the totals above already explain them). */
  legend?: boolean;
  /** How an x key reads (`2026-03-05` → `Mar 5`). */
  label(key: string): string;
  /** How a value reads (axis, tooltip). @default formatNumber */
  format?(value: number): string;
  /** Notes on some points (annotations): a line at each, its text on hover and in the tooltip. */
  marks?: readonly { key: string; text: string }[];
}

const SLOT = 10;
const HEIGHT = 100;
const GRID_LINES = 4;
const X_LABELS = 6;

function percent(value: number): string {
  return `${Math.round(value * 10000) / 100}%`;
}

function positioned(element: HTMLElement, property: "left" | "bottom", fraction: number): HTMLElement {
  element.style.setProperty(property, percent(fraction));
  return element;
}

/** A line through the points with a value; it breaks where there is none (a rate on a day without visits). */
function lineShapes(points: readonly Point[], index: number, className: string, top: number): SVGElement[] {
  let line = "";
  let gap = true;
  points.forEach((point, i) => {
    const value = point.values[index] ?? null;
    if (value === null) return void (gap = true);
    line += `${gap ? "M" : "L"}${(i + 0.5) * SLOT},${HEIGHT - (value / top) * HEIGHT}`;
    gap = false;
  });
  const width = points.length * SLOT;
  const shapes: SVGElement[] = [svg("path", { d: line, class: `line ${className}`, "vector-effect": "non-scaling-stroke" })];
  const unbroken = points.every((point) => (point.values[index] ?? null) !== null);
  if (index === 0 && unbroken && line !== "")
    shapes.unshift(svg("path", { d: `${line}L${width - SLOT / 2},${HEIGHT}L${SLOT / 2},${HEIGHT}Z`, class: `area ${className}` }));
  return shapes;
}

function barShapes(points: readonly Point[], index: number, count: number, className: string, top: number): SVGElement[] {
  const width = (SLOT * 0.8) / count;
  return points.flatMap((point, i) => {
    const value = point.values[index] ?? null;
    if (value === null) return [];
    const height = (value / top) * HEIGHT;
    return [svg("rect", { x: i * SLOT + SLOT * 0.1 + index * width, y: HEIGHT - height, width, height, class: `bar ${className}` })];
  });
}

function dataTable(points: readonly Point[], options: ChartOptions): HTMLTableElement {
  return h(
    "table",
    { class: "visually-hidden" },
    h("caption", {}, options.caption),
    h("tr", {}, h("th", {}, ""), ...options.series.map((s) => h("th", { scope: "col" }, s.label))),
    ...points.map((point) =>
      h("tr", {}, h("th", { scope: "row" }, options.label(point.key)), ...point.values.map((v) => h("td", {}, v ?? "—"))),
    ),
  );
}

export function chart(points: readonly Point[], options: ChartOptions): HTMLElement {
  const format = options.format ?? formatNumber;
  const count = Math.max(points.length, 1);
  const top = niceMax(Math.max(0, ...points.flatMap((point) => point.values.map((value) => value ?? 0))), GRID_LINES);
  const highlight = svg("rect", { class: "highlight", x: 0, y: 0, width: SLOT, height: HEIGHT, visibility: "hidden" });
  const grid = Array.from({ length: GRID_LINES + 1 }, (_, k) =>
    svg("line", {
      x1: 0,
      x2: count * SLOT,
      y1: HEIGHT - (k / GRID_LINES) * HEIGHT,
      y2: HEIGHT - (k / GRID_LINES) * HEIGHT,
      class: "grid",
      "vector-effect": "non-scaling-stroke",
    }),
  );
  const shapes = options.series.flatMap((series, index) =>
    options.kind === "line"
      ? lineShapes(points, index, series.className, top)
      : barShapes(points, index, options.series.length, series.className, top),
  );
  const marks = new Map<string, string[]>();
  for (const mark of options.marks ?? []) marks.set(mark.key, [...(marks.get(mark.key) ?? []), mark.text]);
  const markLines = points.flatMap((point, i) =>
    marks.has(point.key)
      ? [
          svg("line", {
            x1: (i + 0.5) * SLOT,
            x2: (i + 0.5) * SLOT,
            y1: 0,
            y2: HEIGHT,
            class: "mark",
            "vector-effect": "non-scaling-stroke",
          }),
        ]
      : [],
  );
  const plotSvg = svg(
    "svg",
    { viewBox: `0 0 ${count * SLOT} ${HEIGHT}`, preserveAspectRatio: "none", "aria-hidden": "true" },
    ...grid,
    highlight,
    ...shapes,
    ...markLines,
  );
  const flags = points.flatMap((point, i) => {
    const notes = marks.get(point.key);
    return notes
      ? [positioned(h("span", { class: "mark-flag", title: notes.join("\n"), "data-mark": point.key }, "●"), "left", (i + 0.5) / count)]
      : [];
  });
  const tip = h("div", { class: "chart-tip", hidden: true });
  const plot = h("div", { class: "chart-plot" }, plotSvg, tip, ...flags);

  function show(event: PointerEvent): void {
    const box = plot.getBoundingClientRect();
    const index = Math.min(points.length - 1, Math.max(0, Math.floor(((event.clientX - box.left) / box.width) * points.length)));
    const point = points[index];
    if (!point) return;
    highlight.setAttribute("x", String(index * SLOT));
    highlight.setAttribute("visibility", "visible");
    tip.replaceChildren(
      h("strong", {}, options.label(point.key)),
      ...options.series.map((series, i) => {
        const value = point.values[i] ?? null;
        return h("span", { class: series.className }, `${series.label}: ${value === null ? "—" : format(value)}`);
      }),
      ...(marks.get(point.key) ?? []).map((note) => h("span", { class: "note" }, note)),
    );
    tip.hidden = false;
    positioned(tip, "left", Math.min(0.85, Math.max(0.15, (index + 0.5) / count)));
  }
  function hide(): void {
    tip.hidden = true;
    highlight.setAttribute("visibility", "hidden");
  }
  plot.addEventListener("pointermove", show);
  plot.addEventListener("pointerdown", show);
  plot.addEventListener("pointerleave", hide);

  const labelEvery = Math.max(1, Math.ceil(points.length / X_LABELS));
  const xLabels = points
    .map((point, i) => (i % labelEvery === 0 ? positioned(h("span", {}, options.label(point.key)), "left", (i + 0.5) / count) : null))
    .filter((label) => label !== null);
  const yLabels = Array.from({ length: GRID_LINES + 1 }, (_, k) =>
    positioned(h("span", {}, format((top * k) / GRID_LINES)), "bottom", k / GRID_LINES),
  );

  return h(
    "figure",
    { class: `chart chart-${options.kind}`, "data-points": points.length },
    h("div", { class: "chart-y", "aria-hidden": "true" }, ...yLabels),
    plot,
    h("div", { class: "chart-x", "aria-hidden": "true" }, ...xLabels),
    options.legend === false
      ? null
      : h("div", { class: "legend" }, ...options.series.map((s) => h("span", { class: s.className }, s.label))),
    dataTable(points, options),
  );
}
