import * as z from "zod";
import { timestamp } from "../accounts/account-schema.js";
import { emailAddress } from "../accounts/account-input.js";
import { FUNNEL_LIMITS, parseStep } from "../model/path-steps.js";
import { choice } from "../shared/validation.js";
import { ALERT_KIND_NAMES, ALERT_KINDS, alertKind } from "./alert-kinds.js";

/** How a webhook's body is written: Tally's JSON, or `{"text": …}` as Slack's incoming webhooks (and Mattermost, Discord's `/slack`) take it. */
export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The ways a firing is sent: a row each in the delivery log. */
export const ALERT_CHANNELS = ["email", "webhook"] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

/** What a caller sends to create or change a rule; form values arrive as strings. */
export interface AlertInput {
  kind?: unknown;
  threshold?: unknown;
  goal?: unknown;
  email?: unknown;
  webhook_url?: unknown;
  webhook_format?: unknown;
  enabled?: unknown;
}

const trimmed = (value: unknown) => (typeof value === "string" ? value.trim() : value);
const KIND_LIST = ALERT_KIND_NAMES.join(", ");

const NUMBER_MESSAGE = "The threshold must be a number.";
const thresholdField = z
  .preprocess(
    trimmed,
    z.union([z.number(), z.string().regex(/^\d+(\.\d+)?$/, NUMBER_MESSAGE)], { error: NUMBER_MESSAGE }).transform(Number),
  )
  .meta({
    description: `The rule's number: ${ALERT_KIND_NAMES.map((name) => `\`${name}\` ${ALERT_KINDS[name].threshold.meaning}`).join("; ")}.`,
    example: 100,
  });

const goalField = z
  .preprocess(trimmed, z.string({ error: "The goal must be a string." }))
  .refine((text) => text === "" || parseStep(text) !== null, {
    message: `The goal must be event:<name> or page:<pattern>, 1 to ${FUNNEL_LIMITS.stepLength} characters after the colon.`,
  })
  .meta({
    description: "A `goal` rule's goal: `event:<name>`, or `page:<pattern>` (`*`: any characters), as funnel steps are written.",
    example: "event:Signup",
  });

const emailField = z
  .preprocess((value) => (value === null ? "" : trimmed(value)), z.union([z.literal(""), emailAddress("email")]))
  .meta({ description: "Where the alert is e-mailed; empty for none.", example: "ops@example.com" });

const URL_MESSAGE = "The webhook url must be an http:// or https:// URL.";
const webhookUrlField = z
  .preprocess((value) => (value === null ? "" : trimmed(value)), z.string({ error: URL_MESSAGE }).max(2000, URL_MESSAGE))
  .refine((text) => text === "" || (/^https?:\/\/[^/]/i.test(text) && URL.canParse(text)), URL_MESSAGE)
  .meta({ description: "Where the alert is POSTed, signed (docs/alerts.md); empty for none.", example: "https://hooks.example.com/tally" });

/** Every field of a rule, each optional: a change names only what it changes. */
const alertFields = {
  kind: choice("kind", ALERT_KIND_NAMES).meta({
    description: `What the rule watches: ${KIND_LIST} (docs/alerts.md).`,
    example: "visitors",
  }),
  threshold: thresholdField,
  goal: goalField,
  email: emailField,
  webhook_url: webhookUrlField,
  webhook_format: choice("webhook_format", WEBHOOK_FORMATS).meta({
    description: '`json` (default): Tally\'s alert object; `slack`: `{"text": …}` for Slack-compatible incoming webhooks.',
  }),
  enabled: z
    .preprocess(trimmed, z.union([z.literal([0, 1]), z.enum(["0", "1"])], { error: "The enabled field must be 0 or 1." }))
    .transform(Number)
    .meta({ description: "1 (default) checks the rule; 0 keeps it without checking it." }),
};

/** A rule whole: each field given or defaulted, the kind's own rules checked. */
export interface AlertRule {
  kind: keyof typeof ALERT_KINDS;
  threshold: number;
  goal: string;
  email: string;
  webhook_url: string;
  webhook_format: WebhookFormat;
  enabled: number;
}

/** The checks between fields: the threshold's bounds for the kind, the goal of a goal rule (only), at least one way to send. */
function checkRule(rule: AlertRule, context: z.RefinementCtx): void {
  const { min, max, whole, meaning } = alertKind(rule.kind).threshold;
  if (rule.threshold < min || rule.threshold > max || (whole && !Number.isInteger(rule.threshold))) {
    const message = `The threshold of a ${rule.kind} rule must be ${whole ? "a whole number" : "a number"} from ${min} to ${max} (${meaning}).`;
    context.addIssue({ code: "custom", path: ["threshold"], message });
  }
  const { goal } = alertKind(rule.kind);
  if (goal && !rule.goal) context.addIssue({ code: "custom", path: ["goal"], message: "The goal field is required for a goal rule." });
  if (!goal && rule.goal) context.addIssue({ code: "custom", path: ["goal"], message: "Only a goal rule has a goal." });
  if (!rule.email && !rule.webhook_url) {
    context.addIssue({ code: "custom", path: ["email"], message: "An alert needs an email, a webhook url, or both." });
  }
}

/** POST …/alerts: `kind` and its threshold (some kinds have a default), where to send it. */
export const alertCreateSchema = z
  .object({
    ...alertFields,
    threshold: alertFields.threshold.optional(),
    goal: alertFields.goal.default(""),
    email: alertFields.email.default(""),
    webhook_url: alertFields.webhook_url.default(""),
    webhook_format: alertFields.webhook_format.default("json"),
    enabled: alertFields.enabled.default(1),
  })
  .transform((rule, context): AlertRule => {
    const { threshold } = alertKind(rule.kind);
    const value = rule.threshold ?? threshold.default;
    if (value !== undefined) return { ...rule, threshold: value };
    context.addIssue({ code: "custom", path: ["threshold"], message: `The threshold field is required (${threshold.meaning}).` });
    return z.NEVER;
  })
  .superRefine(checkRule)
  .meta({ id: "AlertCreate" });

/** PUT …/alerts/{alert}: any field; the rule as changed is checked whole. */
export const alertUpdateSchema = z
  .object({
    kind: alertFields.kind.optional(),
    threshold: alertFields.threshold.optional(),
    goal: alertFields.goal.optional(),
    email: alertFields.email.optional(),
    webhook_url: alertFields.webhook_url.optional(),
    webhook_format: alertFields.webhook_format.optional(),
    enabled: alertFields.enabled.optional(),
  })
  .meta({ id: "AlertUpdate" });

/** A rule as the API shows it. */
export const alertSchema = z
  .object({
    id: z.int().positive(),
    website_id: z.int().positive(),
    kind: z.enum(ALERT_KIND_NAMES),
    threshold: z.number(),
    goal: z.string(),
    email: z.string(),
    webhook_url: z.string(),
    webhook_format: z.enum(WEBHOOK_FORMATS),
    webhook_secret: z.string().meta({
      description:
        "The webhooks' signing key (`whsec_…`, Standard Webhooks): check the `webhook-signature` header with it (docs/alerts.md).",
    }),
    enabled: z.literal([0, 1]),
    state: z
      .enum(["ok", "firing"])
      .meta({ description: "`firing` while the condition of a rule that fired still holds (it fires again once it has stopped)." }),
    firings: z.int().nonnegative().meta({ description: "How many times it fired." }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "Alert" });

export type Alert = z.infer<typeof alertSchema>;

/** One firing sent one way: a row of the delivery log. */
export const alertDeliverySchema = z
  .object({
    id: z.int().positive(),
    alert_id: z.int().positive(),
    firing: z.int().positive().meta({ description: "The rule's firing number." }),
    channel: z.enum(ALERT_CHANNELS),
    target: z.string().meta({ description: "The address or URL it went to." }),
    uid: z.string().meta({ description: "The same at every attempt: the `webhook-id` header, the e-mail's Message-ID." }),
    text: z.string().meta({ description: "What happened, in one line." }),
    status: z.enum(["pending", "sending", "sent", "failed"]).meta({
      description: "`pending` (waiting for its next attempt), `sending`, `sent`, or `failed` (gave up).",
    }),
    attempts: z.int().nonnegative(),
    last_error: z.string().nullable(),
    next_attempt_at: timestamp.nullable().meta({ description: "When a pending delivery is tried next." }),
    sent_at: timestamp.nullable(),
    created_at: timestamp,
  })
  .meta({ id: "AlertDelivery" });

export type AlertDelivery = z.infer<typeof alertDeliverySchema>;
