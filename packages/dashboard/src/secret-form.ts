import { h } from "./dom.js";

export interface SecretFormOptions {
  title: string;
  hint: string;
  /** The one secret field (API key, password). */
  input: HTMLInputElement;
  buttonLabel: string;
  /** Checks the secret; resolves when it was accepted. */
  send(secret: string): Promise<void>;
  /** What to tell the person when `send` failed. */
  describeFailure(failure: unknown): string;
  onAccepted(): void;
}

/** A card with one secret field: sign-in with a key, a share page's password. */
export function secretForm(options: SecretFormOptions): HTMLElement {
  const { input } = options;
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
      h("h1", {}, options.title),
      h("p", { class: "muted" }, options.hint),
      input,
      button,
      error,
    ),
  );
}
