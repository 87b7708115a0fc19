import { canSeeWebsite, NotFoundError, TallyError, UnavailableError, ValidationError } from "@tally-analytics/core";
import { plausibleQuerySchema } from "@tally-analytics/core/internal";
import * as z from "zod";
import { DEFAULT_BODY_LIMIT, mediaType, parseJsonObject, readText } from "../http/body.js";
import { HttpError } from "../http/errors.js";
import { plainJson as json } from "../http/json-response.js";
import { defineRoute } from "../http/route.js";

const plausibleError = (example: string) =>
  z.object({ error: z.string().meta({ example }) }).meta({ description: "Plausible's error shape: one message." });

const revenueFigureSchema = z
  .object({
    short: z.string().meta({ example: "$1.2K" }),
    long: z.string().meta({ example: "$1,234.50" }),
    value: z.number().meta({ example: 1234.5 }),
    currency: z.string().meta({ example: "USD" }),
  })
  .meta({ id: "PlausibleRevenue", description: "A revenue metric in one currency, as Plausible's." });

const plausibleAnswerSchema = z
  .object({
    results: z.array(
      z.object({
        dimensions: z.array(z.string()).meta({ description: "One value per queried dimension, in their order." }),
        metrics: z.array(z.union([z.number(), revenueFigureSchema]).nullable()).meta({
          description:
            "One figure per queried metric, in their order: a number, or for `total_revenue` and `average_revenue` `{short, long, value, currency}`; " +
            "`scroll_depth` and `time_on_page` are null for a page without any, a revenue metric without revenue or with several currencies, as Plausible's.",
        }),
      }),
    ),
    meta: z.object({
      total_rows: z.int().optional(),
      time_labels: z.array(z.string()).optional(),
      imports_included: z.boolean().optional().meta({ description: "Always false: Tally counts imported data as its own." }),
      metric_warnings: z
        .record(z.string(), z.object({ code: z.string(), warning: z.string() }))
        .optional()
        .meta({
          description:
            "Why a revenue metric is null: `no_single_revenue_currency` (several currencies in a row; Tally converts none) or `no_revenue_goals_matching` (no revenue at all).",
        }),
    }),
    query: z.object({
      site_id: z.string(),
      metrics: z.array(z.string()),
      date_range: z.tuple([z.string(), z.string()]).meta({ description: "The days counted, as date-times in the website's time zone." }),
      filters: z.array(z.unknown()),
      dimensions: z.array(z.string()),
      order_by: z.array(z.tuple([z.string(), z.enum(["asc", "desc"])])),
      include: z.record(z.string(), z.boolean()),
      pagination: z.object({ limit: z.int(), offset: z.int() }),
    }),
  })
  .meta({ id: "PlausibleAnswer" });

/** An error in Plausible's shape: `{"error": "..."}`; what no request causes stays the handler's 500. */
function errorAnswer(error: unknown): Response {
  if (error instanceof HttpError) return json(error.status, { error: error.message }, error.headers);
  if (error instanceof ValidationError) return json(400, { error: Object.values(error.errors).flat()[0] ?? error.message });
  if (error instanceof NotFoundError) return json(404, { error: error.message });
  if (error instanceof UnavailableError) return json(503, { error: error.message }, { "retry-after": String(error.retryAfterSeconds) });
  if (error instanceof TallyError) return json(400, { error: error.message });
  throw error;
}

/** Plausible's Stats API v2: one endpoint, answered from Tally's own statistics (docs/moving.md, "Plausible's Stats API"). */
export const plausibleQueryRoute = defineRoute({
  method: "POST",
  path: "/api/v2/query",
  auth: "public",
  readsCredentials: true,
  rateLimited: true,
  readsStatistics: true,
  ownBody: { schema: plausibleQuerySchema, mediaTypes: ["application/json"] },
  summary: "Plausible's Stats API v2",
  tag: "Statistics",
  description:
    "A Plausible Stats API v2 query on one of the key's websites (`site_id`: its domain), answered `{results, meta, query}` as Plausible does. " +
    'Errors are Plausible\'s `{"error": …}`; a dimension or metric Tally does not keep is a 400 that names it.',
  responses: {
    200: { description: "The rows.", schema: plausibleAnswerSchema },
    400: {
      description: "A query Tally cannot answer, or a malformed one.",
      schema: plausibleError("Tally does not keep visit:entry_page_hostname; it cannot be used in dimensions."),
    },
    401: { description: "No valid API key.", schema: plausibleError("Missing or invalid API key: send Authorization: Bearer <key>.") },
    403: {
      description: "The key's user has not set up the two-factor sign-in their account requires.",
      schema: plausibleError("This account requires two-factor sign-in: set it up first."),
    },
    404: {
      description: "No website with that domain in the account.",
      schema: plausibleError('Site "example.com" not found in this account.'),
    },
    413: { description: "A body over 64 KiB.", schema: plausibleError("The request body is too large.") },
    415: { description: "A body that is not `application/json`.", schema: plausibleError("Send the query as application/json.") },
    503: { description: "The query took too long.", schema: plausibleError("The statistics query took too long and was stopped.") },
  },
  async handle({ tally, request, account }) {
    try {
      const access = await account();
      if (!access)
        return json(
          401,
          { error: "Missing or invalid API key: send Authorization: Bearer <key>." },
          { "www-authenticate": 'Bearer realm="tally"' },
        );
      // JSON only: a cross-site form cannot send it, so a session cookie alone never runs a query.
      if (mediaType(request) !== "application/json") throw new HttpError(415, "Send the query as application/json.");
      const body = parseJsonObject(await readText(request, DEFAULT_BODY_LIMIT));
      return json(
        200,
        await tally.stats.plausible(access.accountId, body, { canSee: (id) => canSeeWebsite(access, id), userId: access.userId }),
      );
    } catch (error) {
      return errorAnswer(error);
    }
  },
});
