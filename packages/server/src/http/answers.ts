import {
  accountSchema,
  dayRangeSchema,
  funnelResultSchema,
  liveSchema,
  sessionHitSchema,
  sessionSchema,
  journeyResultSchema,
  realtimeSchema,
  statRowSchema,
  totalsSchema,
  websiteSchema,
} from "@tally-analytics/core/internal";
import * as z from "zod";
import { json } from "./json-response.js";
import type { RouteAnswer } from "./route.js";

// The JSON bodies the API answers, as zod schemas: handlers build them with `send`, so
// their payloads are typed against these, and the OpenAPI document is generated from them.

/** A body whose `status` is its HTTP status. */
type Answer = z.ZodObject<{ status: z.ZodLiteral<number> }>;

/** A JSON answer built from its schema: the payload is typed by it, the HTTP status is its `status`. */
export function send<S extends Answer>(schema: S, payload: Omit<z.input<S>, "status">, headers?: HeadersInit): Response {
  return json(schema.shape.status.value, payload, headers);
}

export const status = <Code extends number>(code: Code) => z.literal(code).meta({ description: "The HTTP status, repeated." });

/** `{ "data": …, "status": … }` */
export const dataAnswer = <T extends z.ZodType, Code extends number>(data: T, code: Code) => z.object({ data, status: status(code) });

/** `{ "message": …, "status": … }`: what every error says, and a few successes. */
export const messageAnswer = <Code extends number>(code: Code, example?: string) =>
  z.object({ message: z.string().meta(example === undefined ? {} : { example }), status: status(code) });

const link = z.url().meta({ description: "Absolute URL of that page (the request's other parameters kept)." });

export const listLinksSchema = z
  .object({ first: link, last: link, prev: link.nullable(), next: link.nullable() })
  .meta({ id: "ListLinks" });

export const listMetaSchema = z
  .object({
    current_page: z.int().positive(),
    from: z.int().positive().nullable().meta({ description: "Position of the first row on this page; null when it is empty." }),
    last_page: z.int().positive(),
    path: z.url(),
    per_page: z.int().positive(),
    to: z.int().positive().nullable(),
    total: z.int().nonnegative().meta({ description: "Rows in all pages." }),
    fallbacks: z
      .record(z.string(), z.object({ given: z.string(), used: z.string() }))
      .optional()
      .meta({
        description:
          "Present when `search_by`, `sort_by`, `sort` or `per_page` had a value Tally does not know: each such parameter, the value given and the default used instead (also said in a `Warning` header).",
        example: { sort_by: { given: "url", used: "id" } },
      }),
  })
  .meta({ id: "ListMeta" });

/**
 * The list envelope (Laravel-style): one page of rows, links to the others, and where this
 * page is; `meta`'s figures also at the top level, where existing clients of APIs of this shape read them.
 */
const listAnswer = <T extends z.ZodType>(row: T) =>
  z.object({
    data: z.array(row),
    ...listMetaSchema.omit({ path: true, fallbacks: true }).shape,
    links: listLinksSchema,
    meta: listMetaSchema,
    status: status(200),
  });

export const accountAnswer = dataAnswer(accountSchema, 200);
export const websiteAnswer = dataAnswer(websiteSchema, 200);
export const websiteCreatedAnswer = dataAnswer(websiteSchema, 201);
export const websiteListAnswer = listAnswer(websiteSchema).meta({ id: "WebsiteList" });
/** `{ "id", "object", "deleted": true, "status": 200 }`: what a DELETE answers, under the schema id `id`. */
export const deletedAnswer = <O extends string>(object: O, id: string) =>
  z.object({ id: z.int().positive(), object: z.literal(object), deleted: z.literal(true), status: status(200) }).meta({ id });
export const websiteDeletedAnswer = deletedAnswer("website", "WebsiteDeleted");

export const statsAnswer = listAnswer(statRowSchema)
  .extend({
    total: z.number().nonnegative().meta({
      description: "Rows in all pages (as `meta.total`); for `visits` and the ratios, the figure over the whole range instead.",
    }),
    previous_total: z.number().optional().meta({ description: "With `compare`: `total` over the comparison range." }),
    comparison: dayRangeSchema.optional().meta({ description: "With `compare`: the range compared with." }),
  })
  .meta({ id: "StatsPage" });
export const totalsAnswer = totalsSchema.extend({ status: status(200) });
export const funnelResultAnswer = funnelResultSchema.extend({ status: status(200) }).meta({ id: "FunnelResult" });
export const journeyResultAnswer = journeyResultSchema.extend({ status: status(200) }).meta({ id: "JourneyResult" });
export const realtimeAnswer = dataAnswer(realtimeSchema, 200);
export const liveAnswer = dataAnswer(liveSchema, 200);
export const sessionsAnswer = z
  .object({
    data: z.array(sessionSchema),
    meta: z.object({
      current_page: z.int().positive(),
      per_page: z.int().positive(),
      has_more: z.boolean().meta({ description: "Whether the next page has sessions." }),
    }),
    status: status(200),
  })
  .meta({ id: "SessionsPage" });
export const sessionAnswer = dataAnswer(
  z.object({ session: sessionSchema, hits: z.array(sessionHitSchema).meta({ description: "Its pageviews and events, in order." }) }),
  200,
).meta({ id: "SessionDetail" });
export const propertyNamesAnswer = dataAnswer(z.array(z.string()).meta({ example: ["plan", "source"] }), 200).meta({ id: "PropertyNames" });

export const sharedWebsiteAnswer = dataAnswer(
  z
    .object({ domain: z.string().meta({ example: "example.com" }), timezone: z.string().meta({ example: "UTC" }) })
    .meta({ id: "SharedWebsite" }),
  200,
);

/** Validation errors: every field with its messages (`filter.0` for the first filter). */
export const validationErrorSchema = z
  .object({
    message: z.string().meta({ example: "The given data was invalid." }),
    errors: z.record(z.string(), z.array(z.string())).meta({ example: { domain: ["The domain has already been taken."] } }),
    status: status(422),
  })
  .meta({ id: "ValidationError" });

const retryAfter = { "Retry-After": { description: "Seconds to wait before trying again.", required: true } };

/** The standard error answers, each with its component name in the document. */
export const ERROR_ANSWERS: Readonly<Record<number, RouteAnswer & { id: string }>> = {
  400: {
    id: "BadRequest",
    description: "The request could not be read (body not UTF-8, not JSON, not a JSON object; a malformed hit).",
    schema: messageAnswer(400),
  },
  401: {
    id: "Unauthorized",
    description: "No valid credentials: the API key is missing, unknown or revoked.",
    schema: messageAnswer(401, "Unauthenticated."),
    headers: { "WWW-Authenticate": { description: '`Bearer realm="tally"`', required: true } },
  },
  403: {
    id: "Forbidden",
    description:
      "Not allowed: a viewer or a read key on a route that changes something, a non-owner on a team or account route, a user limited to some websites creating one, an account that requires two-factor set-up first; or a request signed in by a cookie (Tally's session or the host's `authenticate` hook) that changes something came from another site (`Sec-Fetch-Site`, else `Origin`). `message` says which.",
    schema: messageAnswer(403),
  },
  404: {
    id: "NotFound",
    description: "Not found. Another account's website answers exactly like a missing one.",
    schema: messageAnswer(404, "Resource not found."),
  },
  405: {
    id: "MethodNotAllowed",
    description: "The path exists, but not with this method.",
    schema: messageAnswer(405, "Method not allowed."),
    headers: { Allow: { description: "The methods this path answers.", required: true } },
  },
  413: {
    id: "PayloadTooLarge",
    description: "The body is larger than the limit (64 KiB for the API by default, 16 KiB for a hit).",
    schema: messageAnswer(413, "The request body is too large."),
  },
  415: {
    id: "UnsupportedMediaType",
    description:
      "The body is neither `application/x-www-form-urlencoded` nor JSON, or is a form body on a request signed in by the host's `authenticate` hook (unless the host set `acceptSessionForms`).",
    schema: messageAnswer(415),
  },
  422: {
    id: "ValidationFailed",
    description: "The given data was invalid: `errors` names every field and its messages.",
    schema: validationErrorSchema,
  },
  429: {
    id: "TooManyRequests",
    description:
      "Rate limited: too many requests for this key, too many public reads or failed attempts from this address (IPv6: its /64).",
    schema: messageAnswer(429, "Too Many Attempts."),
    headers: retryAfter,
  },
  500: {
    id: "ServerError",
    description: "An unexpected error (reported to the host's `onError`); never a stack trace.",
    schema: messageAnswer(500, "Server error."),
  },
  503: {
    id: "Unavailable",
    description: "Busy: a statistics query ran past its time limit, or too many hits are waiting to be written.",
    schema: messageAnswer(503),
    headers: retryAfter,
  },
};
