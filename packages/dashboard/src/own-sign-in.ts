// The signed-in person's own sign-in: two-factor set-up (recovery codes shown once) and
// their API keys (each shown once). An account-wide key has no person behind it.
import type { Client, Me } from "./api.js";
import { copyField } from "./copy-field.js";
import { h, mount } from "./dom.js";
import { apiForm, field } from "./form.js";
import { t } from "./i18n.js";
import { qrCode } from "./qr-code.js";

function twoFactorCard(client: Client, me: Me, onEnabled: () => void): HTMLElement {
  const card = h("section", { class: "card form two-factor", "aria-labelledby": "two-factor-title" });
  const title = h("h2", { id: "two-factor-title" }, t("me.twoFactor"));
  const showOff = () =>
    mount(
      card,
      title,
      h("p", { class: "muted" }, me.must_set_up_two_factor ? t("me.twoFactorRequired") : t("me.twoFactorOff")),
      h("button", { type: "button", class: "set-up-two-factor", onclick: () => void begin() }, t("me.setUp")),
    );
  /** A new secret; with two-factor sign-in on, `current` is a code of the present one (a new phone). */
  async function begin(current?: string): Promise<void> {
    const setup = await client.twoFactor.begin(current);
    const code = h("input", { name: "code", inputmode: "numeric", autocomplete: "one-time-code", required: true });
    const form = apiForm({ class: "confirm-two-factor" }, [field(t("me.code"), code)], t("me.confirm"), async () => {
      const codes = await client.twoFactor.confirm(code.value.trim());
      mount(
        card,
        title,
        h("p", {}, t("me.recovery")),
        h("ul", { class: "recovery-codes" }, ...codes.map((recovery) => h("li", {}, h("code", {}, recovery)))),
        h("button", { type: "button", onclick: onEnabled }, t("me.done")),
      );
    });
    mount(
      card,
      title,
      h("p", { class: "muted" }, t("me.scanHint")),
      qrCode(setup.uri, t("me.qr")),
      h("p", { class: "muted" }, t("me.secretHint")),
      copyField(setup.secret, t("me.secret")),
      h("p", {}, h("a", { href: setup.uri, class: "otpauth-link" }, setup.uri.split("?")[0])),
      form,
    );
    code.focus();
  }
  if (me.user?.two_factor) {
    const code = h("input", { name: "code", inputmode: "numeric", autocomplete: "one-time-code" });
    const current = h("input", { name: "code", inputmode: "numeric", autocomplete: "one-time-code" });
    mount(
      card,
      title,
      h("p", { class: "muted" }, t("me.twoFactorOn")),
      apiForm({ class: "new-app" }, [field(t("me.code"), current)], t("me.newApp"), () => begin(current.value.trim())),
      me.account_requires_two_factor
        ? null
        : apiForm({}, [field(t("me.code"), code)], t("me.turnOff"), async () => {
            await client.twoFactor.disable(code.value.trim());
            onEnabled();
          }),
    );
  } else showOff();
  return card;
}

function keysCard(client: Client): HTMLElement {
  const list = h("ul", { class: "own-keys" });
  const created = h("div", { role: "status" });
  async function refresh(): Promise<void> {
    const keys = await client.keys.list();
    if (keys.length === 0) return mount(list, h("li", { class: "muted" }, t("me.noKeys")));
    mount(
      list,
      ...keys.map((key) =>
        h(
          "li",
          {},
          h("code", {}, `${key.prefix}…`),
          ` ${key.name} · ${key.scope} `,
          h("button", { type: "button", class: "danger", onclick: () => void client.keys.revoke(key.id).then(refresh) }, t("me.revoke")),
        ),
      ),
    );
  }
  const name = h("input", { name: "name", value: "default", required: true });
  const scope = h(
    "select",
    { name: "scope" },
    h("option", { value: "read" }, t("me.scopeRead")),
    h("option", { value: "write" }, t("me.scopeWrite")),
  );
  const form = apiForm({ class: "form" }, [field(t("me.keyName"), name), field(t("me.keyScope"), scope)], t("me.createKey"), async () => {
    const key = await client.keys.create({ name: name.value.trim(), scope: scope.value as "read" | "write" });
    mount(created, h("p", {}, t("me.newKey")), copyField(key.key, t("me.keys")));
    await refresh();
  });
  void refresh();
  return h("section", { class: "card", "aria-labelledby": "keys-title" }, h("h2", { id: "keys-title" }, t("me.keys")), list, created, form);
}

/** The "your sign-in" cards; `onChange` reloads the page's idea of who is signed in. */
export function ownSignIn(client: Client, me: Me, onChange: () => void): HTMLElement {
  if (!me.user) return h("section", { class: "card" }, h("h2", {}, t("me.title")), h("p", { class: "muted" }, t("me.noUser")));
  return h("div", { class: "own-sign-in" }, twoFactorCard(client, me, onChange), me.must_set_up_two_factor ? null : keysCard(client));
}
