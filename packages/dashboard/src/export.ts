// "Export" for a website: the API's zip of the current range (CSV, or Plausible's CSV
// layout), fetched with the key and handed to the browser as a download.
import { apiKey, type Client } from "./api.js";
import { h } from "./dom.js";
import type { Range } from "./dates.js";
import { t } from "./i18n.js";
import type { MessageKey } from "./messages.js";
import { dismissable } from "./popover.js";

const FORMATS: ReadonlyArray<[string, MessageKey]> = [
  ["csv", "export.csv"],
  ["plausible", "export.plausible"],
];

export function exportMenu(client: Client, websiteId: number, domain: string, range: () => Range): HTMLElement {
  const status = h("p", { class: "muted", role: "status" });

  async function download(format: string): Promise<void> {
    const { from, to } = range();
    const url = new URL(`api/v1/websites/${websiteId}/export?${new URLSearchParams({ format, from, to })}`, client.base);
    status.textContent = t("export.preparing");
    try {
      const key = apiKey.get();
      const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { message?: string };
        status.textContent = t("export.failed", { reason: body.message ?? response.statusText });
        return;
      }
      const named = /filename="?([^";]+)/.exec(response.headers.get("content-disposition") ?? "")?.[1];
      const link = h("a", { href: URL.createObjectURL(await response.blob()), download: named ?? `${domain}-${from}-${to}-${format}.zip` });
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      status.textContent = t("export.done");
    } catch {
      status.textContent = t("export.failed", { reason: t("error.unreachable") });
    }
  }

  const summary = h("summary", {}, t("export.title"));
  const menu = h(
    "details",
    { class: "menu export" },
    summary,
    h(
      "div",
      { class: "menu-items" },
      ...FORMATS.map(([format, label]) =>
        h("button", { type: "button", "data-export": format, onclick: () => void download(format) }, t(label)),
      ),
      status,
    ),
  );
  dismissable({ root: menu, opener: summary, isOpen: () => menu.open, close: () => (menu.open = false) });
  return menu;
}
