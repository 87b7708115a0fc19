// The live view (`#/websites/1/live`): visitors right now, the last 30 minutes minute by
// minute, their pages, sources and countries, a world map, the latest hit and the hits the
// website's rules dropped; refreshed every few seconds without reloading. Loaded when opened.
import type { Client, Website } from "./api.js";
import { barRow } from "./bar-row.js";
import { chart } from "./chart.js";
import { h, mount } from "./dom.js";
import { droppedItems } from "./dropped-hits.js";
import { formatNumber, valueLabel } from "./format.js";
import { plural, t } from "./i18n.js";
import type { MessageKey } from "./messages.js";
import { worldMap } from "./world-map.js";

const REFRESH_MS = 5_000;

function listCard(title: MessageKey, rows: readonly { value: string; visitors: number }[], label: (value: string) => string): HTMLElement {
  const max = Math.max(0, ...rows.map((row) => row.visitors));
  return h(
    "section",
    { class: "card live-list", "aria-label": t(title) },
    h("header", {}, h("h2", {}, t(title)), h("span", { class: "unit" }, t("unit.visitors"))),
    h(
      "ol",
      { class: "rows" },
      ...(rows.length > 0
        ? rows.map((row) => barRow(label(row.value), row.visitors, max))
        : [h("li", { class: "empty" }, t("live.nothing"))]),
    ),
  );
}

export function liveView(client: Client, site: Website, heading: Node): { element: HTMLElement; destroy(): void } {
  const now = h("strong", { class: "live-now", "data-count": "0" }, "…");
  const minutes = h("div", { class: "chart-slot live-chart", "aria-busy": "true" }, h("div", { class: "skeleton chart-skeleton" }));
  const lists = h("div", { class: "cards live-cards" });
  const map = h("section", { class: "card live-map", "aria-label": t("live.map") }, h("h2", {}, t("live.map")));
  const latest = h("p", { class: "muted live-latest" });
  const dropped = h("div", { class: "live-dropped" });
  const element = h(
    "main",
    { class: "site live" },
    h(
      "div",
      { class: "toolbar" },
      h("div", { class: "heading" }, heading, h("div", { class: "subheading" }, h("span", { class: "muted" }, t("live.updated")))),
    ),
    h(
      "section",
      { class: "card overview live-overview", "aria-label": t("live.title") },
      h("div", { class: "live-figure" }, now, h("span", { class: "muted" }, t("live.nowLabel"))),
      minutes,
      latest,
    ),
    lists,
    map,
    dropped,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  async function refresh(): Promise<void> {
    try {
      const live = await client.live(site.id);
      if (stopped) return;
      now.textContent = formatNumber(live.visitors);
      now.dataset.count = String(live.visitors);
      now.title = plural(live.visitors, "realtime.one", "realtime.other", formatNumber(live.visitors));
      mount(
        minutes,
        chart(
          live.minutes.map((minute) => ({ key: minute.minute, values: [minute.visitors, minute.pageviews] })),
          {
            kind: "bar",
            series: [
              { label: t("metric.visitors"), className: "series-0" },
              { label: t("metric.pageviews"), className: "series-1" },
            ],
            caption: t("live.chart"),
            label: (minute) => minute,
          },
        ),
      );
      minutes.removeAttribute("aria-busy");
      latest.textContent = live.last_hit ? t("live.latest", { at: live.last_hit.at, page: live.last_hit.page }) : t("live.noneYet");
      mount(
        lists,
        listCard("live.pages", live.pages, (value) => value),
        listCard("live.sources", live.sources, (value) => value || t("sources.direct")),
        listCard("live.countries", live.countries.slice(0, 10), (value) => valueLabel("country", value).text),
      );
      mount(map, h("h2", {}, t("live.map")), await worldMap(live.countries, t("live.map")));
      mount(
        dropped,
        live.dropped.length === 0
          ? null
          : h(
              "section",
              { class: "card", "aria-label": t("live.dropped") },
              h("h2", {}, t("live.dropped")),
              h("ul", { class: "dropped-hits" }, ...droppedItems(live.dropped)),
            ),
      );
    } catch {
      // Shown again on the next try.
    }
    if (!stopped) timer = setTimeout(() => void refresh(), REFRESH_MS);
  }
  void refresh();
  return {
    element,
    destroy() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
