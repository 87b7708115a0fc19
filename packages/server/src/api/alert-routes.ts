import { NotFoundError } from "@tally-analytics/core";
import { alertCreateSchema, alertDeliverySchema, alertSchema, alertUpdateSchema } from "@tally-analytics/core/internal";
import * as z from "zod";
import { dataAnswer, send, status } from "../http/answers.js";
import { defineRoute, type Route } from "../http/route.js";
import { resourceId, websiteParams } from "../http/website-params.js";

/** `{id}/alerts/{alert}`: the website and one of its alert rules. */
const alertParams = websiteParams.extend({
  alert: z
    .string()
    .regex(/^\d{1,15}$/)
    .meta({ description: "The alert rule's id.", example: "1" }),
});

/** The rule `{alert}` names; a malformed id names none (404). */
function alertId(params: Record<string, string>): number {
  const parsed = alertParams.safeParse(params);
  if (!parsed.success) throw new NotFoundError();
  return Number(parsed.data.alert);
}

const deliveriesQuery = z.object({
  alert: z
    .string()
    .regex(/^\d{1,15}$/, "The alert must be the id of one of the website's alert rules.")
    .transform(Number)
    .optional()
    .meta({ description: "Only this rule's deliveries." }),
  limit: z
    .string()
    .regex(/^\d+$/, "The limit must be a whole number from 1 to 200.")
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= 200, "The limit must be a whole number from 1 to 200.")
    .default(50)
    .meta({ description: "How many, newest first (1 to 200).", default: "50" }),
});

const alertAnswer = dataAnswer(alertSchema, 200);
const alertCreatedAnswer = dataAnswer(alertSchema, 201);
const alertListAnswer = dataAnswer(z.array(alertSchema), 200).meta({ id: "AlertList" });
const deliveryListAnswer = dataAnswer(z.array(alertDeliverySchema), 200).meta({ id: "AlertDeliveryList" });
const alertDeletedAnswer = z
  .object({ id: z.int().positive(), object: z.literal("alert"), deleted: z.literal(true), status: status(200) })
  .meta({ id: "AlertDeleted" });

const notFound = { 404: "error" } as const;

/**
 * Each website's alert rules and their delivery log (docs/alerts.md). Rules name where alerts
 * go and carry the webhooks' signing key: admins and owners only, reading them too.
 */
export const alertRoutes: readonly Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/websites/{id}/alerts",
    auth: "account",
    permission: "write",
    params: websiteParams,
    summary: "List a website's alert rules",
    tag: "Alerts",
    responses: { 200: { description: "Every rule of the website, oldest first.", schema: alertListAnswer }, ...notFound },
    async handle(context) {
      return send(alertListAnswer, { data: await context.tally.alerts.list(context.accountId, resourceId(context)) });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/websites/{id}/alerts",
    auth: "account",
    params: websiteParams,
    body: alertCreateSchema,
    summary: "Add an alert rule",
    tag: "Alerts",
    description:
      "`kind` and its `threshold`: `visitors` (visitors in the last hour ≥ threshold), `spike` (the last hour's visitors ≥ threshold × the same hour last week's), " +
      "`no_pageviews` (none for threshold minutes), `goal` (`goal` converted by at least threshold visitors since the last check). " +
      "Sent to `email`, to `webhook_url` (signed: docs/alerts.md), or both. The answer holds the webhooks' signing key.",
    responses: { 201: { description: "The rule added.", schema: alertCreatedAnswer }, ...notFound },
    async handle(context) {
      const { tally, accountId, body } = context;
      return send(alertCreatedAnswer, { data: await tally.alerts.create(accountId, resourceId(context), body) });
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/websites/{id}/alerts/{alert}",
    auth: "account",
    params: alertParams,
    body: alertUpdateSchema,
    summary: "Change an alert rule",
    tag: "Alerts",
    description: "A partial update: fields left out keep their value. A new kind, threshold or goal starts the rule afresh (not firing).",
    responses: { 200: { description: "The rule, changed.", schema: alertAnswer }, ...notFound },
    async handle(context) {
      const { tally, accountId, body, params } = context;
      return send(alertAnswer, { data: await tally.alerts.update(accountId, resourceId(context), alertId(params), body) });
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/websites/{id}/alerts/{alert}",
    auth: "account",
    params: alertParams,
    summary: "Delete an alert rule and its deliveries",
    tag: "Alerts",
    responses: { 200: { description: "Deleted.", schema: alertDeletedAnswer }, ...notFound },
    async handle(context) {
      const { tally, accountId, params } = context;
      const id = alertId(params);
      await tally.alerts.delete(accountId, resourceId(context), id);
      return send(alertDeletedAnswer, { id, object: "alert", deleted: true });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/websites/{id}/alert-deliveries",
    auth: "account",
    permission: "write",
    params: websiteParams,
    query: deliveriesQuery,
    summary: "The alerts' delivery log",
    tag: "Alerts",
    description:
      "The website's latest alert deliveries, newest first: each firing of a rule once per way it is sent, its status (`pending`, `sending`, `sent`, `failed`), attempts and last error.",
    responses: { 200: { description: "The deliveries.", schema: deliveryListAnswer }, ...notFound },
    async handle(context) {
      const { tally, accountId, query } = context;
      const options = { limit: query.limit, ...(query.alert === undefined ? {} : { alert: query.alert }) };
      return send(deliveryListAnswer, { data: await tally.alerts.deliveries(accountId, resourceId(context), options) });
    },
  }),
];
