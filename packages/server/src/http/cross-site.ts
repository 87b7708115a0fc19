import { mediaType } from "./body.js";
import { HttpError, MESSAGES } from "./errors.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF protection for requests the host's `authenticate` hook signed in: a browser sends
 * the host's session cookie with any site's form, so a state-changing request must come
 * from this origin (`Sec-Fetch-Site`, or `Origin` from browsers without it), and must not
 * be a form body (the one body an HTML form on another site can send without CORS)
 * unless the app said it checks forms itself. API keys need none of this: no browser
 * attaches an Authorization header to another site's request.
 */
export function refuseCrossSite(request: Request, acceptForms: boolean): void {
  if (SAFE_METHODS.has(request.method)) return;
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  const crossSite = site !== null ? site !== "same-origin" && site !== "none" : origin !== null && origin !== new URL(request.url).origin;
  if (crossSite) throw new HttpError(403, MESSAGES.crossSite);
  if (!acceptForms && mediaType(request) === "application/x-www-form-urlencoded") throw new HttpError(415, MESSAGES.formWithSession);
}
