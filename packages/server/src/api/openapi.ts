import { createRequire } from "node:module";
import * as z from "zod";
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiRequestBodyObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
  type ZodObjectInput,
} from "zod-openapi";
import type { OpenAPIV3_1 } from "openapi-types";
import type { Route, RouteAnswer } from "../http/route.js";
import { ERROR_ANSWERS } from "../http/answers.js";

/** Typed by `openapi-types` (types only): zod-openapi is bundled, not a dependency of the package. */
export type OpenApiDocument = OpenAPIV3_1.Document;

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/** The statuses a route can answer because of its shape, besides those it lists. */
export function impliedStatuses(route: Route): number[] {
  const statuses = [500];
  // 403: a role, key scope or website limit that does not allow it (permissions.ts), or an account asking for two-factor set-up first.
  if (route.auth === "account") statuses.push(401, 403, 429);
  // Signed in by a cookie (Tally's session or the host's hook): a cross-site change is 403, a form body 415 (cross-site.ts).
  if (route.auth === "account" && route.method !== "GET") statuses.push(415);
  if (route.auth === "public" && route.rateLimited) statuses.push(429);
  if (route.query || route.body) statuses.push(422);
  if (route.body) statuses.push(400, 413, 415);
  return [...new Set(statuses)];
}

const INTRO = `Tally's HTTP API, generated from its route table and zod schemas (the same ones the handlers are typed against and validate with).

- **Paths** are relative to where Tally is mounted (\`servers[0]\`): \`/\` with \`tally serve\`, or your prefix such as \`/analytics\`.
- **Authentication**: \`Authorization: Bearer <key>\` on \`/api/v1\` (\`tally keys create\` prints a key), or the host app's own \`authenticate(request)\` hook. Share pages are public, owner-only or password-protected (a cookie after \`POST /share/{domain}/api/auth\`).
- **Bodies**: \`application/x-www-form-urlencoded\` or \`application/json\`, at most 64 KiB.
- **Answers** are JSON whose \`status\` repeats the HTTP status. Errors are \`{"message", "status"}\`; invalid input is a 422 whose \`errors\` names every field. Never a stack trace.
- An unknown path answers 404 (\`NotFound\`); a known path with another method answers 405 (\`MethodNotAllowed\`) with \`Allow\`. Every \`GET\` also answers \`HEAD\`.
- **Rate limit** (when enabled: \`tally serve\` allows 600 requests a minute per key): \`X-RateLimit-Limit\` and \`X-RateLimit-Remaining\` on every \`/api/v1\` answer, 429 with \`Retry-After\` when spent. Failed sign-ins count per client address.`;

const TAGS: oas31.TagObject[] = [
  { name: "Account", description: "Who the key belongs to, and where its e-mail reports go." },
  { name: "Team", description: "People of the account (owners manage them), and each person's own API keys and two-factor sign-in." },
  {
    name: "Sign-in",
    description:
      "The sign-in pages (HTML forms): password, two-factor code, first owner, password reset and invitation links, single sign-on.",
  },
  { name: "Websites", description: "The websites an account measures, and their settings." },
  {
    name: "Statistics",
    description: "Counts from the rollups (and, with filters, from the visits and hits): docs/statistics.md defines each.",
  },
  { name: "Collection", description: "What the tracker script uses: public, no key." },
  { name: "Health", description: "Whether Tally can write its store: for load balancers and uptime checks; public, no key." },
  { name: "Share pages", description: "Read-only statistics pages and their API, as each website's `privacy` allows." },
  { name: "Dashboard", description: "The built-in dashboard (HTML)." },
  { name: "Reports", description: "The unsubscribe link of e-mail reports: public, signed." },
  { name: "Alerts", description: "Each website's alert rules (e-mail and signed webhooks) and their delivery log: admins and owners." },
  { name: "MCP", description: "The Model Context Protocol server for AI assistants: the statistics' read tools, with the key's access." },
  { name: "Documentation", description: "This document and its reference page." },
];

const SECURITY_SCHEMES: Record<string, oas31.SecuritySchemeObject> = {
  apiKey: {
    type: "http",
    scheme: "bearer",
    description:
      "An API key (`tly_…`): an account-wide one (owner), or a user's with scope `read` or `write`. A browser signed in at `/login` sends the `tally_session` cookie instead; apps that pass `authenticate(request)` to the handler may authenticate with their own session.",
  },
  shareCookie: {
    type: "apiKey",
    in: "cookie",
    name: "tally_share",
    description: "Set by `POST /share/{domain}/api/auth` with the right password; HttpOnly, 30 days, for that share page only.",
  },
};

const RATE_LIMIT_HEADERS: oas31.HeadersObject = {
  "X-RateLimit-Limit": { description: "Requests allowed per window (when rate limiting is on).", schema: { type: "string" } },
  "X-RateLimit-Remaining": { description: "Requests left in this window.", schema: { type: "string" } },
};

function headersOf(answer: RouteAnswer): oas31.HeadersObject {
  return Object.fromEntries(
    Object.entries(answer.headers ?? {}).map(([name, { description, required }]) => [
      name,
      { description, required: required ?? false, schema: { type: "string" } },
    ]),
  );
}

function responseObject(answer: RouteAnswer, extraHeaders: oas31.HeadersObject = {}): ZodOpenApiResponseObject {
  const media = Object.entries(answer.media ?? {}).map(
    ([type, description]) => [type, { schema: { type: "string", description } }] as const,
  );
  const content = answer.schema ? { "application/json": { schema: answer.schema } } : Object.fromEntries(media);
  const headers = { ...headersOf(answer), ...extraHeaders };
  return {
    description: answer.description,
    ...(Object.keys(content).length > 0 ? { content } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  };
}

/** The standard error answers, once each in `components.responses`. */
const errorComponents = Object.fromEntries(Object.values(ERROR_ANSWERS).map(({ id, ...answer }) => [id, responseObject(answer)]));

function errorResponse(status: number): oas31.ReferenceObject {
  const answer = ERROR_ANSWERS[status];
  if (!answer) throw new Error(`No standard answer for status ${status}: describe it in the route's responses.`);
  return { $ref: `#/components/responses/${answer.id}` };
}

function responsesOf(route: Route): ZodOpenApiResponsesObject {
  const extra = route.auth === "account" ? RATE_LIMIT_HEADERS : {};
  const listed = Object.entries(route.responses).map(
    ([status, answer]) =>
      [Number(status), answer === "error" || answer === undefined ? errorResponse(Number(status)) : responseObject(answer, extra)] as const,
  );
  const implied = impliedStatuses(route)
    .filter((status) => !(status in route.responses))
    .map((status) => [status, errorResponse(status)] as const);
  const all = [...listed, ...implied].sort(([a], [b]) => a - b);
  return Object.fromEntries(all.map(([status, response]) => [String(status), response]));
}

/** `{name}` segments without a schema of their own are plain strings. */
function pathParams(route: Route): z.ZodObject | undefined {
  if (route.params) return route.params;
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  return names.length === 0 ? undefined : z.object(Object.fromEntries(names.map((name) => [name, z.string()])));
}

function requestBody(route: Route): ZodOpenApiRequestBodyObject | undefined {
  if (route.body) {
    const media = { schema: route.body };
    return { required: route.method === "POST", content: { "application/x-www-form-urlencoded": media, "application/json": media } };
  }
  if (route.ownBody) {
    const media = { schema: route.ownBody.schema };
    return { required: true, content: Object.fromEntries(route.ownBody.mediaTypes.map((type) => [type, media])) };
  }
  return undefined;
}

/** `GET /api/v1/websites/{id}` → `getWebsitesById`. */
function operationId(route: Route): string {
  const words = route.path
    .replace(/^\/api\/v1/, "")
    .split(/[/.]/)
    .filter(Boolean)
    .map((part) => part.replace(/^\{(\w+)\}$/, "by-$1"))
    .flatMap((part) => part.split(/[-_]/));
  const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
  return route.method.toLowerCase() + (words.map(capital).join("") || "Root");
}

function operation(route: Route): ZodOpenApiOperationObject {
  const path = pathParams(route);
  const body = requestBody(route);
  const security = route.auth === "account" ? [{ apiKey: [] }] : route.readsCredentials ? [{}, { apiKey: [] }, { shareCookie: [] }] : [];
  return {
    operationId: operationId(route),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security,
    requestParams: { ...(path ? { path } : {}), ...(route.query ? { query: route.query as ZodObjectInput } : {}) },
    ...(body ? { requestBody: body } : {}),
    responses: responsesOf(route),
  };
}

/** The OpenAPI 3.1 document of a route table; `serverUrl` is the mount's public URL. */
export function createOpenApiDocument(routes: readonly Route[], serverUrl: string): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase() as Lowercase<Route["method"]>] = operation(route);
  }
  return createDocument({
    openapi: "3.1.0",
    info: { title: "Tally API", version, description: INTRO, license: { name: "MIT", identifier: "MIT" } },
    servers: [{ url: serverUrl, description: "This Tally, where it is mounted." }],
    tags: TAGS,
    paths,
    components: { securitySchemes: SECURITY_SCHEMES, responses: errorComponents },
  }) as unknown as OpenApiDocument; // the same OpenAPI 3.1 shape, typed by its own package
}
