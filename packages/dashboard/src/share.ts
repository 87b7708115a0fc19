// A shared stats page: read-only, no account, access decided by the server (privacy, password cookie).
import { isApiError, type Client } from "./api.js";
import { todayIn } from "./dates.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { languageSwitch } from "./language-switch.js";
import { secretForm } from "./secret-form.js";
import { shareSource } from "./source.js";
import { statsView, type StatsView } from "./stats-view.js";
import { parseState, stateQuery } from "./view-state.js";

interface SharedWebsite {
  domain: string;
  timezone: string;
}

const hashQuery = () => new URLSearchParams(location.hash.slice(1));

function passwordForm(client: Client, domain: string, onUnlocked: () => void): HTMLElement {
  return secretForm({
    title: domain,
    hint: t("share.protected"),
    label: t("share.password"),
    input: h("input", { type: "password", name: "password", autocomplete: "current-password", required: true }),
    buttonLabel: t("share.view"),
    send: async (password) => {
      await client.share(domain).unlock(password);
    },
    describeFailure(failure) {
      const status = isApiError(failure) ? failure.status : 0;
      if (status === 429 && isApiError(failure)) return t("share.tooMany", { minutes: Math.ceil((failure.retryAfter ?? 60) / 60) });
      return status === 422 ? t("share.wrong") : t("share.failed");
    },
    onAccepted: onUnlocked,
  });
}

export function startShare(app: HTMLElement, client: Client, domain: string): void {
  let view: StatsView | null = null;
  let timezone = "UTC";

  async function open(): Promise<void> {
    let website: SharedWebsite;
    try {
      website = await client.share(domain).website();
    } catch (error) {
      const status = isApiError(error) ? error.status : 0;
      if (status === 401)
        return mount(
          app,
          passwordForm(client, domain, () => void open()),
        );
      return mount(
        app,
        h(
          "main",
          { class: "narrow" },
          h(
            "section",
            { class: "card" },
            h("h1", {}, status === 404 ? t("share.notFound") : t("share.error")),
            h("p", { class: "muted" }, status === 404 ? t("share.notShared") : t("share.later")),
          ),
        ),
      );
    }
    timezone = website.timezone;
    document.title = `${website.domain} · Tally`;
    view = statsView({
      source: shareSource(client, domain),
      timezone,
      heading: h("div", { class: "title" }, h("h1", { title: website.domain }, website.domain)),
      state: parseState(hashQuery(), todayIn(timezone)),
      onState: (state) => (location.hash = stateQuery(state)),
    });
    mount(
      app,
      h("nav", { class: "share-bar", "aria-label": "Tally" }, h("span", { class: "brand" }, "Tally"), languageSwitch()),
      view.element,
      h("footer", { class: "powered" }, t("share.powered")),
    );
  }

  window.addEventListener("hashchange", () => view?.setState(parseState(hashQuery(), todayIn(timezone))));
  void open();
}
