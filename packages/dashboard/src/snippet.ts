// The tracking code for this mount, a copy button, and a status that turns green once the
// website's first pageview has arrived (checked every few seconds while it is shown).
import type { Client, Website } from "./api.js";
import { copyField } from "./copy-field.js";
import { addDays, todayIn } from "./dates.js";
import { h } from "./dom.js";
import { formatNumber } from "./format.js";
import { t } from "./i18n.js";

const CHECK_EVERY_MS = 2_000;

export interface SnippetOptions {
  /** Called once when the first pageview is seen. */
  onArrived?(): void;
  /** The heading's level: a section of the settings page, or the statistics page's first card. */
  heading?: "h1" | "h2";
}

export function snippetPanel(client: Client, site: Website, options: SnippetOptions = {}): { element: HTMLElement; destroy(): void } {
  const code = `<script defer src="${new URL("script.js", client.base).href}"></script>`;
  const status = h("p", { class: "arrival waiting", role: "status" }, t("snippet.waiting"));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  async function check(): Promise<void> {
    try {
      // Since the day before it was created (its creation is UTC; its days are its own).
      const from = addDays(site.created_at.slice(0, 10), -1);
      const { pageviews } = (await client.stats.totals(site.id, { from, to: todayIn(site.timezone) })).data;
      if (pageviews > 0) {
        status.className = "arrival received";
        status.textContent = pageviews === 1 ? t("snippet.first") : t("snippet.receiving", { n: formatNumber(pageviews) });
        options.onArrived?.();
        return;
      }
    } catch {
      // Try again: the status stays "waiting".
    }
    if (!stopped) timer = setTimeout(() => void check(), CHECK_EVERY_MS);
  }
  void check();

  const element = h(
    "section",
    { class: "card snippet", "aria-labelledby": "snippet-title" },
    h(options.heading ?? "h2", { id: "snippet-title", ...(options.heading === "h1" ? { tabindex: "-1" } : {}) }, t("snippet.title")),
    h("p", { class: "muted" }, t("snippet.where", { domain: site.domain })),
    copyField(code, t("snippet.title")),
    status,
  );
  return {
    element,
    destroy() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
