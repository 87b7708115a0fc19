import { escapeHtml, htmlDocument } from "../shared/html.js";
import type { MailMessage } from "../shared/mailer.js";
import { ALERT_KINDS, type AlertKindName, type Observation } from "./alert-kinds.js";
import type { WebhookFormat } from "./alert-input.js";

/** An alert as a webhook receives it in the `json` format (docs/alerts.md), and what the other formats are written from. */
export interface AlertPayload {
  type: "alert.fired";
  /** The delivery's id: the `webhook-id` header, the same at every attempt. */
  id: string;
  /** When the rule fired (ISO 8601, UTC). */
  created_at: string;
  website: { id: number; domain: string };
  alert: { id: number; kind: AlertKindName; threshold: number; goal: string };
  /** The rule's firing number, from 1. */
  firing: number;
  /** The figure compared with the threshold. */
  value: number;
  /** A spike's figure of the same hour last week. */
  previous?: number;
  /** What happened, in one line. */
  text: string;
  /** The website's dashboard; null without `publicUrl`. */
  dashboard_url: string | null;
}

export interface FiredRule {
  id: number;
  kind: AlertKindName;
  threshold: number;
  goal: string;
  website: { id: number; domain: string };
}

export function alertPayload(
  rule: FiredRule,
  fired: { uid: string; firing: number; at: number; observation: Observation; publicUrl: string | null },
): AlertPayload {
  const { observation } = fired;
  return {
    type: "alert.fired",
    id: fired.uid,
    created_at: new Date(fired.at).toISOString(),
    website: rule.website,
    alert: { id: rule.id, kind: rule.kind, threshold: rule.threshold, goal: rule.goal },
    firing: fired.firing,
    value: observation.value,
    ...(observation.previous === undefined ? {} : { previous: observation.previous }),
    text: observation.text,
    dashboard_url: fired.publicUrl === null ? null : `${fired.publicUrl}/#/websites/${rule.website.id}`,
  };
}

/** The webhook's body: the payload itself, or Slack's `{"text"}` with a link to the dashboard. */
export function webhookBody(payload: AlertPayload, format: WebhookFormat): string {
  if (format === "json") return JSON.stringify(payload);
  const link = payload.dashboard_url === null ? "" : ` <${payload.dashboard_url}|Open the dashboard>`;
  return JSON.stringify({ text: `:rotating_light: ${payload.text}${link}` });
}

/** The rule in words, for the e-mail's footer. */
function ruleLine({ alert }: AlertPayload): string {
  const kind = ALERT_KINDS[alert.kind];
  const goal = alert.goal === "" ? "" : `, goal ${alert.goal}`;
  return `Alert rule ${alert.id}: ${kind.label} (${alert.threshold} ${kind.threshold.meaning}${goal}).`;
}

/** The e-mail of one alert: its line as the subject, the rule and the dashboard below. */
export function alertMail(payload: AlertPayload, to: string, messageId: string): Omit<MailMessage, "from"> {
  const footer = `Change or stop it in ${payload.website.domain}'s settings in Tally.`;
  const text = [payload.text, "", ruleLine(payload), ...(payload.dashboard_url ? [`Dashboard: ${payload.dashboard_url}`] : []), "", footer];
  const link = payload.dashboard_url ? `<p><a href="${escapeHtml(payload.dashboard_url)}">Open the dashboard</a></p>` : "";
  const body = [
    `<p><strong>${escapeHtml(payload.text)}</strong></p>`,
    `<p>${escapeHtml(ruleLine(payload))}</p>`,
    link,
    `<p style="color:#666">${escapeHtml(footer)}</p>`,
  ].join("\n");
  return {
    to,
    subject: `Tally alert: ${payload.text}`,
    text: text.join("\n"),
    html: htmlDocument({ title: payload.text, body }),
    headers: { "Auto-Submitted": "auto-generated" },
    messageId,
  };
}
