import { h } from "./dom.js";
import { languageSwitch } from "./language-switch.js";

export interface SecretFormOptions {
  title: string;
  hint: string;
  /** The one secret field (API key, password). */
  input: HTMLInputElement;
  /** Its visible label. */
  label: string;
  buttonLabel: string;
  /** Checks the secret; resolves when it was accepted. */
  send(secret: string): Promise<void>;
  /** What to tell the person when `send` failed. */
  describeFailure(failure: unknown): string;
  onAccepted(): void;
}

let ids = 0;

/** A card with one labelled secret field: sign-in with a key, a share page's password. */
export function secretForm(options: SecretFormOptions): HTMLElement {
  const { input } = options;
  input.id ||= `secret-${++ids}`;
  const error = h("p", { class: "error", role: "alert" });
  const button = h("button", { type: "submit" }, options.buttonLabel);
  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    button.disabled = true;
    error.textContent = "";
    try {
      await options.send(input.value);
      options.onAccepted();
    } catch (failure) {
      error.textContent = options.describeFailure(failure);
      input.select();
    } finally {
      button.disabled = false;
    }
  }
  return h(
    "main",
    { class: "narrow" },
    h(
      "form",
      { class: "card sign-in", onsubmit: (event: Event) => void submit(event) },
      h("div", { class: "sign-in-head" }, h("h1", {}, options.title), languageSwitch()),
      h("p", { class: "muted" }, options.hint),
      h("label", { for: input.id }, options.label),
      input,
      button,
      error,
    ),
  );
}
