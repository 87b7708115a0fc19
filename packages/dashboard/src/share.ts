// A shared stats page: read-only, no account, access decided by the server (privacy, password cookie).
import { isApiError, type Client } from "./api.js";
import { parseRange, rangeQuery, todayIn } from "./dates.js";
import { h, mount } from "./dom.js";
import { secretForm } from "./secret-form.js";
import { shareSource } from "./source.js";
import { statsView, type StatsView } from "./stats-view.js";

interface SharedWebsite {
  domain: string;
  timezone: string;
}

const hashQuery = () => new URLSearchParams(location.hash.slice(1));

function passwordForm(client: Client, domain: string, onUnlocked: () => void): HTMLElement {
  return secretForm({
    title: domain,
    hint: "These statistics are protected by a password.",
    input: h("input", { type: "password", name: "password", autocomplete: "current-password", required: true, "aria-label": "Password" }),
    buttonLabel: "View statistics",
    send: async (password) => {
      await client.share(domain).unlock(password);
    },
    describeFailure(failure) {
      const status = isApiError(failure) ? failure.status : 0;
      if (status === 429 && isApiError(failure)) return `Too many attempts. Try again in ${Math.ceil((failure.retryAfter ?? 60) / 60)} min.`;
      return status === 422 ? "Wrong password." : "Could not check the password. Try again.";
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
      if (status === 401) return mount(app, passwordForm(client, domain, () => void open()));
      return mount(app, h("main", { class: "narrow" }, h("section", { class: "card" }, h("h1", {}, status === 404 ? "Not found" : "Something went wrong"), h("p", { class: "muted" }, status === 404 ? "No statistics are shared at this address." : "Try again later."))));
    }
    timezone = website.timezone;
    document.title = `${website.domain} · Tally`;
    view = statsView({
      source: shareSource(client, domain),
      timezone,
      heading: h("h1", {}, website.domain),
      range: parseRange(hashQuery(), todayIn(timezone)),
      onRange: (range) => (location.hash = rangeQuery(range)),
    });
    mount(app, view.element, h("footer", { class: "powered" }, "Statistics by Tally: cookieless, self-hosted analytics."));
  }

  window.addEventListener("hashchange", () => view?.setRange(parseRange(hashQuery(), todayIn(timezone))));
  void open();
}
