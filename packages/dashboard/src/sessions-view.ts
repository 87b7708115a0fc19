// The sessions explorer (`#/websites/1/sessions?range=7d&filter=…`): the range's visits that
// match the page's filters, newest first, a page at a time; a visit opens in place with its
// pageviews and events in order. Loaded when opened.
import type { Client, Session, Website } from "./api.js";
import { todayIn } from "./dates.js";
import { h, mount } from "./dom.js";
import { formatDuration, formatNumber, valueLabel } from "./format.js";
import { t } from "./i18n.js";
import { rangeLabel } from "./range-picker.js";
import { filterParams, parseState, stateQuery } from "./view-state.js";

const PER_PAGE = 25;

function detailOf(client: Client, site: Website, session: Session, slot: HTMLElement): void {
  if (slot.firstChild) return void slot.replaceChildren();
  mount(slot, h("p", { class: "muted" }, t("page.loading")));
  client.stats.session(site.id, session.id).then(
    ({ hits }) =>
      mount(
        slot,
        h(
          "ol",
          { class: "session-hits" },
          ...hits.map((hit) =>
            h(
              "li",
              { "data-type": hit.type },
              h("span", { class: "muted" }, hit.at.slice(11)),
              " ",
              hit.type === "event" ? h("strong", {}, hit.event ?? "") : null,
              hit.type === "event" ? " · " : null,
              h("code", {}, hit.page),
              ...Object.entries(hit.props).map(([name, value]) => h("span", { class: "muted" }, ` ${name}=${value}`)),
            ),
          ),
        ),
      ),
    () => mount(slot, h("p", { class: "error" }, t("error.load"))),
  );
}

function sessionRow(client: Client, site: Website, session: Session): HTMLElement {
  const detail = h("td", { colspan: 5, class: "session-detail" });
  const where = [
    session.country && valueLabel("country", session.country).text,
    session.device && valueLabel("device", session.device).text,
    session.browser,
  ]
    .filter(Boolean)
    .join(" · ");
  const open = h(
    "button",
    {
      type: "button",
      class: "ghost session-open",
      "aria-expanded": "false",
      onclick: () => {
        detailOf(client, site, session, detail);
        open.setAttribute("aria-expanded", String(detail.firstChild !== null));
      },
    },
    session.started_at.slice(5, 16),
  );
  return h(
    "tbody",
    { "data-session": session.id },
    h(
      "tr",
      {},
      h("td", {}, open),
      h(
        "td",
        {},
        h("code", {}, session.entry_page),
        session.exit_page && session.exit_page !== session.entry_page
          ? ([" → ", h("code", {}, session.exit_page)] as unknown as Node)
          : null,
      ),
      h(
        "td",
        {},
        t("sessions.figures", {
          pages: formatNumber(session.pageviews),
          events: formatNumber(session.events),
          duration: formatDuration(session.duration),
        }),
      ),
      h("td", {}, session.source || t("sources.direct")),
      h("td", { class: "muted" }, where),
    ),
    h("tr", {}, detail),
  );
}

export function sessionsView(client: Client, site: Website, heading: Node, query: URLSearchParams): HTMLElement {
  const today = todayIn(site.timezone);
  const state = parseState(query, today);
  let page = 1;
  const table = h("table", { class: "sessions" });
  const paging = h("footer", { class: "paging" });

  async function load(): Promise<void> {
    table.setAttribute("aria-busy", "true");
    try {
      const answer = await client.stats.sessions(site.id, {
        from: state.range.from,
        to: state.range.to,
        filter: filterParams(state),
        page,
        per_page: PER_PAGE,
      });
      mount(
        table,
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...(["sessions.start", "sessions.pages", "sessions.activity", "sessions.source", "sessions.visitor"] as const).map((key) =>
              h("th", { scope: "col" }, t(key)),
            ),
          ),
        ),
        ...(answer.data.length > 0
          ? answer.data.map((session) => sessionRow(client, site, session))
          : [h("tbody", {}, h("tr", {}, h("td", { colspan: 5, class: "empty" }, t("sessions.none"))))]),
      );
      mount(
        paging,
        h("span", { class: "paging-status" }, t("list.page", { page, pages: answer.meta.has_more ? `${page + 1}+` : page })),
        h(
          "span",
          {},
          h(
            "button",
            {
              type: "button",
              class: "ghost",
              "aria-label": t("card.previous"),
              disabled: page <= 1,
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
              disabled: !answer.meta.has_more,
              onclick: () => ((page += 1), void load()),
            },
            "›",
          ),
        ),
      );
    } catch (error) {
      mount(table, h("tbody", {}, h("tr", {}, h("td", { class: "error" }, error instanceof Error ? error.message : t("error.load")))));
    } finally {
      table.removeAttribute("aria-busy");
    }
  }
  void load();
  return h(
    "main",
    { class: "site sessions-page" },
    h(
      "div",
      { class: "toolbar" },
      h("div", { class: "heading" }, heading, h("div", { class: "subheading" }, rangeLabel(state.range, today))),
      h("a", { class: "button", href: `#/websites/${site.id}?${stateQuery(state)}` }, t("sessions.back")),
    ),
    h("p", { class: "muted" }, t("sessions.hint")),
    h("section", { class: "card", "aria-label": t("sessions.title") }, table, paging),
  );
}
