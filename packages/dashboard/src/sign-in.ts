import { apiKey, createClient, isApiError } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { secretForm } from "./secret-form.js";

/** The API key form: the key is checked, then kept in sessionStorage (this tab only). */
export function signInForm(base: URL, onSignedIn: () => void): HTMLElement {
  const form = secretForm({
    title: t("signIn.title"),
    hint: t("signIn.hint"),
    label: t("signIn.key"),
    input: h("input", { type: "password", name: "key", autocomplete: "off", required: true, placeholder: "tly_…" }),
    buttonLabel: t("signIn.button"),
    async send(secret) {
      const key = secret.trim();
      await createClient(base, () => key).account();
      apiKey.set(key);
    },
    describeFailure: (failure) => (isApiError(failure) && failure.status === 401 ? t("signIn.invalid") : t("signIn.failed")),
    onAccepted: onSignedIn,
  });
  // People of a team sign in with their e-mail; the key form is for the account's own key.
  form
    .querySelector("form")
    ?.after(h("p", { class: "sign-in-email" }, h("a", { href: new URL("login", base).href }, t("signIn.withEmail"))));
  return form;
}
