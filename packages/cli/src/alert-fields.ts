import type { Alert, AlertInput } from "@tally-analytics/core";
import { ALERT_KIND_NAMES } from "@tally-analytics/core/internal";
import type { OptionSpecs, OptionValues, Print } from "./command.js";

/** The fields `alerts add` and `alerts update` take, as in the API (`--webhook-url` is `webhook_url`). */
export const ALERT_OPTIONS = {
  kind: { type: "string", value: ALERT_KIND_NAMES.join("|"), description: "what the rule watches (docs/alerts.md)" },
  threshold: {
    type: "string",
    value: "N",
    description: "visitors (visitors), times last week (spike, default 3), minutes (no_pageviews, default 30), visitors (goal, default 1)",
  },
  goal: { type: "string", value: "GOAL", description: "a goal rule's goal: event:NAME or page:PATTERN" },
  email: { type: "string", value: "ADDRESS", description: "e-mail it there (needs SMTP_URL on the server)" },
  "webhook-url": { type: "string", value: "URL", description: "POST it there, signed" },
  "webhook-format": { type: "string", value: "json|slack", description: "the webhook's body: Tally's JSON (default) or Slack's {text}" },
  enabled: { type: "string", value: "0|1", description: "0 keeps the rule without checking it (default 1)" },
  json: { type: "boolean", description: "print the rule as JSON" },
} as const satisfies OptionSpecs;

type AlertValues = OptionValues<typeof ALERT_OPTIONS>;

/** The given fields as the API's; core checks each (a ValidationError names the bad ones). */
export function alertInput(values: AlertValues): AlertInput {
  const input: Record<string, string> = {};
  for (const option of Object.keys(ALERT_OPTIONS) as (keyof AlertValues)[]) {
    const value = values[option];
    if (typeof value === "string") input[option.replace(/-/g, "_")] = value;
  }
  return input;
}

/** Where a rule's alerts go, in words. */
export const destinations = (alert: Alert) =>
  [alert.email && `e-mail ${alert.email}`, alert.webhook_url && `webhook ${alert.webhook_url} (${alert.webhook_format})`]
    .filter(Boolean)
    .join(", ");

/** The rule's condition in a few words: `visitors ≥ 100`, `goal event:Signup`. */
export const condition = (alert: Alert) => `${alert.kind} ${alert.threshold}${alert.goal ? ` ${alert.goal}` : ""}`;

/** One line, and the webhooks' signing key; or the rule as JSON with --json. */
export function printAlert(print: Print, verb: string, alert: Alert, domain: string, json: boolean | undefined): void {
  if (json) {
    print(JSON.stringify(alert, null, 2));
    return;
  }
  print(`${verb} alert ${alert.id} of ${domain}: ${condition(alert)}, to ${destinations(alert)}${alert.enabled ? "" : " (disabled)"}.`);
  if (alert.webhook_url) print(`Webhook signing key: ${alert.webhook_secret}`);
}
