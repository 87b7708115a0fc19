// A line of text to copy (tracking code, share link) with a Copy button that says what happened.
import { h } from "./dom.js";
import { t } from "./i18n.js";

let ids = 0;

export function copyField(text: string, label: string): HTMLElement {
  const id = `copy-${++ids}`;
  const code = h("code", { id }, text);
  const said = h("span", { class: "muted copy-status", role: "status" });
  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      said.textContent = t("copy.done");
    } catch {
      // No clipboard access (an insecure origin, a denied permission): select it instead.
      getSelection()?.selectAllChildren(code);
      said.textContent = t("copy.selected");
    }
  }
  return h(
    "div",
    { class: "copy-field" },
    h(
      "div",
      { class: "code-line" },
      h("pre", { "aria-label": label }, code),
      h("button", { type: "button", "aria-describedby": id, onclick: () => void copy() }, t("copy.button")),
    ),
    said,
  );
}
