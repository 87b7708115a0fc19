// A website's own page of settings: its tracking code, every setting, its share links, its alerts, and deletion.
import { alertsCard } from "./alerts-card.js";
import { shareLinksCard } from "./share-links.js";
import type { Client, Website } from "./api.js";
import { h } from "./dom.js";
import { apiForm, field, fieldError } from "./form.js";
import { t } from "./i18n.js";
import { snippetPanel } from "./snippet.js";
import { websiteSettingsForm } from "./website-form.js";
import { shareLink } from "./website-list.js";

/** Deleting asks for the domain typed again: it takes every statistic with it. */
function deleteSection(client: Client, site: Website, onDeleted: () => void): HTMLElement {
  const confirm = h("input", { name: "confirm", autocomplete: "off", spellcheck: "false" });
  const form = apiForm(
    { class: "confirm-delete", hidden: true },
    [field(t("delete.type", { domain: site.domain }), confirm)],
    t("delete.button"),
    async () => {
      if (confirm.value.trim() !== site.domain) throw fieldError("confirm", t("delete.mismatch", { domain: site.domain }));
      await client.websites.delete(site.id);
      onDeleted();
    },
  );
  const open = h(
    "button",
    {
      type: "button",
      class: "danger",
      "aria-expanded": "false",
      onclick: () => {
        form.hidden = !form.hidden;
        open.setAttribute("aria-expanded", String(!form.hidden));
        if (!form.hidden) confirm.focus();
      },
    },
    t("delete.open"),
  );
  return h(
    "section",
    { class: "card danger-zone", "aria-labelledby": "delete-title" },
    h("h2", { id: "delete-title" }, t("delete.title")),
    h("p", { class: "muted" }, t("delete.text", { domain: site.domain })),
    open,
    form,
  );
}

export function websiteSettingsPage(client: Client, site: Website): { element: HTMLElement; destroy(): void } {
  const snippet = snippetPanel(client, site);
  const title = h("h1", { tabindex: "-1" }, site.domain);
  const element = h(
    "main",
    { class: "narrow wide settings-page" },
    h(
      "div",
      { class: "toolbar" },
      h("div", { class: "title" }, h("a", { href: `#/websites/${site.id}`, class: "back" }, `‹ ${t("site.statistics")}`), title),
      site.privacy === 1 ? null : h("a", { class: "share-link", href: shareLink(site.domain) }, t("site.sharePage")),
    ),
    snippet.element,
    websiteSettingsForm(client, site, (saved) => Object.assign(site, saved)),
    shareLinksCard(client, site),
    alertsCard(client, site),
    deleteSection(client, site, () => (location.hash = "#/")),
  );
  return { element, destroy: snippet.destroy };
}
