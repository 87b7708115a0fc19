import type { Client, ListPage, StatRow, Website } from "./api.js";
import { addDays, hourIn, todayIn } from "./dates.js";
import { debounce, h, mount, svg } from "./dom.js";
import { formatNumber } from "./format.js";
import { plural, t } from "./i18n.js";
import type { MessageKey } from "./messages.js";
import { HOURS } from "./series.js";
import { allRows, accountSource } from "./source.js";

const PRIVACY: readonly MessageKey[] = ["privacy.public", "privacy.private", "privacy.password"];
const PER_PAGE = 25;

/** Share links are relative to the mount, like every other URL of the page. */
export const shareLink = (domain: string) => `share/${encodeURIComponent(domain)}`;

/**
 * Visitors of the last 24 hours, hour by hour (oldest first), in the website's time zone:
 * yesterday's hours after this one, then today's. A visitor counts in the hour of their
 * first hit of the day (`visitors_hours`), so someone back today after yesterday counts twice.
 */
async function lastDay(client: Client, site: Website): Promise<number[]> {
  const today = todayIn(site.timezone);
  const source = accountSource(client, site.id);
  const [yesterdayRows, todayRows] = await Promise.all(
    [addDays(today, -1), today].map((day) => allRows(source, { name: "visitors_hours", from: day, to: day })),
  );
  const byHour = (rows: readonly StatRow[] | undefined) => new Map((rows ?? []).map((row) => [row.value, row.count]));
  const [yesterday, now] = [byHour(yesterdayRows), byHour(todayRows)];
  const hour = hourIn(site.timezone);
  return [...HOURS.slice(hour + 1).map((key) => yesterday.get(key) ?? 0), ...HOURS.slice(0, hour + 1).map((key) => now.get(key) ?? 0)];
}

/** A small line of the last 24 hours; its numbers are in the figure's label for screen readers. */
function sparkline(values: readonly number[]): SVGSVGElement {
  const top = Math.max(1, ...values);
  const step = 100 / Math.max(1, values.length - 1);
  const points = values.map((value, i) => `${(i * step).toFixed(1)},${(28 - (value / top) * 26).toFixed(1)}`).join(" ");
  return svg(
    "svg",
    { class: "sparkline", viewBox: "0 0 100 30", preserveAspectRatio: "none", "aria-hidden": "true" },
    svg("polyline", { points, "vector-effect": "non-scaling-stroke" }),
  );
}

function figures(client: Client, site: Website): HTMLElement {
  const slot = h("span", { class: "site-figures", "aria-busy": "true" }, h("span", { class: "skeleton" }));
  lastDay(client, site)
    .then((values) => {
      const sum = values.reduce((a, b) => a + b, 0);
      slot.dataset.visitors = String(sum);
      slot.dataset.hours = values.join(",");
      mount(
        slot,
        sparkline(values),
        h(
          "span",
          { class: "site-visitors", title: t("list.last24Title") },
          h("strong", {}, formatNumber(sum)),
          " ",
          plural(sum, "list.visitor24", "list.visitors24", ""),
        ),
      );
    })
    .catch(() => mount(slot, h("span", { class: "muted" }, "—")))
    .finally(() => slot.removeAttribute("aria-busy"));
  return slot;
}

export function websiteList(client: Client): HTMLElement {
  const search = h("input", { type: "search", placeholder: t("list.search"), "aria-label": t("list.search"), class: "search" });
  const list = h("ul", { class: "websites" }, h("li", { class: "skeleton-row", "aria-hidden": "true" }, h("span", { class: "skeleton" })));
  const paging = h("footer", { class: "paging" });
  let page = 1;
  let request = 0;

  function item(site: Website): HTMLElement {
    return h(
      "li",
      { "data-website": site.id },
      h("a", { class: "website-link", href: `#/websites/${site.id}` }, site.domain),
      figures(client, site),
      h("span", { class: `badge privacy-${site.privacy}` }, t(PRIVACY[site.privacy] ?? "privacy.private")),
      h("span", { class: "muted zone" }, site.timezone),
      site.privacy === 1 ? null : h("a", { class: "share-link", href: shareLink(site.domain) }, t("site.sharePage")),
      h(
        "a",
        { class: "settings-link", href: `#/websites/${site.id}/settings`, "aria-label": t("list.settingsOf", { domain: site.domain }) },
        t("site.settings"),
      ),
    );
  }

  async function load(): Promise<void> {
    const mine = ++request;
    try {
      const result: ListPage<Website> = await client.websites.list({
        search: search.value.trim(),
        sort_by: "domain",
        sort: "asc",
        per_page: PER_PAGE,
        page,
      });
      if (mine !== request) return;
      const empty = search.value ? t("list.noMatch") : h("span", {}, t("list.none"), " ", h("a", { href: "#/new" }, t("list.addOne")));
      mount(list, ...(result.data.length > 0 ? result.data.map(item) : [h("li", { class: "empty" }, empty)]));
      const { current_page, last_page } = result.meta;
      mount(
        paging,
        h("span", { class: "paging-status" }, t("list.page", { page: current_page, pages: last_page })),
        h(
          "span",
          {},
          h(
            "button",
            {
              type: "button",
              class: "ghost",
              "aria-label": t("card.previous"),
              disabled: current_page <= 1,
              onclick: () => ((page -= 1), void load()),
            },
            "‹",
          ),
          h(
            "button",
            {
              type: "button",
              class: "ghost",
              "aria-label": t("card.next"),
              disabled: current_page >= last_page,
              onclick: () => ((page += 1), void load()),
            },
            "›",
          ),
        ),
      );
    } catch (error) {
      if (mine === request) mount(list, h("li", { class: "empty error" }, error instanceof Error ? error.message : t("error.load")));
    }
  }

  search.addEventListener(
    "input",
    debounce(() => ((page = 1), void load()), 250),
  );
  void load();
  return h(
    "main",
    { class: "list" },
    h(
      "div",
      { class: "toolbar" },
      h("h1", { tabindex: "-1" }, t("list.title")),
      h("div", { class: "controls" }, search, h("a", { class: "button", href: "#/new" }, t("site.addButton"))),
    ),
    h("section", { class: "card", "aria-label": t("list.title") }, list, paging),
  );
}
