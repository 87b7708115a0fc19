// The account's e-mail reports: where they go and what they cover.
import type { Account, Client } from "./api.js";
import { h } from "./dom.js";
import { apiForm, field } from "./form.js";

export function accountPage(client: Client, account: Account): HTMLElement {
  const email = h("input", { type: "email", name: "email", value: account.email ?? "", autocomplete: "email", placeholder: "you@example.com" });
  const period = h(
    "select",
    { name: "report_period" },
    h("option", { value: "week", selected: account.report_period === "week" }, "Every week (Monday to Sunday)"),
    h("option", { value: "month", selected: account.report_period === "month" }, "Every month"),
  );
  const form = apiForm(
    { class: "card form", "aria-labelledby": "reports-title" },
    [
      h("h2", { id: "reports-title" }, "E-mail reports"),
      h("p", { class: "muted" }, "One e-mail per period with the figures of every website whose E-mail reports setting is on. The server needs SMTP_URL and MAIL_FROM to send them."),
      field("Send reports to", email, "Leave empty to stop them."),
      field("Period", period),
    ],
    "Save",
    async () => {
      const saved = await client.updateAccount({ email: email.value.trim() || null, report_period: period.value as Account["report_period"] });
      return saved.email ? `Saved: reports go to ${saved.email} every ${saved.report_period}.` : "Saved: no reports.";
    },
  );
  return h("main", { class: "narrow wide" }, h("div", { class: "toolbar" }, h("h1", { tabindex: "-1" }, `Account: ${account.name}`)), form);
}
