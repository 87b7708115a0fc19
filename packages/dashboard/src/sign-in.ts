import { apiKey, createClient, isApiError } from "./api.js";
import { h } from "./dom.js";

/** The API key form: the key is checked, then kept in sessionStorage (this tab only). */
export function signInForm(base: URL, onSignedIn: () => void): HTMLElement {
  const input = h("input", { type: "password", name: "key", autocomplete: "off", required: true, placeholder: "tly_…", "aria-label": "API key" });
  const error = h("p", { class: "error", role: "alert" });
  const button = h("button", { type: "submit" }, "Sign in");
  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    const key = input.value.trim();
    button.disabled = true;
    error.textContent = "";
    try {
      await createClient(base, () => key).get("api/v1/account");
      apiKey.set(key);
      onSignedIn();
    } catch (failure) {
      error.textContent = isApiError(failure) && failure.status === 401 ? "That key is not valid." : "Could not sign in. Try again.";
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
      h("h1", {}, "Sign in to Tally"),
      h("p", { class: "muted" }, "Enter an API key (tally keys create prints one). It is kept in this tab only."),
      input,
      button,
      error,
    ),
  );
}
