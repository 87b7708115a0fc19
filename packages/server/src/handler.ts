import { UnauthorizedError, validate, type Tally } from "@tally-analytics/core";
import { authenticateRequest } from "./auth.js";
import { proxyTrust } from "./client-ip.js";
import { DEFAULT_BODY_LIMIT, readFields } from "./body.js";
import { errorResponse, HttpError, MESSAGES, reportToConsole } from "./errors.js";
import type { HandlerContext, HandlerOptions, TallyHandler } from "./options.js";
import { createRateLimiter, type RateLimitResult } from "./rate-limit.js";
import type { Route } from "./route.js";
import { createRouter } from "./router.js";
import { routes } from "./routes.js";
import { queryObject } from "./validation.js";

/** The path after the mount prefix, or null when the URL is not under it. */
function routedPath(pathname: string, basePath: string): string | null {
  const base = basePath.replace(/\/+$/, "");
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
 * Turns a Request into a Response for Tally's API (and, through the route table,
 * its public endpoints). Errors of every kind become JSON here and nowhere else.
 */
export function createHandler(tally: Tally, options: HandlerOptions = {}): TallyHandler {
  const match = createRouter(routes);
  const limiter = options.rateLimit ? createRateLimiter(options.rateLimit) : null;
  const failedSignIns = options.rateLimit ? createRateLimiter(options.rateLimit) : null;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const report = options.onError ?? reportToConsole;

  async function prepare(route: Route, request: Request, url: URL, params: Record<string, string>, context: HandlerContext) {
    const query = route.query ? validate(route.query, queryObject(url)) : queryObject(url);
    const body = route.body ? validate(route.body, await readFields(request, bodyLimit)) : undefined;
    const account = () =>
      authenticateRequest(tally, request, options.authenticate).catch((error: unknown) => {
        if (error instanceof UnauthorizedError) return null;
        throw error;
      });
    return { tally, request, url, params, query, body, ip: context.ip, account };
  }

  async function dispatch(request: Request, context: HandlerContext): Promise<Response> {
    const url = new URL(request.url);
    const path = routedPath(url.pathname, context.basePath ?? options.basePath ?? "");
    const found = path === null ? ({ kind: "none" } as const) : match(request.method, path);
    if (found.kind === "none") throw new HttpError(404, MESSAGES.notFound);
    if (found.kind === "method") throw new HttpError(405, MESSAGES.methodNotAllowed, { allow: found.allow.join(", ") });
    const { route, params } = found;
    if (route.auth === "public") {
      let response: Response;
      try {
        response = await route.handle(await prepare(route, request, url, params, context));
      } catch (error) {
        response = errorResponse(error, request, report);
      }
      for (const [name, value] of Object.entries(route.headers ?? {})) response.headers.set(name, value);
      return response;
    }

    const accountId = await authenticateRequest(tally, request, options.authenticate).catch((error: unknown) => {
      // Failed sign-ins count per client address: guessing keys gets a 429 soon.
      if (error instanceof UnauthorizedError && failedSignIns) {
        const address = proxyTrust(tally.options.trustProxy).clientIp(context.ip, (name) => request.headers.get(name));
        const failed = failedSignIns.hit(`address:${address ?? "unknown"}`);
        if (!failed.allowed) throw new HttpError(429, MESSAGES.tooManyAttempts, { "retry-after": String(failed.retryAfter) });
      }
      throw error;
    });
    const limit = limiter?.hit(`account:${accountId}`);
    let response: Response;
    try {
      if (limit && !limit.allowed) {
        throw new HttpError(429, MESSAGES.tooManyAttempts, { "retry-after": String(limit.retryAfter) });
      }
      response = await route.handle({ ...(await prepare(route, request, url, params, context)), accountId });
    } catch (error) {
      response = errorResponse(error, request, report);
    }
    response.headers.set("cache-control", "no-store");
    return withRateLimit(response, limit);
  }

  return async (request, context = {}) => {
    try {
      return await dispatch(request, context);
    } catch (error) {
      return errorResponse(error, request, report);
    }
  };
}
