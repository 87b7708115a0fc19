// The top of a chart's count axis, shared by the dashboard's chart and the web components
// (which import nothing else of the dashboard's).

/** A round top for `lines` gridlines, at least `max`: steps of 1, 2, 2.5 or 5 times a power of ten. */
export function niceMax(max: number, lines = 4): number {
  if (max <= 0) return lines;
  const rough = max / lines;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? rough;
  return Math.max(1, Math.ceil(step)) * lines;
}
