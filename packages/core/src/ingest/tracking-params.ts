// Query parameters that say how a visitor arrived, never which page they saw: `utm_*` and
// the click ids ad and mail platforms append. They are read into their own fields and
// removed from page, entry page and exit page values, whatever `exclude_params` says
// (docs/statistics.md, "Page"). The one list; hits and imports both clean pages with it.

/** Every parameter starting with this is a campaign tag (`utm_source`, `utm_id`, `utm_source_platform`…). */
export const UTM_PREFIX = "utm_";

/** Click ids of ad, social and mail platforms, as they spell them (names compare case-sensitively). */
export const CLICK_ID_PARAMS = [
  "gclid", // Google Ads
  "gbraid", // Google Ads, iOS app-to-web
  "wbraid", // Google Ads, iOS web-to-app
  "dclid", // Google Display & Video 360
  "_ga", // Google Analytics cross-domain linker
  "_gl", // Google Analytics cross-domain linker
  "fbclid", // Meta (Facebook, Instagram)
  "msclkid", // Microsoft Advertising
  "twclid", // X (Twitter)
  "ttclid", // TikTok
  "li_fat_id", // LinkedIn
  "mc_cid", // Mailchimp campaign
  "mc_eid", // Mailchimp recipient
  "yclid", // Yandex
] as const;

export type ClickIdParam = (typeof CLICK_ID_PARAMS)[number];

const CLICK_IDS: ReadonlySet<string> = new Set(CLICK_ID_PARAMS);

/** Whether a (decoded) query parameter name is a tracking parameter. */
export const isTrackingParam = (name: string): boolean => name.startsWith(UTM_PREFIX) || CLICK_IDS.has(name);

/** Cheap pre-check on a raw query: could any pair be a tracking parameter (or be escaped so it hides one)? */
const MAY_TRACK = new RegExp(`(?:^|&)(?:${UTM_PREFIX}|${CLICK_ID_PARAMS.join("|")})|%`);
export const mayHoldTrackingParams = (query: string): boolean => MAY_TRACK.test(query);

/** A query parameter's name as compared: `+` is a space, escapes decoded (left as written when malformed). */
export function paramName(pair: string): string {
  const name = pair.split("=", 1)[0] ?? "";
  try {
    return decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    return name;
  }
}

/**
 * The click id a page URL carries (the first one, in the list's order), for a future
 * `source`/`channel` dimension: `{ name: "gclid", value: "…" }`, or null.
 */
export function clickIdOf(url: URL): { name: ClickIdParam; value: string } | null {
  if (url.search.length <= 1) return null;
  const params = url.searchParams;
  for (const name of CLICK_ID_PARAMS) {
    const value = params.get(name);
    if (value !== null) return { name, value };
  }
  return null;
}

/**
 * A page value (`/sale?utm_source=x&q=1#top`) without its tracking parameters
 * (`/sale?q=1#top`): what imports of already-counted pages apply, as hits do.
 */
export function withoutTrackingParams(page: string): string {
  const hashAt = page.indexOf("#");
  const end = hashAt < 0 ? page.length : hashAt;
  const start = page.indexOf("?");
  if (start < 0 || start > end) return page;
  const query = page.slice(start + 1, end);
  if (!mayHoldTrackingParams(query)) return page;
  const kept = query.split("&").filter((pair) => pair !== "" && !isTrackingParam(paramName(pair)));
  return `${page.slice(0, start)}${kept.length > 0 ? `?${kept.join("&")}` : ""}${page.slice(end)}`;
}
