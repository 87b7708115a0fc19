import type { Tally } from "@tally-analytics/core";
import { createHandler } from "../handler.js";
import type { HandlerOptions } from "../http/options.js";
import { countPageviews, type PageviewOptions } from "../pageviews.js";

export type { HandlerOptions } from "../http/options.js";
export type { PageviewOptions } from "../pageviews.js";

/** The second argument Next.js gives a route handler: the route's dynamic segments (a promise since Next.js 15). */
export interface NextRouteContext {
  params?: Promise<Record<string, string | string[] | undefined>> | Record<string, string | string[] | undefined>;
}

export type NextRouteHandler = (request: Request, context?: NextRouteContext) => Promise<Response>;

/** Every method, to export from the route file: `export const { GET, POST, … } = tallyNext(tally)`. */
export interface NextRouteHandlers {
  GET: NextRouteHandler;
  HEAD: NextRouteHandler;
  POST: NextRouteHandler;
  PUT: NextRouteHandler;
  PATCH: NextRouteHandler;
  DELETE: NextRouteHandler;
  OPTIONS: NextRouteHandler;
}

/**
 * What a request says of the browser. Next.js builds `request.url` from its own host name
 * (`localhost` unless `next start -H`) and gives no socket; `next start` sets X-Forwarded-Host
 * and X-Forwarded-Proto to what the browser used and puts the client's address last in
 * X-Forwarded-For (behind a proxy of yours, set `trustProxy` on `createTally`).
 */
export function visitorOf(request: Request): { url: string; ip: string | undefined; userAgent: string } {
  const own = new URL(request.url);
  const proto = request.headers.get("x-forwarded-proto");
  const origin = `${proto === "http" || proto === "https" ? proto : own.protocol.slice(0, -1)}://${request.headers.get("x-forwarded-host") ?? own.host}`;
  let url = own;
  try {
    url = new URL(`${own.pathname}${own.search}`, origin);
  } catch {
    // A host header no URL can have: the request's own URL.
  }
  const ip = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim() || undefined;
  return { url: url.href, ip, userAgent: request.headers.get("user-agent") ?? "" };
}

/**
 * The request at its public URL, with its client. Next.js also drops a route handler's
 * Content-Encoding and compresses the answer itself, so Tally is asked for uncompressed answers.
 */
function asSeen(request: Request): { request: Request; ip: string | undefined } {
  const { url, ip } = visitorOf(request);
  const headers = new Headers(request.headers);
  headers.delete("accept-encoding");
  const { method, body, signal } = request;
  const init: RequestInit & { duplex?: "half" } = { method, headers, body, signal, duplex: "half" };
  return { request: new Request(url, init), ip };
}

/**
 * The mount, from the catch-all segment Next.js matched (`app/analytics/[[...path]]/route.js`:
 * `/analytics/api/v1/websites` with `path` = api, v1, websites is `/analytics`); undefined
 * (then Tally's 404 names the mount it expected) when the segments do not end the path.
 */
function mountOf(pathname: string, params: Record<string, string | string[] | undefined> | undefined): string | undefined {
  const path = pathname.replace(/\/+$/, "");
  // No segments: the request is the mount itself (`/analytics/`, or a route without a catch-all).
  const segments = Object.values(params ?? {}).find((value) => Array.isArray(value));
  if (segments === undefined) return path;
  const rest = `/${segments.map(encodeURIComponent).join("/")}`;
  return path.endsWith(rest) ? path.slice(0, -rest.length) : undefined;
}

/**
 * Tally as Next.js App Router route handlers, for a catch-all route (`app/analytics/[[...path]]/route.js`:
 * `export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = tallyNext(tally)`). The mount
 * comes from the route's segments, the public URL and the client's address from the
 * X-Forwarded headers `next start` sets (behind a proxy of yours, set `trustProxy` on
 * `createTally`), so neither is an option.
 */
export function tallyNext(tally: Tally, options: Omit<HandlerOptions, "basePath" | "compression"> = {}): NextRouteHandlers {
  const handler = createHandler(tally, { ...options, compression: false });
  const serve: NextRouteHandler = async (request, context) => {
    const seen = asSeen(request);
    const params = await context?.params;
    return handler(seen.request, { ip: seen.ip, basePath: mountOf(new URL(seen.request.url).pathname, params) });
  };
  return { GET: serve, HEAD: serve, POST: serve, PUT: serve, PATCH: serve, DELETE: serve, OPTIONS: serve };
}

/**
 * Server-side pageviews in Next.js's proxy (`proxy.js`, its middleware): `count(request)` for
 * each request it sees, before the app answers; a browser's navigation to a page counts, its
 * files, prefetches and client-side navigations (the tracker's) do not.
 */
export function countNextPageviews(tally: Tally, options: PageviewOptions = {}): (request: Request) => void {
  const count = countPageviews(tally, options);
  return (request) => {
    const seen = asSeen(request);
    count(seen.request, { ip: seen.ip });
  };
}
