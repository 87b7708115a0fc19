// The account's e-mail reports: where they go and what they cover.
import type { Account, Client } from "./api.js";
import { h } from "./dom.js";
import { apiForm, field } from "./form.js";
import { t } from "./i18n.js";

/** The account's name (the header and the reports say it). */
function nameForm(client: Client, account: Account, onRenamed: (name: string) => void): HTMLFormElement {
  const name = h("input", { name: "name", value: account.name, required: true, maxlength: 100, autocomplete: "organization" });
  return apiForm(
    { class: "card form", "aria-labelledby": "account-name-title" },
    [h("h2", { id: "account-name-title" }, t("account.name")), field(t("account.nameLabel"), name)],
    t("account.rename"),
    async () => {
      const saved = await client.updateAccount({ name: name.value.trim() });
      onRenamed(saved.name);
      return t("form.saved");
    },
  );
}

export function accountPage(client: Client, account: Account): HTMLElement {
  const email = h("input", {
    type: "email",
    name: "email",
    value: account.email ?? "",
    autocomplete: "email",
    placeholder: "you@example.com",
  });
  const period = h(
    "select",
    { name: "report_period" },
    h("option", { value: "week", selected: account.report_period === "week" }, t("account.weekly")),
    h("option", { value: "month", selected: account.report_period === "month" }, t("account.monthly")),
  );
  const form = apiForm(
    { class: "card form", "aria-labelledby": "reports-title" },
    [
      h("h2", { id: "reports-title" }, t("account.reports")),
      h("p", { class: "muted" }, t("account.reportsHint")),
      field(t("account.sendTo"), email, t("account.sendToHint")),
      field(t("account.period"), period),
    ],
    t("account.save"),
    async () => {
      const saved = await client.updateAccount({
        email: email.value.trim() || null,
        report_period: period.value as Account["report_period"],
      });
      return saved.email
        ? t(saved.report_period === "month" ? "account.savedMonthly" : "account.savedWeekly", { email: saved.email })
        : t("account.savedNone");
    },
  );
  const title = h("h1", { tabindex: "-1" }, t("account.title", { name: account.name }));
  return h(
    "main",
    { class: "narrow wide" },
    h("div", { class: "toolbar" }, title),
    nameForm(client, account, (name) => {
      account.name = name;
      title.textContent = t("account.title", { name });
    }),
    form,
  );
}
