// The Alerts card of a website's settings: its rules (pause, resume, delete), a form to add
// one, the signing key of a new rule's webhooks, and the delivery log. Like the settings page
// itself, for admins and owners (the API refuses anyone else, and the card says so).
import type { Alert, AlertCreate, AlertDelivery, Client, Website } from "./api.js";
import { copyField } from "./copy-field.js";
import { h, mount } from "./dom.js";
import { apiForm, field } from "./form.js";
import { t } from "./i18n.js";

const KINDS = ["visitors", "spike", "no_pageviews", "goal"] as const;
const FORMATS = ["json", "slack"] as const;

const select = <T extends string>(name: string, values: readonly T[], label: (value: T) => string) =>
  h("select", { name }, ...values.map((value) => h("option", { value }, label(value))));

const ruleText = (alert: Alert) => t(`alerts.rule.${alert.kind}`, { n: alert.threshold, goal: alert.goal });
const destinations = (alert: Alert) =>
  [alert.email, alert.webhook_url && `${alert.webhook_url} (${alert.webhook_format})`].filter(Boolean).join(", ");

function ruleRow(client: Client, site: Website, alert: Alert, refresh: () => void): HTMLElement {
  const status = h("span", { class: "form-status", role: "status" });
  const fail = (error: Error) => (status.textContent = error.message);
  const toggle = () => client.alerts.update(site.id, alert.id, { enabled: alert.enabled ? 0 : 1 }).then(refresh, fail);
  const remove = () => {
    if (confirm(t("alerts.deleteConfirm"))) client.alerts.delete(site.id, alert.id).then(refresh, fail);
  };
  const state = alert.enabled ? (alert.state === "firing" ? t("alerts.firing") : "") : t("alerts.paused");
  return h(
    "tr",
    { "data-alert": alert.id },
    h("td", {}, ruleText(alert), state ? h("span", { class: "badge" }, ` ${state}`) : null),
    h("td", {}, destinations(alert)),
    h(
      "td",
      {},
      h("button", { type: "button", onclick: toggle }, alert.enabled ? t("alerts.pause") : t("alerts.resume")),
      " ",
      h("button", { type: "button", class: "danger", onclick: remove }, t("alerts.delete")),
      status,
    ),
  );
}

function deliveryRow(delivery: AlertDelivery): HTMLElement {
  const status =
    t(`alerts.status.${delivery.status}`) + (delivery.last_error && delivery.status !== "sent" ? `: ${delivery.last_error}` : "");
  return h(
    "tr",
    {},
    h("td", {}, new Date(delivery.created_at).toLocaleString()),
    h("td", {}, delivery.text),
    h("td", {}, delivery.target),
    h("td", { class: `delivery-${delivery.status}` }, status, delivery.attempts > 1 ? ` (${delivery.attempts}×)` : ""),
  );
}

const table = (headings: string[], body: HTMLElement) =>
  h("table", { class: "members" }, h("thead", {}, h("tr", {}, ...headings.map((heading) => h("th", {}, heading)))), body);

function addForm(client: Client, site: Website, onAdded: (alert: Alert) => Promise<void>): HTMLFormElement {
  const kind = select("kind", KINDS, (value) => t(`alerts.kind.${value}`));
  const threshold = h("input", { name: "threshold", inputmode: "decimal", autocomplete: "off" });
  const goal = h("input", { name: "goal", autocomplete: "off", spellcheck: "false", placeholder: "event:Signup" });
  const goalField = field(t("alerts.goal"), goal, t("alerts.goalHint"));
  const email = h("input", { type: "email", name: "email", autocomplete: "off" });
  const webhook = h("input", { type: "url", name: "webhook_url", autocomplete: "off", placeholder: "https://" });
  const format = select("webhook_format", FORMATS, (value) => t(`alerts.format.${value}`));
  const showGoal = () => (goalField.hidden = kind.value !== "goal");
  kind.addEventListener("change", showGoal);
  showGoal();
  return apiForm(
    { class: "form", "aria-labelledby": "alerts-add" },
    [
      h("h3", { id: "alerts-add" }, t("alerts.add")),
      field(t("alerts.kind"), kind),
      field(t("alerts.threshold"), threshold, t("alerts.thresholdHint")),
      goalField,
      field(t("alerts.email"), email),
      field(t("alerts.webhook"), webhook),
      field(t("alerts.format"), format),
    ],
    t("alerts.add"),
    async () => {
      const fields: AlertCreate = {
        kind: kind.value as (typeof KINDS)[number],
        email: email.value.trim(),
        webhook_url: webhook.value.trim(),
        webhook_format: format.value as (typeof FORMATS)[number],
        ...(threshold.value.trim() ? { threshold: Number(threshold.value) } : {}),
        ...(kind.value === "goal" ? { goal: goal.value.trim() } : {}),
      };
      await onAdded(await client.alerts.create(site.id, fields));
      for (const input of [threshold, goal, email, webhook]) input.value = "";
    },
  );
}

export function alertsCard(client: Client, site: Website): HTMLElement {
  const rules = h("tbody");
  const log = h("tbody");
  const said = h("div", { role: "status" });
  async function refresh(): Promise<void> {
    try {
      const [alerts, deliveries] = await Promise.all([client.alerts.list(site.id), client.alerts.deliveries(site.id)]);
      mount(rules, ...alerts.map((alert) => ruleRow(client, site, alert, () => void refresh())));
      if (alerts.length === 0) mount(rules, h("tr", {}, h("td", { colspan: 3, class: "muted" }, t("alerts.none"))));
      mount(log, ...deliveries.map(deliveryRow));
      if (deliveries.length === 0) mount(log, h("tr", {}, h("td", { colspan: 4, class: "muted" }, t("alerts.logNone"))));
    } catch (error) {
      mount(said, h("p", { class: "error" }, error instanceof Error ? error.message : t("error.load")));
    }
  }
  const added = async (alert: Alert) => {
    mount(said, alert.webhook_url ? h("div", {}, h("p", {}, t("alerts.added")), copyField(alert.webhook_secret, t("alerts.webhook"))) : "");
    await refresh();
  };
  void refresh();
  return h(
    "section",
    { class: "card alerts-card", "aria-labelledby": "alerts-title" },
    h("h2", { id: "alerts-title" }, t("alerts.title")),
    h("p", { class: "muted" }, t("alerts.text")),
    table([t("alerts.kind"), t("alerts.to"), ""], rules),
    said,
    addForm(client, site, added),
    h("h3", {}, t("alerts.log"), " ", h("button", { type: "button", onclick: () => void refresh() }, t("alerts.refresh"))),
    table([t("alerts.when"), t("alerts.what"), t("alerts.to"), t("alerts.status")], log),
  );
}
