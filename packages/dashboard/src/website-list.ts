import type { Client, ListPage } from "./api.js";
import { debounce, h, mount } from "./dom.js";

export interface Website {
  id: number;
  domain: string;
  privacy: number;
  timezone: string;
}

const PRIVACY = ["Public", "Private", "Password"];
const PER_PAGE = 25;

/** Share links are relative to the mount, like every other URL of the page. */
export const shareLink = (domain: string) => `share/${encodeURIComponent(domain)}`;

export function websiteList(client: Client): HTMLElement {
  const search = h("input", { type: "search", placeholder: "Search websites", "aria-label": "Search websites", class: "search" });
  const list = h("ul", { class: "websites" });
  const paging = h("footer", { class: "paging" });
  let page = 1;
  let request = 0;

  function item(site: Website): HTMLElement {
    return h(
      "li",
      { "data-website": site.id },
      h("a", { class: "website-link", href: `#/websites/${site.id}` }, site.domain),
      h("span", { class: `badge privacy-${site.privacy}` }, PRIVACY[site.privacy] ?? ""),
      h("span", { class: "muted" }, site.timezone),
      site.privacy === 1 ? null : h("a", { class: "share-link", href: shareLink(site.domain) }, "Share page"),
    );
  }

  async function load(): Promise<void> {
    const mine = ++request;
    try {
      const result: ListPage<Website> = await client.websites.list({ search: search.value.trim(), sort_by: "domain", sort: "asc", per_page: PER_PAGE, page });
      if (mine !== request) return;
      const empty = search.value
        ? "No website matches."
        : "No websites yet. Create one with POST api/v1/websites (see the README), then add the tracker script to it.";
      mount(list, ...(result.data.length > 0 ? result.data.map(item) : [h("li", { class: "empty" }, empty)]));
      const { current_page, last_page } = result.meta;
      mount(
        paging,
        h("span", { class: "paging-status" }, `Page ${current_page} of ${last_page}`),
        h("span", {},
          h("button", { type: "button", class: "ghost", disabled: current_page <= 1, onclick: () => ((page -= 1), void load()) }, "‹"),
          h("button", { type: "button", class: "ghost", disabled: current_page >= last_page, onclick: () => ((page += 1), void load()) }, "›"),
        ),
      );
    } catch (error) {
      if (mine === request) mount(list, h("li", { class: "empty error" }, error instanceof Error ? error.message : "Could not load."));
    }
  }

  search.addEventListener("input", debounce(() => ((page = 1), void load()), 250));
  void load();
  return h("main", { class: "list" }, h("div", { class: "toolbar" }, h("h1", {}, "Websites"), search), h("section", { class: "card" }, list, paging));
}
