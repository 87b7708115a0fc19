// Entry point. The server's HTML shell says where the mount is (`data-base`, relative to
// the page, so any prefix works) and, on share pages, which domain (`data-share`).
// Routes live in the URL's fragment: #/, #/new, #/account, #/websites/1?…, #/websites/1/settings.
import { accountPage } from "./account-settings.js";
import { apiKey, createClient, isApiError, type Account, type Client, type Website } from "./api.js";
import { todayIn } from "./dates.js";
import { h, mount } from "./dom.js";
import { exportMenu } from "./export.js";
import { startShare } from "./share.js";
import { signInForm } from "./sign-in.js";
import { accountSource } from "./source.js";
import { statsView, type StatsView } from "./stats-view.js";
import { parseState, stateQuery } from "./view-state.js";
import { createWebsiteForm } from "./website-form.js";
import { shareLink, websiteList } from "./website-list.js";
import { websiteSettingsPage } from "./website-settings.js";

function hashRoute(): { path: string; query: URLSearchParams } {
  const [path = "", query = ""] = location.hash.slice(1).split("?", 2);
  return { path, query: new URLSearchParams(query) };
}

function startDashboard(app: HTMLElement, client: Client): void {
  const content = h("div", { class: "content" });
  let account: Account;
  /** What is open, to stop its timers; a website's stats view is kept while only its query changes. */
  let destroy = () => {};
  let stats: { id: number; timezone: string; view: StatsView } | null = null;

  function open(element: HTMLElement, onClose = () => {}): void {
    close();
    destroy = onClose;
    mount(content, element);
    // A new page for screen readers too: focus moves to its title (when it takes focus).
    element.querySelector<HTMLElement>("h1[tabindex]")?.focus({ preventScroll: true });
  }

  function close(): void {
    destroy();
    destroy = () => {};
    stats = null;
  }

  function notFound(error: unknown): void {
    const message = isApiError(error) && error.status === 404 ? "No such website." : "Could not load the website.";
    open(h("main", { class: "narrow" }, h("section", { class: "card" }, h("h1", {}, message), h("a", { href: "#/" }, "All websites"))));
  }

  async function website(id: number, then: (site: Website) => void): Promise<void> {
    try {
      then(await client.websites.get(id));
    } catch (error) {
      notFound(error);
    }
  }

  function statsPage(site: Website, query: URLSearchParams): void {
    const today = todayIn(site.timezone);
    document.title = `${site.domain} · Tally`;
    const heading = h(
      "div",
      {},
      h("a", { href: "#/", class: "back" }, "‹ All websites"),
      h("h1", { tabindex: "-1" }, site.domain),
      h("span", { class: "links" }, site.privacy === 1 ? null : h("a", { class: "share-link", href: shareLink(site.domain) }, "Share page"), h("a", { class: "settings-link", href: `#/websites/${site.id}/settings` }, "Settings")),
    );
    const view: StatsView = statsView({
      source: accountSource(client, site.id),
      timezone: site.timezone,
      heading,
      state: parseState(query, today),
      onState: (state) => (location.hash = `#/websites/${site.id}?${stateQuery(state)}`),
      tools: exportMenu(client, site.id, site.domain, () => view.state().range),
    });
    open(view.element, view.destroy);
    stats = { id: site.id, timezone: site.timezone, view };
  }

  function route(): void {
    const { path, query } = hashRoute();
    const match = /^\/websites\/(\d+)(\/settings)?$/.exec(path);
    if (match) {
      const id = Number(match[1]);
      if (match[2]) {
        return void website(id, (site) => {
          document.title = `${site.domain}: settings · Tally`;
          const page = websiteSettingsPage(client, site);
          open(page.element, page.destroy);
        });
      }
      if (stats?.id === id) return stats.view.setState(parseState(query, todayIn(stats.timezone)));
      return void website(id, (site) => statsPage(site, query));
    }
    if (path === "/new") {
      document.title = "Add a website · Tally";
      return open(createWebsiteForm(client, (site) => (location.hash = `#/websites/${site.id}/settings`)));
    }
    if (path === "/account") {
      document.title = "Account · Tally";
      return open(accountPage(client, account));
    }
    document.title = "Tally";
    open(websiteList(client));
  }

  async function start(): Promise<void> {
    try {
      account = await client.account();
    } catch (error) {
      if (!isApiError(error) || error.status !== 401) throw error;
      apiKey.clear();
      return mount(app, signInForm(client.base, () => void start()));
    }
    const signOut = () => {
      apiKey.clear();
      close();
      void start();
    };
    mount(
      app,
      h(
        "nav",
        { class: "topbar", "aria-label": "Tally" },
        h("a", { class: "brand", href: "#/" }, "Tally"),
        h("a", { class: "account", href: "#/account", title: "Account settings" }, account.name),
        apiKey.get() ? h("button", { type: "button", class: "ghost", onclick: signOut }, "Sign out") : null,
      ),
      content,
    );
    route();
  }

  window.addEventListener("hashchange", () => {
    if (app.contains(content)) route();
  });
  start().catch(() => mount(app, h("main", { class: "narrow" }, h("p", { class: "error" }, "Tally could not be reached."))));
}

const app = document.getElementById("app");
if (app) {
  const base = new URL(document.body.dataset.base ?? "./", location.href);
  const client = createClient(base);
  const share = document.body.dataset.share;
  if (share) startShare(app, client, share);
  else startDashboard(app, client);
}
