import { createHash } from "node:crypto";
import { UnauthorizedError, validate, type Access, type Tally } from "@tally-analytics/core/internal";
import { authenticateRequest, bearerToken, type Authenticated } from "./http/auth.js";
import { DEFAULT_BODY_LIMIT, readFields } from "./http/body.js";
import { clientKey, createClientLimits } from "./http/client-limits.js";
import { compressResponse } from "./http/compression.js";
import { refuseCrossSite } from "./http/cross-site.js";
import { errorResponse, HttpError, MESSAGES, reportToConsole, tooManyAttempts } from "./http/errors.js";
import { warnIfUnwritten } from "./collect/health.js";
import { NOSNIFF } from "./http/json-response.js";
import type { HandlerContext, HandlerOptions, TallyHandler } from "./http/options.js";
import { createRateLimiter, type RateLimitResult } from "./http/rate-limit.js";
import { checkPermission, FORBIDDEN } from "./http/permissions.js";
import type { PublicRoute, Route } from "./http/route.js";
import { createRouter } from "./http/router.js";
import { routes } from "./routes.js";
import { queryObject } from "./http/validation.js";

const trimSlashes = (path: string) => path.replace(/\/+$/, "");

/** The path after the mount prefix, or null when the URL is not under it. */
function routedPath(pathname: string, base: string): string | null {
  if (pathname !== base && !pathname.startsWith(`${base}/`)) return null;
  const path = pathname.slice(base.length) || "/";
  return path.length > 1 ? path.replace(/\/$/, "") : path;
}

function withRateLimit(response: Response, result: RateLimitResult | undefined): Response {
  if (!result) return response;
  response.headers.set("x-ratelimit-limit", String(result.limit));
  response.headers.set("x-ratelimit-remaining", String(result.remaining));
  return response;
}

/**
 * Whose budget of `rateLimit` a request spends: its API key's, its person's (a session), or
 * its account's (the host's sign-in): one key used hard never holds back the others.
 */
function rateLimitKey(request: Request, { access, via }: Authenticated): string {
  if (via === "key")
    return `key:${createHash("sha256")
      .update(bearerToken(request) ?? "")
      .digest("base64url")}`;
  if (via === "session") return `user:${access.userId}`;
  return `account:${access.accountId}`;
}

/**
 * Turns a Request into a Response for Tally's API (and, through the route table,
 * its public endpoints). Errors of every kind become JSON here and nowhere else.
 */
export function createHandler(tally: Tally, options: HandlerOptions = {}): TallyHandler {
  const match = createRouter(routes);
  const limiter = options.rateLimit ? createRateLimiter(options.rateLimit) : null;
  const clients = createClientLimits(options);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const report = options.onError ?? reportToConsole;
  const compress = options.compression ?? true;

  /**
   * Who the request speaks for, or null without valid credentials; a refused API key counts
   * against the client's address. Credentials confined until their person sets up two-factor
   * sign-in are a 403 here too (share pages take it as none).
   */
  async function optionalAccount(request: Request, context: HandlerContext): Promise<Access | null> {
    try {
      const signedIn = await authenticateRequest(tally, request, options.authenticate);
      if (signedIn.confined) throw new HttpError(403, FORBIDDEN.twoFactorFirst);
      return signedIn.access;
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      if (bearerToken(request) !== null) clients.failedSignIn(clientKey(tally, request, context.ip));
      return null;
    }
  }

  async function prepare(
    route: Route,
    request: Request,
    url: URL,
    params: Record<string, string>,
    context: HandlerContext,
    basePath: string,
  ) {
    const query = route.query ? validate(route.query, queryObject(url)) : queryObject(url);
    const body = route.body ? validate(route.body, await readFields(request, bodyLimit)) : undefined;
    const account = () => optionalAccount(request, context);
    const reportError = (error: unknown) => report(error, request);
    return { tally, request, url, params, query, body, ip: context.ip, basePath, account, sso: options.sso, report: reportError };
  }

  async function answerPublic(
    route: PublicRoute,
    request: Request,
    url: URL,
    params: Record<string, string>,
    context: HandlerContext,
    basePath: string,
  ) {
    let response: Response;
    let limit: RateLimitResult | undefined;
    try {
      if (route.rateLimited) limit = clients.publicRead(clientKey(tally, request, context.ip));
      response = await route.handle(await prepare(route, request, url, params, context, basePath));
      if (route.readsStatistics && response.status === 200) await warnIfUnwritten(tally, response);
    } catch (error) {
      response = errorResponse(error, request, report);
    }
    for (const [name, value] of Object.entries(route.headers ?? {})) response.headers.set(name, value);
    return withRateLimit(response, limit);
  }

  async function signIn(request: Request, context: HandlerContext): Promise<Authenticated> {
    try {
      return await authenticateRequest(tally, request, options.authenticate);
    } catch (error) {
      // Failed sign-ins count per client address: guessing keys gets a 429 soon.
      if (error instanceof UnauthorizedError) clients.failedSignIn(clientKey(tally, request, context.ip));
      throw error;
    }
  }

  /**
   * Mounted under a prefix nobody named: a route of Tally's after some prefix of the path is
   * the likely mount, and the 404 says what to pass (a silent 404 to everything otherwise).
   */
  function unmountedRoute(method: string, pathname: string): string | null {
    for (let end = pathname.indexOf("/", 1); end > 0; end = pathname.indexOf("/", end + 1)) {
      const mount = pathname.slice(0, end);
      const rest = routedPath(pathname, mount);
      if (rest !== null && rest !== "/" && match(method, rest).kind !== "none") {
        return `Not found. Tally answers ${rest} here if it is mounted under ${mount}: pass createHandler(tally, { basePath: "${mount}" }) (the Express, Fastify and Hono adapters learn the mount themselves).`;
      }
    }
    return null;
  }

  async function dispatch(request: Request, context: HandlerContext): Promise<Response> {
    const url = new URL(request.url);
    const basePath = trimSlashes(context.basePath ?? options.basePath ?? "");
    const path = routedPath(url.pathname, basePath);
    const found = path === null ? ({ kind: "none" } as const) : match(request.method, path);
    if (found.kind === "none")
      throw new HttpError(404, basePath === "" ? (unmountedRoute(request.method, url.pathname) ?? MESSAGES.notFound) : MESSAGES.notFound);
    if (found.kind === "method") throw new HttpError(405, MESSAGES.methodNotAllowed, { allow: found.allow.join(", ") });
    const { route, params } = found;
    if (route.auth === "public") return answerPublic(route, request, url, params, context, basePath);

    const signedIn = await signIn(request, context);
    const { access } = signedIn;
    const limit = limiter?.hit(rateLimitKey(request, signedIn));
    let response: Response;
    try {
      if (limit && !limit.allowed) throw tooManyAttempts(limit.retryAfter);
      // A cookie rides along with other sites' requests: the host's, or Tally's own session (JSON only).
      if (signedIn.via === "hook") refuseCrossSite(request, options.acceptSessionForms ?? false);
      if (signedIn.via === "session") refuseCrossSite(request, false);
      checkPermission(route, signedIn);
      response = await route.handle({
        ...(await prepare(route, request, url, params, context, basePath)),
        accountId: access.accountId,
        access,
        via: signedIn.via,
      });
      if (route.readsStatistics && response.status === 200) await warnIfUnwritten(tally, response);
    } catch (error) {
      response = errorResponse(error, request, report);
    }
    response.headers.set("cache-control", "no-store");
    return withRateLimit(response, limit);
  }

  return async (request, context = {}) => {
    let response: Response;
    try {
      response = await dispatch(request, context);
    } catch (error) {
      response = errorResponse(error, request, report);
    }
    // Every answer, whatever its type: browsers never guess a script or a page out of it.
    for (const [name, value] of Object.entries(NOSNIFF)) response.headers.set(name, value);
    return compress ? compressResponse(request, response) : response;
  };
}
