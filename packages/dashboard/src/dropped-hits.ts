// The hits dropped lately (by a website's settings, or for a host no website has), as the
// live view and the install check list them.
import type { Live } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import type { MessageKey } from "./messages.js";

const REASONS: Readonly<Record<Live["dropped"][number]["reason"], MessageKey>> = {
  bot: "live.dropBot",
  "referrer-spam": "live.dropSpam",
  "excluded-ip": "live.dropIp",
  counted: "live.dropCounted",
  "unknown-website": "live.dropUnknown",
};

/** One item per dropped hit: when, why, and the page's path. */
export const droppedItems = (dropped: Live["dropped"]): HTMLElement[] =>
  dropped.map((drop) =>
    h(
      "li",
      { "data-reason": drop.reason },
      h("span", { class: "muted" }, new Date(drop.at).toLocaleTimeString()),
      " ",
      t(REASONS[drop.reason], { host: drop.host }),
      " ",
      h("code", {}, drop.page),
    ),
  );
