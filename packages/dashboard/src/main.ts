// Entry point. The server's HTML shell says where the mount is (`data-base`, relative to
// the page, so any prefix works), on share pages which domain (`data-share`), and whether
// the host's own login already knows this browser (`data-signed-in`).
// Routes live in the URL's fragment: #/, #/new, #/account, #/team, #/websites/1?…, #/websites/1/settings.
import { apiKey, createClient, isApiError, type Account, type Client, type Me, type Website } from "./api.js";
import { addDays, todayIn } from "./dates.js";
import { h, mount } from "./dom.js";
import { exportMenu } from "./export.js";
import { loadMessages, locale, t } from "./i18n.js";
import { languageSwitch } from "./language-switch.js";
import { startShare } from "./share.js";
import { signInForm } from "./sign-in.js";
import { accountSource } from "./source.js";
import { pathCards } from "./paths.js";
import { statsView, type StatsView } from "./stats-view.js";
import { parseState, stateQuery } from "./view-state.js";
import { shareLink, websiteList } from "./website-list.js";

/** Where the API key form is, for those who sign in with a key (the sign-in page links here). */
const KEY_FORM = "#/key";

function hashRoute(): { path: string; query: URLSearchParams } {
  const [path = "", query = ""] = location.hash.slice(1).split("?", 2);
  return { path, query: new URLSearchParams(query) };
}

/** Grey blocks where the page will be: first load looks like loading, not like an error. */
const skeletonPage = () =>
  h(
    "main",
    { class: "loading", "aria-busy": "true", "aria-label": t("page.loading") },
    h("div", { class: "skeleton skeleton-title" }),
    h("div", { class: "card skeleton skeleton-card" }),
    h("div", { class: "card skeleton skeleton-card" }),
  );

/** A page's module, fetched when first opened: pages beside the statistics stay out of the first load. */
const pages = {
  account: () => import("./account-settings.js"),
  ownSignIn: () => import("./own-sign-in.js"),
  team: () => import("./team-page.js"),
  snippet: () => import("./snippet.js"),
  websiteForm: () => import("./website-form.js"),
  websiteSettings: () => import("./website-settings.js"),
  live: () => import("./live-view.js"),
  sessions: () => import("./sessions-view.js"),
};

function startDashboard(app: HTMLElement, client: Client): void {
  const content = h("div", { class: "content" });
  let account: Account | null = null;
  let me: Me;
  /** What the signed-in person may do here (body[data-read-only] hides the rest). */
  const viewer = () => ({ canWrite: me.role !== "viewer" && me.scope !== "read", hasUser: me.user !== null && me.user !== undefined });
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

  /** Opens a page whose module loads first (placeholders meanwhile), unless another page was asked for by then. */
  async function openLater(build: () => Promise<HTMLElement | { element: HTMLElement; destroy(): void }>): Promise<void> {
    const asked = location.hash;
    close();
    mount(content, skeletonPage());
    try {
      const page = await build();
      if (location.hash !== asked) return;
      if (page instanceof HTMLElement) open(page);
      else open(page.element, page.destroy);
    } catch {
      if (location.hash === asked) open(h("main", { class: "narrow" }, h("p", { class: "error" }, t("error.load"))));
    }
  }

  function close(): void {
    destroy();
    destroy = () => {};
    stats = null;
  }

  function notFound(error: unknown): void {
    const message = isApiError(error) && error.status === 404 ? t("site.notFound") : t("site.loadFailed");
    open(h("main", { class: "narrow" }, h("section", { class: "card" }, h("h1", {}, message), h("a", { href: "#/" }, t("site.all")))));
  }

  async function website(id: number, then: (site: Website) => void): Promise<void> {
    if (!stats) mount(content, skeletonPage());
    try {
      then(await client.websites.get(id));
    } catch (error) {
      notFound(error);
    }
  }

  const heading = (site: Website) =>
    h(
      "div",
      { class: "title" },
      h("a", { href: "#/", class: "back" }, `‹ ${t("site.all")}`),
      h("h1", { tabindex: "-1", title: site.domain }, site.domain),
      h(
        "span",
        { class: "links" },
        h("a", { class: "live-link", href: `#/websites/${site.id}/live` }, t("site.live")),
        h("a", { class: "sessions-link", href: `#/websites/${site.id}/sessions` }, t("site.sessions")),
        site.privacy === 1 ? null : h("a", { class: "share-link", href: shareLink(site.domain) }, t("site.sharePage")),
        h("a", { class: "settings-link", href: `#/websites/${site.id}/settings` }, t("site.settings")),
      ),
    );

  /** A website without any pageview yet: its tracking code and the live wait, not a page of zeros. */
  async function hasData(site: Website): Promise<boolean> {
    const { pageviews } = (
      await client.stats.totals(site.id, { from: addDays(site.created_at.slice(0, 10), -1), to: todayIn(site.timezone) })
    ).data;
    return pageviews > 0;
  }

  function waitingPage(site: Website, query: URLSearchParams): void {
    document.title = `${site.domain} · Tally`;
    void openLater(async () => {
      const { snippetPanel } = await pages.snippet();
      const snippet = snippetPanel(client, site, { onArrived: () => setTimeout(() => statsPage(site, query), 1_500) });
      const element = h(
        "main",
        { class: "narrow wide waiting-page" },
        h("div", { class: "toolbar" }, heading(site)),
        h(
          "section",
          { class: "card intro" },
          h("h2", {}, t("empty.title")),
          h("p", { class: "muted" }, t("empty.text", { domain: site.domain })),
        ),
        snippet.element,
      );
      return { element, destroy: snippet.destroy };
    });
  }

  function statsPage(site: Website, query: URLSearchParams): void {
    const today = todayIn(site.timezone);
    document.title = `${site.domain} · Tally`;
    const view: StatsView = statsView({
      source: accountSource(client, site.id),
      timezone: site.timezone,
      heading: heading(site),
      state: parseState(query, today),
      onState: (state) => (location.hash = `#/websites/${site.id}?${stateQuery(state)}`),
      tools: exportMenu(client, site.id, site.domain, () => view.state().range),
      paths: pathCards(client, site.id, viewer()),
      account: { client, websiteId: site.id, viewer: viewer() },
    });
    open(view.element, view.destroy);
    stats = { id: site.id, timezone: site.timezone, view };
  }

  function route(): void {
    const { path, query } = hashRoute();
    const match = /^\/websites\/(\d+)(\/settings|\/live|\/sessions)?$/.exec(path);
    // What a viewer or a read key cannot use is hidden (body[data-read-only]); typed URLs lead back to the list.
    if (document.body.dataset.readOnly === "true" && (path === "/new" || match?.[2] === "/settings")) {
      location.hash = "#/";
      return;
    }
    if (match) {
      const id = Number(match[1]);
      if (match[2] === "/settings") {
        return void website(id, (site) => {
          document.title = `${site.domain}: ${t("site.settings")} · Tally`;
          void openLater(async () => (await pages.websiteSettings()).websiteSettingsPage(client, site));
        });
      }
      if (match[2] === "/live") {
        return void website(id, (site) => {
          document.title = `${site.domain}: ${t("live.title")} · Tally`;
          void openLater(async () => (await pages.live()).liveView(client, site, heading(site)));
        });
      }
      if (match[2] === "/sessions") {
        return void website(id, (site) => {
          document.title = `${site.domain}: ${t("sessions.title")} · Tally`;
          void openLater(async () => (await pages.sessions()).sessionsView(client, site, heading(site), query));
        });
      }
      if (stats?.id === id) return stats.view.setState(parseState(query, todayIn(stats.timezone)));
      return void website(id, async (site) => {
        let data = true;
        try {
          data = await hasData(site);
        } catch {
          // Could not tell: show the statistics (they say what failed).
        }
        if (data) statsPage(site, query);
        else waitingPage(site, query);
      });
    }
    if (path === "/team" && me.role === "owner") {
      document.title = `${t("team.title")} · Tally`;
      return void openLater(async () => (await pages.team()).teamPage(client, me));
    }
    if (path === "/new") {
      document.title = `${t("site.add")} · Tally`;
      return void openLater(async () =>
        (await pages.websiteForm()).createWebsiteForm(client, (site) => (location.hash = `#/websites/${site.id}/settings`)),
      );
    }
    if (path === "/account") {
      document.title = `${t("nav.account")} · Tally`;
      const reload = () => void start();
      return void openLater(async () => {
        const [{ accountPage }, { ownSignIn }] = await Promise.all([pages.account(), pages.ownSignIn()]);
        return h(
          "div",
          {},
          account && me.role === "owner" && me.scope !== "read" ? accountPage(client, account) : null,
          h("main", { class: "narrow wide" }, ownSignIn(client, me, reload)),
        );
      });
    }
    document.title = "Tally";
    open(websiteList(client));
  }

  async function start(): Promise<void> {
    // Without a key and unknown to the host's login: the e-mail sign-in (no 401 to log), or the key form it links to.
    if (!apiKey.get() && document.body.dataset.signedIn !== "true") {
      if (location.hash !== KEY_FORM) return location.replace(new URL("login", client.base));
      return mount(
        app,
        signInForm(client.base, () => {
          location.hash = "#/";
          void start();
        }),
      );
    }
    mount(app, skeletonPage());
    try {
      me = await client.me();
      // Until a required two-factor set-up is done, the account itself is not readable.
      account = me.must_set_up_two_factor ? null : await client.account();
    } catch (error) {
      if (!isApiError(error) || error.status !== 401) throw error;
      apiKey.clear();
      return mount(
        app,
        signInForm(client.base, () => {
          location.hash = "#/";
          void start();
        }),
      );
    }
    const signOut = () => {
      apiKey.clear();
      close();
      void start();
    };
    const readOnly = me.role === "viewer" || me.scope === "read";
    if (readOnly) document.body.dataset.readOnly = "true";
    else delete document.body.dataset.readOnly;
    mount(
      app,
      h(
        "nav",
        { class: "topbar", "aria-label": "Tally" },
        h("a", { class: "brand", href: "#/" }, "Tally"),
        languageSwitch(),
        me.role === "owner" && me.scope !== "read" && !me.must_set_up_two_factor
          ? h("a", { class: "team", href: "#/team" }, t("nav.team"))
          : null,
        h("a", { class: "account", href: "#/account", title: t("nav.accountTitle") }, me.user?.email ?? account?.name ?? ""),
        // A session ends on the server: a real form POST, so it works even if this script stops.
        me.via === "session"
          ? h(
              "form",
              { method: "post", action: "./logout", class: "sign-out" },
              h("button", { type: "submit", class: "ghost" }, t("nav.signOut")),
            )
          : apiKey.get()
            ? h("button", { type: "button", class: "ghost", onclick: signOut }, t("nav.signOut"))
            : null,
      ),
      content,
    );
    if (me.must_set_up_two_factor)
      return void openLater(async () =>
        h(
          "main",
          { class: "narrow wide" },
          (await pages.ownSignIn()).ownSignIn(client, me, () => void start()),
        ),
      );
    route();
  }

  window.addEventListener("hashchange", () => {
    if (app.contains(content)) route();
  });
  start().catch(() => mount(app, h("main", { class: "narrow" }, h("p", { class: "error" }, t("error.unreachable")))));
}

const app = document.getElementById("app");
if (app) {
  const base = new URL(document.body.dataset.base ?? "./", location.href);
  const client = createClient(base);
  const share = document.body.dataset.share;
  // Signed out: straight to the sign-in page (before anything else loads).
  if (!share && !apiKey.get() && document.body.dataset.signedIn !== "true" && location.hash !== KEY_FORM)
    location.replace(new URL("login", base));
  else
    void loadMessages(base).then(() => {
      document.documentElement.lang = locale();
      if (share) startShare(app, client, share);
      else startDashboard(app, client);
    });
}
