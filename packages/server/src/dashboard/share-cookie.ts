import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebsiteRow } from "@tally-analytics/core/internal";

export const SHARE_COOKIE = "tally_share";
/** How long one password entry lasts. */
export const SHARE_COOKIE_MAX_AGE_S = 30 * 86_400;

/**
 * The MAC key is the website's stored password hash (random salt + scrypt output, never
 * sent anywhere): nothing to configure, the same on every instance and after restarts,
 * and a new password (or leaving privacy 2, which drops the hash) revokes every cookie.
 */
function mac(row: WebsiteRow, expires: number): string | null {
  if (row.password_hash === null) return null;
  return createHmac("sha256", `tally-share\n${row.password_hash}`).update(`${row.id}\n${row.domain}\n${expires}`).digest("base64url");
}

export function signShareCookie(row: WebsiteRow, now: number = Date.now()): string | null {
  const expires = Math.floor(now / 1000) + SHARE_COOKIE_MAX_AGE_S;
  const signature = mac(row, expires);
  return signature === null ? null : `${expires}.${signature}`;
}

function cookieValues(header: string | null, name: string): string[] {
  return (header ?? "")
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
}

export function hasValidShareCookie(request: Request, row: WebsiteRow, now: number = Date.now()): boolean {
  return cookieValues(request.headers.get("cookie"), SHARE_COOKIE).some((value) => {
    const [expiresText = "", signature = ""] = value.split(".", 2);
    const expires = Number(expiresText);
    if (!/^\d+$/.test(expiresText) || expires * 1000 <= now) return false;
    const expected = mac(row, expires);
    if (expected === null) return false;
    const given = Buffer.from(signature);
    const wanted = Buffer.from(expected);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  });
}

/**
 * `{base}/share/{domain}`: the share page and, below it, its API. Built from the mount
 * and the stored (normalised) domain only; any character a cookie attribute could be
 * split on is percent-encoded, whatever the mount is.
 */
export function shareCookiePath(basePath: string, domain: string): string {
  return `${basePath}/share/${domain}`.replace(/[^\w\-.~!$&'()*+=:@/%[\]]/g, (c) => encodeURIComponent(c));
}

/** HttpOnly, scoped to this share page's path (its API sits below it). */
export function shareCookieHeader(value: string, path: string, secure: boolean): string {
  return `${SHARE_COOKIE}=${value}; Path=${path}; Max-Age=${SHARE_COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** The cookie a share link's page sets, so that its share API calls carry the link too. */
export const SHARE_LINK_COOKIE = "tally_share_link";

/** The share link a request carries: `?link=` on the page, else its cookie. */
export function shareLinkOf(request: Request): string | null {
  return new URL(request.url).searchParams.get("link") ?? cookieValues(request.headers.get("cookie"), SHARE_LINK_COOKIE)[0] ?? null;
}

export function shareLinkCookieHeader(token: string, path: string, secure: boolean): string {
  return `${SHARE_LINK_COOKIE}=${token}; Path=${path}; Max-Age=${SHARE_COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}
