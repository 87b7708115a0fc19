// A website's share links: several named links to its share page (`share/{domain}?link=…`),
// each opening the statistics whatever the website's privacy, each deleted on its own.
import { isApiError, type Client, type Website } from "./api.js";
import { copyField } from "./copy-field.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { shareLink } from "./website-list.js";

export function shareLinksCard(client: Client, site: Website): HTMLElement {
  const list = h("div", { class: "share-links" });
  const name = h("input", {
    name: "link_name",
    required: true,
    maxlength: 100,
    placeholder: t("links.namePlaceholder"),
    "aria-label": t("links.name"),
  });
  const problem = h("p", { class: "field-error error", role: "alert" });
  async function refresh(): Promise<void> {
    const links = await client.shareLinks.list(site.id).catch(() => []);
    mount(
      list,
      links.length === 0 ? h("p", { class: "muted" }, t("links.none")) : null,
      ...links.map((link) =>
        h(
          "div",
          { class: "share-link-row", "data-link": link.id },
          h("strong", {}, link.name),
          copyField(`${new URL(shareLink(site.domain), client.base).href}?link=${link.token}`, t("links.url", { name: link.name })),
          h(
            "button",
            {
              type: "button",
              class: "danger",
              "aria-label": t("links.delete", { name: link.name }),
              onclick: () => void client.shareLinks.delete(site.id, link.id).then(refresh),
            },
            t("links.deleteButton"),
          ),
        ),
      ),
    );
  }
  void refresh();
  return h(
    "section",
    { class: "card", "aria-labelledby": "links-title" },
    h("h2", { id: "links-title" }, t("links.title")),
    h("p", { class: "muted" }, t("links.hint")),
    list,
    h(
      "form",
      {
        class: "property-form",
        onsubmit: (event: Event) => {
          event.preventDefault();
          problem.textContent = "";
          client.shareLinks.create(site.id, { name: name.value }).then(
            () => ((name.value = ""), void refresh()),
            (error: unknown) =>
              (problem.textContent = isApiError(error) ? (Object.values(error.errors).flat()[0] ?? error.message) : t("error.generic")),
          );
        },
      },
      name,
      h("button", { type: "submit" }, t("links.add")),
    ),
    problem,
  );
}
