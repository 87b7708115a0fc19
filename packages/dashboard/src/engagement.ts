// The Engagement card's tabs (docs/statistics.md, "Engagement"): per page, the visits' scroll
// depth, their time on page and the pageviews' web vitals, each p75 coloured by web.dev's
// thresholds. A row filters on its page (filters.ts); with a comparison, scroll depth and time on page
// show their figure in the range compared with.
import type { StatName, StatRow, StatsQuery } from "./api.js";
import type { BreakdownTab } from "./breakdown.js";
import { h } from "./dom.js";
import { formatDuration, formatNumber, formatPercent } from "./format.js";
import { t } from "./i18n.js";
import type { Compare } from "./view-state.js";

type Vital = keyof NonNullable<StatRow["vitals"]>;

/** web.dev's thresholds, as the API's shares use them: good up to the first, poor above the second (in the API's order). */
const THRESHOLDS: Readonly<Record<Vital, readonly [number, number]>> = {
  lcp: [2500, 4000],
  inp: [200, 500],
  cls: [0.1, 0.25],
  fcp: [1800, 3000],
  ttfb: [800, 1800],
};

/** A p75 as people read it: CLS a score, the others in ms or seconds. */
const vitalText = (vital: Vital, p75: number) =>
  vital === "cls"
    ? formatNumber(p75)
    : p75 < 1000
      ? `${formatNumber(Math.round(p75))} ms`
      : `${formatNumber(Math.round(p75 / 100) / 10)} s`;

function vitals(row: StatRow): HTMLElement {
  return h(
    "span",
    { class: "vitals" },
    ...(Object.keys(THRESHOLDS) as Vital[]).map((vital) => {
      const figures = row.vitals?.[vital];
      if (!figures) return null;
      const [good, poor] = THRESHOLDS[vital];
      const rating = figures.p75 <= good ? "good" : figures.p75 > poor ? "poor" : "fair";
      const shares = t("engagement.shares", {
        good: formatPercent(figures.good),
        needs: formatPercent(figures.needs_improvement),
        poor: formatPercent(figures.poor),
      });
      return h(
        "span",
        { class: `vital ${rating}`, "data-vital": vital, "data-p75": figures.p75, title: shares },
        `${vital.toUpperCase()} ${vitalText(vital, figures.p75)}`,
      );
    }),
  );
}

/** A figure, and with a comparison its value in the range compared with. */
function figure(row: StatRow, text: string, format: (value: number) => string): HTMLElement {
  const before = row.previous_figure;
  return h(
    "span",
    { "data-figure": row.average ?? row.seconds ?? "", "data-previous": before ?? "" },
    text,
    before === undefined ? null : h("span", { class: "was" }, ` · ${t("engagement.was", { value: format(before) })}`),
  );
}

/** Scroll depth and web vitals need the extension build (script.ext.js), not script.js: the tag says so whole. */
const emptyHint = () =>
  h(
    "span",
    { class: "hint-block" },
    t("engagement.empty"),
    " ",
    h("code", {}, '<script defer src="…/script.ext.js" data-extensions="scroll vitals"></script>'),
    " ",
    t("engagement.emptyBuilder"),
  );

/** The three tabs' parts beyond name, label and unit; `compare` is the view's comparison when a tab loads. */
export function engagementTabs(compare: () => Compare): Partial<Record<StatName, Partial<BreakdownTab>>> {
  const params = (): Partial<StatsQuery> => {
    const mode = compare();
    return mode ? { compare: mode } : {};
  };
  const common = { params, empty: emptyHint };
  return {
    scroll_depth: {
      ...common,
      extra: (row) =>
        figure(
          row,
          t("engagement.scroll", { average: formatPercent(row.average ?? 0), median: formatPercent(row.median ?? 0) }),
          formatPercent,
        ),
    },
    time_on_page: { ...common, extra: (row) => figure(row, formatDuration(row.seconds ?? 0), formatDuration) },
    vitals: { ...common, extra: vitals },
  };
}
