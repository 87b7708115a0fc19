// Adding a website, and every setting of one (the API's fields, its rules and messages).
import type { Client, Website } from "./api.js";
import { h } from "./dom.js";
import { apiForm, field } from "./form.js";

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

export function createWebsiteForm(client: Client, onCreated: (site: Website) => void): HTMLElement {
  const domain = h("input", { name: "domain", required: true, placeholder: "example.com", autocomplete: "off", spellcheck: "false" });
  const timezone = timeZoneInput(browserTimeZone());
  const form = apiForm(
    { class: "card form", "aria-labelledby": "new-website" },
    [
      h("h1", { id: "new-website", tabindex: "-1" }, "Add a website"),
      field("Domain", domain, "The host your pages are served from; www. and the scheme are dropped."),
      field("Time zone", timezone, "Days and hours are counted in it."),
    ],
    "Add website",
    async () => onCreated(await client.websites.create({ domain: domain.value.trim(), timezone: timezone.value.trim() })),
  );
  return h("main", { class: "narrow wide" }, form);
}

const checkbox = (name: string, checked: boolean) => h("input", { type: "checkbox", name, checked });
const PRIVACY: ReadonlyArray<[0 | 1 | 2, string, string]> = [
  [1, "Private", "Only you (signed in) see the statistics."],
  [0, "Public", "Anyone with the share link sees them."],
  [2, "Password", "Anyone with the share link and the password."],
];

export function websiteSettingsForm(client: Client, site: Website, onSaved: (site: Website) => void): HTMLFormElement {
  const timezone = timeZoneInput(site.timezone);
  const radios = PRIVACY.map(([value, label, hint]) => {
    const input = h("input", { type: "radio", name: "privacy", value, checked: site.privacy === value, id: `privacy-${value}` });
    return h("div", { class: "radio" }, input, h("label", { for: input.id }, h("strong", {}, label), " ", h("span", { class: "muted" }, hint)));
  });
  const password = h("input", { type: "password", name: "password", autocomplete: "new-password", placeholder: site.password ? "unchanged" : "" });
  const passwordField = field("Share password", password, site.password ? "Leave empty to keep the current one; a new one signs everyone out." : "Needed for the Password choice.");
  const privacyValue = () => Number(radios.map((radio) => radio.querySelector("input")).find((input) => input?.checked)?.value ?? site.privacy) as 0 | 1 | 2;
  const syncPassword = () => (passwordField.hidden = privacyValue() !== 2);
  for (const radio of radios) radio.addEventListener("change", syncPassword);
  syncPassword();
  const email = checkbox("email", site.email === 1);
  const bots = checkbox("exclude_bots", site.exclude_bots === 1);
  const ips = h("textarea", { name: "exclude_ips", rows: 3, spellcheck: "false", placeholder: "10.0.0.0/8" }, site.exclude_ips);
  const params = h("textarea", { name: "exclude_params", rows: 3, spellcheck: "false", placeholder: "fbclid" }, site.exclude_params);
  const retention = h("input", { type: "number", name: "retention_days", min: 7, max: 3660, value: site.retention_days, inputmode: "numeric" });

  return apiForm(
    { class: "card form settings", "aria-labelledby": "settings-title" },
    [
      h("h2", { id: "settings-title" }, "Settings"),
      field("Time zone", timezone, "Days and hours are counted in it, from now on."),
      h("fieldset", { class: "field" }, h("legend", {}, "Share page"), ...radios, passwordField, h("p", { class: "field-error error", "data-error-for": "privacy" })),
      field("E-mail reports", email, h("span", {}, "Include this website in the account's reports (", h("a", { href: "#/account" }, "address and period"), ").")),
      field("Exclude bots", bots, "Drop hits from crawlers and other automated clients."),
      field("Excluded IP addresses", ips, "One address or CIDR range a line; their hits are dropped."),
      field("Excluded query parameters", params, "One name a line, removed from pages before counting; a line & removes every parameter."),
      field("Keep visits for (days)", retention, "How long filtered statistics can look back (7 to 3,660 days). Unfiltered figures are kept forever."),
    ],
    "Save settings",
    async () => {
      const privacy = privacyValue();
      const saved = await client.websites.update(site.id, {
        timezone: timezone.value.trim(),
        privacy,
        ...(privacy === 2 && password.value ? { password: password.value } : {}),
        email: email.checked ? 1 : 0,
        exclude_bots: bots.checked ? 1 : 0,
        exclude_ips: ips.value,
        exclude_params: params.value,
        retention_days: retention.value,
      });
      password.value = "";
      onSaved(saved);
      return "Saved.";
    },
  );
}
