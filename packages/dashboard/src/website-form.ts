// Adding a website, and every setting of one (the API's fields, its rules and messages).
import type { Client, Website } from "./api.js";
import { h } from "./dom.js";
import { copyField } from "./copy-field.js";
import { apiForm, field, fieldError } from "./form.js";
import { t } from "./i18n.js";
import type { MessageKey } from "./messages.js";
import { shareLink } from "./website-list.js";

/** The browser's own zone: what most people mean. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

let zones: HTMLDataListElement | null = null;

/** A time zone field: typing picks from every IANA zone the browser knows. */
function timeZoneInput(value: string): HTMLInputElement {
  if (!zones) {
    const names = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((zone) => zone !== "UTC")];
    zones = h("datalist", { id: "time-zones" }, ...names.map((zone) => h("option", { value: zone })));
    document.body.append(zones);
  }
  return h("input", { name: "timezone", list: "time-zones", value, required: true, autocomplete: "off", spellcheck: "false" });
}

/** Names one a line or comma-separated, as typed. */
const namesOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((name) => name.trim())
    .filter(Boolean);

/** `exclude_params` for "drop every parameter but these" (`&` and `!name` lines): private pages by default. */
export const keepOnly = (names: readonly string[]) => ["&", ...names.map((name) => `!${name}`)].join("\n");

/** The parameters a setting keeps (`&` with `!name`), or null when it drops only those it lists. */
function keptOf(excludeParams: string): { keep: string[] } | { drop: string[] } {
  const entries = namesOf(excludeParams);
  return entries.includes("&")
    ? { keep: entries.filter((entry) => entry.startsWith("!")).map((entry) => entry.slice(1)) }
    : { drop: entries.filter((entry) => !entry.startsWith("!")) };
}

export function createWebsiteForm(client: Client, onCreated: (site: Website) => void): HTMLElement {
  const domain = h("input", { name: "domain", required: true, placeholder: "example.com", autocomplete: "off", spellcheck: "false" });
  const timezone = timeZoneInput(browserTimeZone());
  const kept = h("input", { name: "keep_params", placeholder: "q, page", autocomplete: "off", spellcheck: "false" });
  const form = apiForm(
    { class: "card form", "aria-labelledby": "new-website" },
    [
      h("h1", { id: "new-website", tabindex: "-1" }, t("site.add")),
      field(t("form.domain"), domain, t("form.domainHint")),
      field(t("form.timezone"), timezone, t("form.timezoneHint")),
      field(t("form.keepParams"), kept, t("form.keepParamsHint")),
    ],
    t("site.addButton"),
    async () =>
      onCreated(
        await client.websites.create({
          domain: domain.value.trim(),
          timezone: timezone.value.trim(),
          // Pages keep no query (a form's ?email=… never becomes a page) but the parameters listed.
          exclude_params: keepOnly(namesOf(kept.value)),
        }),
      ),
  );
  return h("main", { class: "narrow wide" }, form);
}

const checkbox = (name: string, checked: boolean) => h("input", { type: "checkbox", name, checked });
const PRIVACY: ReadonlyArray<[0 | 1 | 2, MessageKey, MessageKey]> = [
  [1, "privacy.private", "privacy.privateHint"],
  [0, "privacy.public", "privacy.publicHint"],
  [2, "privacy.password", "privacy.passwordHint"],
];

export function websiteSettingsForm(client: Client, site: Website, onSaved: (site: Website) => void): HTMLFormElement {
  const timezone = timeZoneInput(site.timezone);
  const radios = PRIVACY.map(([value, label, hint]) => {
    const input = h("input", { type: "radio", name: "privacy", value, checked: site.privacy === value, id: `privacy-${value}` });
    return h(
      "div",
      { class: "radio" },
      input,
      h("label", { for: input.id }, h("strong", {}, t(label)), " ", h("span", { class: "muted" }, t(hint))),
    );
  });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "new-password",
    placeholder: site.password ? t("form.unchanged") : "",
  });
  const passwordField = field(
    t("form.sharePassword"),
    password,
    site.password ? t("form.sharePasswordKeep") : t("form.sharePasswordNeeded"),
  );
  const shareSlot = h("div", { class: "share-url" });
  /** The share page's address with Copy, while the saved privacy shares it (public or password). */
  const showShareUrl = (saved: Website) => {
    shareSlot.replaceChildren();
    if (saved.privacy === 1) return;
    const url = new URL(shareLink(saved.domain), client.base).href;
    shareSlot.append(
      h("p", { class: "hint" }, t(saved.privacy === 0 ? "share.urlPublic" : "share.urlPassword")),
      copyField(url, t("share.url")),
    );
    // A public page can also sit on another site, in an iframe.
    if (saved.privacy === 0)
      shareSlot.append(
        h("p", { class: "hint" }, t("share.embedHint")),
        copyField(
          `<iframe src="${url}?embed=true" title="${saved.domain}" loading="lazy" style="width: 100%; height: 1600px; border: 0"></iframe>`,
          t("share.embed"),
        ),
      );
  };
  showShareUrl(site);
  const privacyValue = () =>
    Number(radios.map((radio) => radio.querySelector("input")).find((input) => input?.checked)?.value ?? site.privacy) as 0 | 1 | 2;
  const syncPassword = () => (passwordField.hidden = privacyValue() !== 2);
  for (const radio of radios) radio.addEventListener("change", syncPassword);
  syncPassword();
  const email = checkbox("email", site.email === 1);
  const bots = checkbox("exclude_bots", site.exclude_bots === 1);
  const ips = h("textarea", { name: "exclude_ips", rows: 3, spellcheck: "false", placeholder: "10.0.0.0/8" }, site.exclude_ips);
  const current = keptOf(site.exclude_params);
  const paramsMode = h(
    "select",
    { name: "params_mode" },
    h("option", { value: "keep", selected: "keep" in current }, t("form.paramsKeepOnly")),
    h("option", { value: "drop", selected: "drop" in current }, t("form.paramsDropOnly")),
  );
  const params = h(
    "textarea",
    { name: "exclude_params", rows: 2, spellcheck: "false", placeholder: "q" },
    ("keep" in current ? current.keep : current.drop).join("\n"),
  );
  const routeNames = checkbox("page_names", site.page_names === "route");
  const subdomains = checkbox("include_subdomains", site.include_subdomains === 1);
  const retention = h("input", {
    type: "number",
    name: "retention_days",
    min: 7,
    max: 3660,
    value: site.retention_days,
    inputmode: "numeric",
  });

  return apiForm(
    { class: "card form settings", "aria-labelledby": "settings-title" },
    [
      h("h2", { id: "settings-title" }, t("site.settings")),
      field(t("form.timezone"), timezone, t("form.timezoneFromNow")),
      h(
        "fieldset",
        { class: "field" },
        h("legend", {}, t("form.sharePage")),
        ...radios,
        passwordField,
        h("p", { class: "field-error error", "data-error-for": "privacy" }),
        shareSlot,
      ),
      field(t("form.reports"), email, h("span", {}, t("form.reportsHint"), " ", h("a", { href: "#/account" }, t("form.reportsLink")))),
      field(t("form.excludeBots"), bots, t("form.excludeBotsHint")),
      field(t("form.excludeIps"), ips, t("form.excludeIpsHint")),
      field(t("form.queryParams"), paramsMode),
      field(t("form.excludeParams"), params, t("form.excludeParamsHint")),
      field(t("form.retention"), retention, t("form.retentionHint")),
      field(t("form.routeNames"), routeNames, t("form.routeNamesHint")),
      field(t("form.includeSubdomains"), subdomains, t("form.includeSubdomainsHint", { domain: site.domain })),
    ],
    t("form.save"),
    async () => {
      const privacy = privacyValue();
      // Said here in the page's words rather than the API's ("required when privacy is 2").
      if (privacy === 2 && !password.value && !(site.password && site.privacy === 2))
        throw fieldError("password", t("form.passwordMissing"));
      const saved = await client.websites.update(site.id, {
        timezone: timezone.value.trim(),
        privacy,
        ...(privacy === 2 && password.value ? { password: password.value } : {}),
        email: email.checked ? 1 : 0,
        exclude_bots: bots.checked ? 1 : 0,
        exclude_ips: ips.value,
        exclude_params: paramsMode.value === "keep" ? keepOnly(namesOf(params.value)) : namesOf(params.value).join("\n"),
        retention_days: retention.value,
        page_names: routeNames.checked ? "route" : "path",
        include_subdomains: subdomains.checked ? 1 : 0,
      });
      password.value = "";
      onSaved(saved);
      showShareUrl(saved);
      return t("form.saved");
    },
  );
}
