import { SESSION_LIFETIME_MS } from "@tally-analytics/core/internal";

export const SESSION_COOKIE = "tally_session";

/** Every value of a cookie in the request's Cookie header (a browser may send several paths' copies). */
export function cookieValues(request: Request, name: string): string[] {
  return (request.headers.get("cookie") ?? "")
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
}

/** The mount, as a cookie path: any character an attribute could be split on is percent-encoded. */
export const mountCookiePath = (basePath: string): string =>
  `${basePath}/`.replace(/[^\w\-.~!$&'()*+=:@/%[\]]/g, (c) => encodeURIComponent(c));

/**
 * HttpOnly (no script reads it), SameSite=Lax (another site's form or fetch does not carry
 * it on a POST), Secure when the request came over HTTPS, scoped to the mount.
 */
export function sessionCookieHeader(token: string, options: { basePath: string; secure: boolean; maxAgeS?: number }): string {
  const maxAge = options.maxAgeS ?? Math.floor(SESSION_LIFETIME_MS / 1000);
  return `${SESSION_COOKIE}=${token}; Path=${mountCookiePath(options.basePath)}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${options.secure ? "; Secure" : ""}`;
}

/** Removes the cookie (sign-out, a session the server no longer knows). */
export const clearSessionCookie = (options: { basePath: string; secure: boolean }): string =>
  sessionCookieHeader("", { ...options, maxAgeS: 0 });

/** The request's session token, if it sends a well-formed one. */
export function sessionToken(request: Request): string | null {
  return cookieValues(request, SESSION_COOKIE).find((value) => /^[\w-]{43}$/.test(value)) ?? null;
}
