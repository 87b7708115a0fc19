import type { Access, Tally } from "@tally-analytics/core";
import type { SsoOptions } from "./options.js";
import type * as z from "zod";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

/** What every route handler receives. */
export interface RequestContext<Query, Body> {
  tally: Tally;
  request: Request;
  /** The URL as the client sent it, mount prefix included: build public links from this. */
  url: URL;
  /** Path parameters, decoded, still strings (`{id}` → `params.id`). */
  params: Record<string, string>;
  /** The query, validated by the route's `query` schema (raw strings when it has none). */
  query: Query;
  /** The form or JSON body, validated by the route's `body` schema; undefined when it has none. */
  body: Body;
  /** The client's socket address when the transport knows it (collect resolves proxies itself). */
  ip: string | undefined;
  /** The mount prefix the request was routed under (`""` at the root, else e.g. `/analytics`), never taken from the rest of the path. */
  basePath: string;
  /**
   * Who the request's credentials speak for (the host's hook, the Bearer key, or a session
   * cookie), or null without valid ones. Public routes that serve members more (share pages) ask for it.
   */
  account(): Promise<Access | null>;
  /** The handler's single sign-on settings, when it has them. */
  sso: SsoOptions | undefined;
  /** Tells the host's `onError` of an unexpected error a route answers itself (the handler reports the ones it sees). */
  report(error: unknown): void;
}

interface RouteShape<Query, Body> {
  method: Method;
  /** Relative to the mount, with `{name}` parameters: `/api/v1/websites/{id}`. */
  path: string;
  query?: z.ZodType<Query>;
  /** When set, a form or JSON object body is read (within the body limit) and validated. */
  body?: z.ZodType<Body>;
  /** Headers sent with every answer of this route, errors included (e.g. CORS on /collect). */
  headers?: Readonly<Record<string, string>>;
  /** The path parameters' schema, when the handler checks them with it (the document shows each `{name}`). */
  params?: z.ZodObject;
  /** A body the handler reads itself instead of `body` (e.g. /collect's `text/plain` JSON): its schema and media types. */
  ownBody?: { schema: z.ZodType; mediaTypes: readonly string[] };
  /**
   * Answers statistics: while the store refuses writes, a 200 carries a `Warning` that
   * recent hits are not counted yet (the answer is what is stored).
   */
  readsStatistics?: boolean;
  /** A public route that also reads credentials (share pages): the owner's key, or the share-page cookie. */
  readsCredentials?: boolean;
  /** One line for the API reference, and the group it is listed under. */
  summary: string;
  tag: RouteTag;
  description?: string;
  /**
   * Every status this route can answer besides the ones its shape implies (see
   * `impliedErrors` in api/openapi.ts), with its body: the OpenAPI document is built
   * from these, and the HTTP tests check every answer against it.
   */
  responses: RouteResponses;
}

export type RouteTag =
  | "Account"
  | "Team"
  | "Sign-in"
  | "Websites"
  | "Statistics"
  | "Collection"
  | "Health"
  | "Dashboard"
  | "Share pages"
  | "Reports"
  | "Alerts"
  | "MCP"
  | "Documentation";

/** What one status of a route answers: a JSON body's schema, or other media types, and its headers. */
export interface RouteAnswer {
  description: string;
  /** The `application/json` body; handlers build it with `send(schema, …)`, so its type follows the schema. */
  schema?: z.ZodType;
  /** Bodies that are not JSON: media type → what it is. */
  media?: Readonly<Record<string, string>>;
  /** Response headers worth knowing, by name. */
  headers?: Readonly<Record<string, { description: string; required?: boolean }>>;
}

/** Status → answer, or `"error"` for a status answered with the standard error body of that status. */
export type RouteResponses = Readonly<Partial<Record<number, RouteAnswer | "error">>>;

/**
 * What a route needs of its caller. `read`: any member; `write`: an admin or owner, not
 * through a read key; `owner`: an owner, not through a read key; `self`: a user (session
 * or one of their keys) acting on their own sign-in (their keys); `two-factor`: the same,
 * for their two-factor set-up, which a session may use before a required set-up is done;
 * `anyone`: any credentials, even before a required two-factor set-up (who am I).
 */
export type Permission = "read" | "write" | "owner" | "self" | "two-factor" | "anyone";

/** Needs an account (API key, session or the host's authenticate hook); rate limited. */
export interface AccountRoute<Query = unknown, Body = unknown> extends RouteShape<Query, Body> {
  auth: "account";
  /** @default "read" for GET, "write" otherwise */
  permission?: Permission;
  handle(context: RequestContext<Query, Body> & { accountId: number; access: Access; via: "hook" | "key" | "session" }): Promise<Response>;
}

/** Open to anyone (the tracker's /collect and /script.js): reads what it needs from `request` itself. */
export interface PublicRoute<Query = unknown, Body = unknown> extends RouteShape<Query, Body> {
  auth: "public";
  /**
   * Counted per client address by the handler's `publicRateLimit`: set on the public
   * routes that read the database (share pages and their API), never on /collect or
   * /script.js, which must stay fast.
   */
  rateLimited?: boolean;
  handle(context: RequestContext<Query, Body>): Promise<Response>;
}

export type Route = AccountRoute | PublicRoute;

/** Checks one table entry with its own query/body types, then stores it untyped in the table. */
export function defineRoute<Query = Record<string, string>, Body = undefined>(
  route: AccountRoute<Query, Body> | PublicRoute<Query, Body>,
): Route {
  return route as Route;
}
