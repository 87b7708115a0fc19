import { DROP_ALL_PARAMS, KEEP_PREFIX, splitList } from "../shared/exclusion-lists.js";
import { stripWww } from "../websites/domain.js";
import { hasControlCharacters, storableText } from "../shared/text.js";
import { isTrackingParam, mayHoldTrackingParams, paramName, UTM_PREFIX } from "./tracking-params.js";

/**
 * A website's exclude_params compiled once: null keeps everything, a set drops those names,
 * "all" drops the query; `keep`: a line `&` with lines `!name` drops every parameter but those.
 */
export type ParamFilter = Set<string> | "all" | { keep: ReadonlySet<string> } | null;

export function compileParamFilter(text: string): ParamFilter {
  const entries = splitList(text);
  if (entries.includes(DROP_ALL_PARAMS)) {
    const kept = entries.filter((entry) => entry.startsWith(KEEP_PREFIX)).map((entry) => entry.slice(KEEP_PREFIX.length));
    return kept.length === 0 ? "all" : { keep: new Set(kept) };
  }
  const excluded = entries.filter((entry) => !entry.startsWith(KEEP_PREFIX));
  return excluded.length === 0 ? null : new Set(excluded);
}

/** Path plus the kept query: without excluded and tracking parameters (and the fragment under hash routing). */
export function pageOf(url: URL, filter: ParamFilter, hashRouting: boolean): string {
  let page = readablePath(url.pathname);
  if (filter !== "all" && url.search.length > 1) {
    const kept = keptQuery(url.search.slice(1), filter ?? NO_EXCLUSIONS);
    if (kept !== "") page += `?${kept}`;
  }
  if (hashRouting && url.hash.length > 1) page += url.hash;
  return page;
}

/**
 * A path segment that names one thing rather than a kind of page: a number, a UUID, a hex
 * or base64-ish token with a digit (8 characters or more), or any long segment with a digit.
 */
const ID_SEGMENT = /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?=[^/]*\d)[0-9a-z_-]{8,}|(?=[^/]*\d)[^/]{20,})$/i;

/** The path with every id-like segment as `:id`: `/orders/83412` → `/orders/:id`. */
export function withoutIds(path: string): string {
  return path
    .split("/")
    .map((segment) => (ID_SEGMENT.test(segment) ? ":id" : segment))
    .join("/");
}

/**
 * A page named by route (`page_names: "route"`): the template the app's server answered
 * with, else the path, in both cases with id-like segments as `:id` (a router mounted at a
 * matched path brings its ids along); never a query or a fragment, which may hold ids too.
 */
export const routePageOf = (url: URL, route: string | null): string => withoutIds(route ?? readablePath(url.pathname));

/** `/caf%C3%A9` reads `/café`; escapes of reserved characters (`%2F`, `%3F`…) stay as they are. */
function readablePath(pathname: string): string {
  if (!pathname.includes("%")) return pathname;
  try {
    const decoded = decodeURI(pathname);
    // `%00` and friends stay escaped: a control character is no way to read a path.
    return hasControlCharacters(decoded) ? pathname : decoded;
  } catch {
    return pathname;
  }
}

const NO_EXCLUSIONS: ReadonlySet<string> = new Set();

// Empty pairs ("a=1&&b=2") are dropped. Works on the raw text so kept parameters stay exactly as the site wrote them.
function keptQuery(query: string, filter: ReadonlySet<string> | { keep: ReadonlySet<string> }): string {
  const keep = "keep" in filter ? filter.keep : null;
  const excluded = "keep" in filter ? NO_EXCLUSIONS : filter;
  const untouched = !keep && excluded.size === 0 && !query.includes("&&") && !query.startsWith("&") && !query.endsWith("&");
  if (untouched && !mayHoldTrackingParams(query)) return query;
  return query
    .split("&")
    .filter((pair) => {
      if (pair === "") return false;
      const name = paramName(pair);
      return (keep ? keep.has(name) : !excluded.has(name)) && !isTrackingParam(name);
    })
    .join("&");
}

/** Referrers' hosts by referrer, kept at most (those of up to MAX_KEPT_LENGTH characters): most hits come from a few pages of a few sites. */
const MAX_REFERRERS = 1024;
const MAX_KEPT_LENGTH = 512;
const referrerHosts = new Map<string, string>();

/** A referrer's host without `www.`; "" when it is no http(s) URL. */
function referrerHost(referrer: string): string {
  let host = referrerHosts.get(referrer);
  if (host === undefined) {
    try {
      const url = new URL(referrer);
      host = url.protocol === "http:" || url.protocol === "https:" ? stripWww(url.hostname) : "";
    } catch {
      host = "";
    }
    if (referrer.length > MAX_KEPT_LENGTH) return host;
    if (referrerHosts.size >= MAX_REFERRERS) referrerHosts.clear();
    referrerHosts.set(referrer, host);
  }
  return host;
}

/** The referring host when it is another site; "" for direct, internal or unparseable referrers. */
export function externalReferrer(referrer: string, ownDomain: string): string {
  if (referrer === "") return "";
  const host = referrerHost(referrer);
  return host === ownDomain ? "" : host;
}

/** A `utm_*` parameter as stored: trimmed, no control characters, at most 200 characters. */
const utmValue = (params: URLSearchParams, name: string) =>
  storableText(params.get(name) ?? "")
    .trim()
    .slice(0, 200);

const NO_TAGS = (): string => "";

/** The page URL's campaign tags by parameter name, read before exclude_params removes anything. */
export function campaignTagsOf(url: URL): (name: string) => string {
  if (!url.search.includes(UTM_PREFIX)) return NO_TAGS;
  const params = url.searchParams;
  return (name) => utmValue(params, name);
}
