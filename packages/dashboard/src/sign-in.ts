import { apiKey, createClient, isApiError } from "./api.js";
import { h } from "./dom.js";
import { secretForm } from "./secret-form.js";

/** The API key form: the key is checked, then kept in sessionStorage (this tab only). */
export function signInForm(base: URL, onSignedIn: () => void): HTMLElement {
  return secretForm({
    title: "Sign in to Tally",
    hint: "Enter an API key (tally keys create prints one). It is kept in this tab only.",
    input: h("input", { type: "password", name: "key", autocomplete: "off", required: true, placeholder: "tly_…", "aria-label": "API key" }),
    buttonLabel: "Sign in",
    async send(secret) {
      const key = secret.trim();
      await createClient(base, () => key).account();
      apiKey.set(key);
    },
    describeFailure: (failure) => (isApiError(failure) && failure.status === 401 ? "That key is not valid." : "Could not sign in. Try again."),
    onAccepted: onSignedIn,
  });
}
