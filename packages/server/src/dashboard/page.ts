import { escapeHtml, htmlDocument } from "@tally-analytics/core/internal";
import { PAGE_HEAD } from "../http/html.js";
import { dashboardModules } from "@tally-analytics/dashboard";
import { assetPath } from "./assets.js";

/**
 * Same-origin everything, no inline script or style (the front end sets styles through
 * the CSSOM, which CSP allows), no plugins, no <base> tricks.
 */
const policy = (frameAncestors: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join("; ");
const CONTENT_SECURITY_POLICY = policy("'self'");
/** A public share page asked with `?embed=true`: any site may frame it (it shows what anyone may see). */
const EMBED_POLICY = policy("*");

export interface PageOptions {
  /** From the page's own URL to the mount, ending in `/`: `./` at `{base}/`, `../` at `{base}/share/x`. */
  toBase: string;
  title: string;
  /** Set on share pages: the domain whose statistics the page shows. */
  share?: string;
  /** The host's `authenticate` hook knows this browser: the dashboard opens without asking for a key (and without a 401 to find out). */
  signedIn?: boolean;
  status?: number;
  /** A public share page for an iframe: the statistics alone, framable by any site. */
  embed?: boolean;
}

/**
 * The HTML shell. Every URL in it is relative to the page, so it works under any mount
 * prefix (and behind proxies that strip one); the script learns the mount from `data-base`.
 */
export function pageResponse(
  request: Request,
  { toBase, title, share, signedIn = false, status = 200, embed = false }: PageOptions,
): Response {
  const shareAttribute = (share === undefined ? "" : ` data-share="${escapeHtml(share)}"`) + (embed ? ' data-embed="true"' : "");
  const signedInAttribute = signedIn ? ' data-signed-in="true"' : "";
  const html = htmlDocument({
    title,
    head: [
      ...PAGE_HEAD,
      `<link rel="stylesheet" href="${toBase}${assetPath("dashboard.css")}">`,
      `<script type="module" src="${toBase}${assetPath("dashboard.js")}"></script>`,
      ...dashboardModules.map((file) => `<link rel="modulepreload" href="${toBase}assets/${file}">`),
    ],
    bodyAttributes: ` data-base="${toBase}"${shareAttribute}${signedInAttribute}`,
    body: `<div id="app"></div>\n<noscript>Tally's dashboard needs JavaScript.</noscript>`,
  });
  return new Response(request.method === "HEAD" ? null : html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-cache",
      "content-security-policy": embed ? EMBED_POLICY : CONTENT_SECURITY_POLICY,
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
      // No page of another origin keeps a handle on this window (window.opener), nor this one on it.
      "cross-origin-opener-policy": "same-origin",
    },
  });
}

/** `{base}` → `{base}/`, so the page's relative URLs resolve under the mount. Relative: proxies may rename the mount. */
export function redirectResponse(location: string): Response {
  return new Response(null, { status: 308, headers: { location, "cache-control": "no-cache" } });
}
