// The tracking code for this mount, built from what the website wants measured (outbound
// links, downloads, forms, 404s, scroll depth, web vitals, hash routing, the
// app's own server), a copy button, a status that turns green once the website's first
// pageview has arrived, and an install check that waits for a hit from the tag and lists
// the hits the website's rules dropped, with why (checked every few seconds while shown).
import type { Client, Website } from "./api.js";
import { copyField } from "./copy-field.js";
import { addDays, todayIn } from "./dates.js";
import { h, mount } from "./dom.js";
import { droppedItems } from "./dropped-hits.js";
import { formatNumber } from "./format.js";
import { t } from "./i18n.js";
import type { MessageKey } from "./messages.js";

const CHECK_EVERY_MS = 2_000;

export interface SnippetOptions {
  /** Called once when the first pageview is seen. */
  onArrived?(): void;
  /** The heading's level: a section of the settings page, or the statistics page's first card. */
  heading?: "h1" | "h2";
}

/** What the tag can turn on: its attribute, or its word in `data-extensions` (those need script.ext.js). */
const CAPABILITIES: ReadonlyArray<{ name: string; label: MessageKey; attribute?: string; extension?: string }> = [
  { name: "outbound", label: "snippet.outbound", attribute: "data-outbound" },
  { name: "downloads", label: "snippet.downloads", extension: "downloads" },
  { name: "forms", label: "snippet.forms", extension: "forms" },
  { name: "404", label: "snippet.notFound", extension: "404" },
  { name: "scroll", label: "snippet.scroll", extension: "scroll" },
  { name: "vitals", label: "snippet.vitals", extension: "vitals" },
  { name: "hash", label: "snippet.hash", attribute: "data-hash" },
];

/** The exact tag for the chosen capabilities (script.ext.js as soon as one needs it). */
export function trackingTag(base: URL, chosen: ReadonlySet<string>): string {
  const picked = CAPABILITIES.filter((capability) => chosen.has(capability.name));
  const extensions = picked.flatMap((capability) => (capability.extension ? [capability.extension] : []));
  const attributes = picked.flatMap((capability) => (capability.attribute ? [` ${capability.attribute}`] : []));
  const script = new URL(extensions.length > 0 ? "script.ext.js" : "script.js", base).href;
  return `<script defer src="${script}"${extensions.length > 0 ? ` data-extensions="${extensions.join(" ")}"` : ""}${attributes.join("")}></script>`;
}

/** Waits for a hit from the tag (a latest hit other than the one there when it started) and lists the dropped ones. */
function installCheck(client: Client, site: Website): { element: HTMLElement; destroy(): void } {
  const status = h("p", { class: "arrival waiting", role: "status" }, t("snippet.checkWaiting"));
  const dropped = h("ul", { class: "dropped-hits" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let before: string | null | undefined;
  async function check(): Promise<void> {
    try {
      const live = await client.live(site.id);
      const latest = live.last_hit ? `${live.last_hit.at} ${live.last_hit.page}` : null;
      if (before === undefined) before = latest;
      if (live.last_hit && latest !== before) {
        status.className = "arrival received";
        status.textContent = t("snippet.checkReceived", { page: live.last_hit.page, at: live.last_hit.at });
      }
      mount(dropped, ...droppedItems(live.dropped));
    } catch {
      // Checked again shortly.
    }
    if (!stopped) timer = setTimeout(() => void check(), CHECK_EVERY_MS);
  }
  void check();
  return {
    element: h(
      "div",
      { class: "install-check" },
      h("h3", {}, t("snippet.check")),
      status,
      h("p", { class: "muted hint" }, t("snippet.droppedHint")),
      dropped,
    ),
    destroy() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

export function snippetPanel(client: Client, site: Website, options: SnippetOptions = {}): { element: HTMLElement; destroy(): void } {
  const chosen = new Set<string>();
  const codeSlot = h("div", { class: "code-slot" });
  const showCode = () => mount(codeSlot, copyField(trackingTag(client.base, chosen), t("snippet.title")));
  showCode();
  const boxes = CAPABILITIES.map((capability) => {
    const box = h("input", {
      type: "checkbox",
      name: `capability-${capability.name}`,
      id: `capability-${capability.name}`,
      value: capability.name,
    });
    box.addEventListener("change", () => {
      if (box.checked) chosen.add(capability.name);
      else chosen.delete(capability.name);
      showCode();
    });
    return h("label", { class: "check", for: box.id }, box, t(capability.label));
  });
  const server = h(
    "details",
    { class: "server-views" },
    h("summary", {}, t("snippet.server")),
    h("p", { class: "muted" }, t("snippet.serverHint")),
    h("pre", {}, h("code", {}, 'import { countPageviews } from "@tally-analytics/server/node";\napp.use(countPageviews(tally));')),
  );
  const install = installCheck(client, site);
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
    h("fieldset", { class: "capabilities" }, h("legend", {}, t("snippet.measure")), ...boxes),
    codeSlot,
    server,
    status,
    install.element,
  );
  return {
    element,
    destroy() {
      stopped = true;
      clearTimeout(timer);
      install.destroy();
    },
  };
}
