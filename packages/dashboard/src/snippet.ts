// The tracking code for this mount, a copy button, and a status that turns green once the
// website's first pageview has arrived (checked every few seconds while it is shown).
import type { Client, Website } from "./api.js";
import { addDays, todayIn } from "./dates.js";
import { h } from "./dom.js";
import { formatNumber } from "./format.js";

const CHECK_EVERY_MS = 2_000;

export function snippetPanel(client: Client, site: Website): { element: HTMLElement; destroy(): void } {
  const code = `<script defer src="${new URL("script.js", client.base).href}"></script>`;
  const text = h("code", { id: "snippet-code" }, code);
  const copied = h("span", { class: "muted", role: "status" });
  const copy = h("button", { type: "button", "aria-describedby": "snippet-code", onclick: () => void copyCode() }, "Copy");
  const status = h("p", { class: "arrival waiting", role: "status" }, "Waiting for the first pageview…");
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  async function copyCode(): Promise<void> {
    try {
      await navigator.clipboard.writeText(code);
      copied.textContent = "Copied.";
    } catch {
      // No clipboard access (an insecure origin, a denied permission): select it instead.
      getSelection()?.selectAllChildren(text);
      copied.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  }

  async function check(): Promise<void> {
    try {
      // Since the day before it was created (its creation is UTC; its days are its own).
      const from = addDays(site.created_at.slice(0, 10), -1);
      const { pageviews } = (await client.stats.totals(site.id, { from, to: todayIn(site.timezone) })).data;
      if (pageviews > 0) {
        status.className = "arrival received";
        status.textContent = pageviews === 1 ? "First pageview received." : `Receiving pageviews: ${formatNumber(pageviews)} so far.`;
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
    h("h2", { id: "snippet-title" }, "Tracking code"),
    h("p", { class: "muted" }, `Add this line to the <head> of every page of ${site.domain}:`),
    h("div", { class: "code-line" }, h("pre", {}, text), copy),
    copied,
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
