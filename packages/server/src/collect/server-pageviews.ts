import type { HitInput, Tally } from "@tally-analytics/core";
import { proxyTrust, type HeaderReader } from "../http/client-ip.js";

/** What every form of the server-side counting middleware takes (docs/guide/inside-your-app.md). */
export interface PageviewOptions {
  /**
   * Path prefixes never counted (`["/admin", "/analytics"]`): pages of yours that are not
   * the site's, and Tally's own dashboard when it is mounted in front of this middleware.
   * @default []
   */
  exclude?: readonly string[];
}

/** A request that may be a page someone sees: what the middleware learnt of it before the app answers. */
export interface PageRequest {
  /** The public URL (scheme and host as the client used them). */
  url: string;
  socketIp: string | undefined;
  header: HeaderReader;
}

/** Prefetches and prerenders: nobody has seen the page (yet). */
function isPrefetch(header: HeaderReader): boolean {
  return /prefetch/i.test(header("sec-purpose") ?? "") || /prefetch/i.test(header("purpose") ?? "") || header("x-moz") === "prefetch";
}

/** A file of the site (`.css`, `.png`, `.js`…) rather than a page: a last path segment with an extension other than `.html`. */
const isAsset = (path: string) => /\.(?!html?$)[^./]+$/i.test(path);

/**
 * Whether a request may be a page view: a `GET` of a browser navigation (it accepts
 * HTML; `Sec-Fetch-Dest`, when sent, is `document`), not a prefetch, not an asset, not an
 * excluded path. API calls (`fetch`, `Accept: application/json` or `*\/*`) are not.
 */
export function isPageRequest(method: string | undefined, path: string, header: HeaderReader, options: PageviewOptions): boolean {
  if (method !== "GET" || isAsset(path) || isPrefetch(header)) return false;
  const destination = header("sec-fetch-dest");
  if (destination && destination !== "document") return false;
  if (!(header("accept") ?? "").includes("text/html")) return false;
  return !(options.exclude ?? []).some((prefix) => path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`));
}

/** A successful HTML answer: the page was served. */
export const isPageResponse = (status: number, contentType: string | undefined): boolean =>
  status >= 200 && status < 300 && /^\s*text\/html\b/i.test(contentType ?? "");

/** Distinct texts kept by `shared` before it starts again. */
const MAX_SHARED = 4096;
const sharedTexts = new Map<string, string>();

/**
 * The copy of a text kept already, when there is one. A view is held for seconds, long
 * enough for what it holds to reach the old generation; its page, user agent and referrer
 * repeat from view to view, and a copy kept once spares the garbage collector one a view.
 */
function shared(text: string | null | undefined): string | undefined {
  if (text === null || text === undefined) return undefined;
  const kept = sharedTexts.get(text);
  if (kept !== undefined) return kept;
  if (sharedTexts.size >= MAX_SHARED) sharedTexts.clear();
  sharedTexts.set(text, text);
  return text;
}

/** The pageview of a served page, as the tracker would have sent it, from the request's own address, user agent and referrer. */
function pageHit(tally: Tally, request: PageRequest, route: string | undefined): HitInput {
  const { header } = request;
  const ip = proxyTrust(tally.options.trustProxy).clientIp(request.socketIp, header);
  // One literal, the same shape for every view (spread parts would give each view's object a shape of its own).
  return {
    url: shared(request.url)!,
    referrer: shared(header("referer")),
    language: shared(header("accept-language")?.split(",", 1)[0]),
    userAgent: shared(header("user-agent")) ?? "",
    ip,
    route,
  };
}

/** `Server-Timing` with the view's mark added to what the app set itself: the tracker reads it (PerformanceNavigationTiming.serverTiming). */
export function markedServerTiming(existing: string | undefined, mark: string): string {
  const entry = `tally;desc="${mark}"`;
  return existing ? `${existing}, ${entry}` : entry;
}

/**
 * Counts a served page (held for the tracker: `tally.servePageview`) and answers the
 * `Server-Timing` value its response must carry, or null when the answer is no page view.
 */
export function servePage(
  tally: Tally,
  request: PageRequest,
  response: { status: number; contentType: string | undefined; serverTiming: string | undefined; route: string | undefined },
): string | null {
  if (!isPageResponse(response.status, response.contentType)) return null;
  const mark = tally.servePageview(pageHit(tally, request, response.route));
  return markedServerTiming(response.serverTiming, mark);
}
