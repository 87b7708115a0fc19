// Entry point. The server's HTML shell says where the mount is (`data-base`, relative to
// the page, so any prefix works) and, on share pages, which domain (`data-share`).
import { apiKey, createClient, isApiError, type Client } from "./api.js";
import { parseRange, rangeQuery, todayIn } from "./dates.js";
import { h, mount } from "./dom.js";
import { startShare } from "./share.js";
import { signInForm } from "./sign-in.js";
import { accountSource } from "./source.js";
import { statsView, type StatsView } from "./stats-view.js";
import { shareLink, websiteList, type Website } from "./website-list.js";

interface Account {
  id: number;
  name: string;
}

function hashRoute(): { path: string; query: URLSearchParams } {
  const [path = "", query = ""] = location.hash.slice(1).split("?", 2);
  return { path, query: new URLSearchParams(query) };
}

function startDashboard(app: HTMLElement, client: Client): void {
  const content = h("div", { class: "content" });
  let current: { id: number; timezone: string; view: StatsView } | null = null;

  function close(): void {
    current?.view.destroy();
    current = null;
  }

  async function openWebsite(id: number, query: URLSearchParams): Promise<void> {
    if (current?.id === id) return current.view.setRange(parseRange(query, todayIn(current.timezone)));
    close();
    let site: Website;
    try {
      site = await client.websites.get(id);
    } catch (error) {
      const message = isApiError(error) && error.status === 404 ? "No such website." : "Could not load the website.";
      return mount(content, h("main", { class: "narrow" }, h("section", { class: "card" }, h("p", {}, message), h("a", { href: "#/" }, "All websites"))));
    }
    document.title = `${site.domain} · Tally`;
    const heading = h(
      "div",
      {},
      h("a", { href: "#/", class: "back" }, "‹ All websites"),
      h("h1", {}, site.domain),
      site.privacy === 1 ? null : h("a", { class: "share-link", href: shareLink(site.domain) }, "Share page"),
    );
    const view = statsView({
      source: accountSource(client, id),
      timezone: site.timezone,
      heading,
      range: parseRange(query, todayIn(site.timezone)),
      onRange: (range) => (location.hash = `#/websites/${id}?${rangeQuery(range)}`),
    });
    current = { id, timezone: site.timezone, view };
    mount(content, view.element);
  }

  function route(): void {
    const { path, query } = hashRoute();
    const id = /^\/websites\/(\d+)$/.exec(path)?.[1];
    if (id !== undefined) return void openWebsite(Number(id), query);
    close();
    document.title = "Tally";
    mount(content, websiteList(client));
  }

  async function start(): Promise<void> {
    let account: Account;
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
        { class: "topbar" },
        h("a", { class: "brand", href: "#/" }, "Tally"),
        h("span", { class: "account muted" }, account.name),
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
