import { NotFoundError, type Tally } from "@tally-analytics/core";
import { defineRoute, type Route } from "./route.js";

/** A static page: no script, its one style block inline, its one form posting back here. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const STYLE =
  "body{font-family:system-ui,sans-serif;margin:0;background:#f3f4f6;color:#111827}" +
  "main{max-width:32rem;margin:12vh auto;padding:2rem;background:#fff;border:1px solid #e5e7eb;border-radius:8px}" +
  "h1{font-size:1.3rem;margin:0 0 .8rem}button{font:inherit;padding:.55rem 1rem;border:0;border-radius:6px;background:#4f46e5;color:#fff;cursor:pointer}";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const list = (domains: readonly string[]) => domains.map((domain) => `<strong>${escapeHtml(domain)}</strong>`).join(", ");

function page(request: Request, status: number, title: string, body: string): Response {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Tally</title>
<style>${STYLE}</style>
</head>
<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body>
</html>
`;
  return new Response(request.method === "HEAD" ? null : html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": CONTENT_SECURITY_POLICY,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
  });
}

/** A token that is not genuine gets the same page whatever is wrong with it. */
async function orInvalid(request: Request, answer: () => Promise<Response>): Promise<Response> {
  try {
    return await answer();
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return page(request, 404, "This link is not valid", "<p>Copy the whole link from the e-mail, or turn reports off in Tally itself.</p>");
  }
}

type Context = { tally: Tally; request: Request; params: Record<string, string> };

/**
 * The unsubscribe link of e-mail reports, which works without signing in: its token is
 * signed (core checks it). GET only asks (mail scanners open links); POST turns the
 * reports off, from the page's button or straight from a mail client (RFC 8058 one-click).
 */
export const unsubscribeRoutes: readonly Route[] = [
  defineRoute({
    method: "GET",
    path: "/unsubscribe/{token}",
    auth: "public",
    handle: ({ tally, request, params }: Context) =>
      orInvalid(request, async () => {
        const { domains } = await tally.reports.unsubscribeTarget(params.token ?? "");
        if (domains.length === 0) return page(request, 200, "Already unsubscribed", "<p>E-mail reports are already off for these websites.</p>");
        return page(
          request,
          200,
          "Stop e-mail reports?",
          `<p>Reports for ${list(domains)} will no longer be sent. You can turn them on again in Tally.</p><form method="post"><button type="submit">Stop reports</button></form>`,
        );
      }),
  }),
  defineRoute({
    method: "POST",
    path: "/unsubscribe/{token}",
    auth: "public",
    handle: ({ tally, request, params }: Context) =>
      orInvalid(request, async () => {
        const { domains } = await tally.reports.unsubscribe(params.token ?? "");
        const what = domains.length === 0 ? "these websites" : list(domains);
        return page(request, 200, "Unsubscribed", `<p>E-mail reports are off for ${what}.</p>`);
      }),
  }),
];
