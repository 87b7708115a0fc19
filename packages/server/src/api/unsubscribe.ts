import { escapeHtml, htmlDocument, NotFoundError, type Tally } from "@tally-analytics/core/internal";
import { defineRoute, type Route } from "../http/route.js";
import { htmlPageHeaders } from "../http/html.js";

/** A static page: no script, its one style block inline, its one form posting back here. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const STYLE =
  "body{font-family:system-ui,sans-serif;margin:0;background:#f3f4f6;color:#111827}" +
  "main{max-width:32rem;margin:12vh auto;padding:2rem;background:#fff;border:1px solid #e5e7eb;border-radius:8px}" +
  "h1{font-size:1.3rem;margin:0 0 .8rem}button{font:inherit;padding:.55rem 1rem;border:0;border-radius:6px;background:#4f46e5;color:#fff;cursor:pointer}";

const list = (domains: readonly string[]) => domains.map((domain) => `<strong>${escapeHtml(domain)}</strong>`).join(", ");

function page(request: Request, status: number, title: string, body: string): Response {
  const html = htmlDocument({
    title: `${title} · Tally`,
    head: ['<meta name="robots" content="noindex">', '<meta name="referrer" content="no-referrer">', `<style>${STYLE}</style>`],
    body: `<main><h1>${escapeHtml(title)}</h1>${body}</main>`,
  });
  return new Response(request.method === "HEAD" ? null : html, {
    status,
    headers: htmlPageHeaders(CONTENT_SECURITY_POLICY),
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

/** Both methods of `{base}/unsubscribe/{token}`; a token that is not genuine gets the same 404 page. */
const unsubscribeRoute = (method: "GET" | "POST", answer: (tally: Tally, token: string, request: Request) => Promise<Response>): Route =>
  defineRoute({
    method,
    path: "/unsubscribe/{token}",
    auth: "public",
    summary: method === "GET" ? "Ask before turning e-mail reports off" : "Turn e-mail reports off",
    tag: "Reports",
    description:
      "The link of an e-mail report, signed for its account and websites: works without signing in. GET only asks (mail scanners open links); POST, from the page's button or as an RFC 8058 one-click, sets `email` to 0.",
    responses: {
      200: { description: "A page saying what was (or would be) turned off.", media: { "text/html": "A small static page." } },
      404: { description: "The token is not genuine.", media: { "text/html": "A small static page." } },
    },
    handle: ({ tally, request, params }) => orInvalid(request, () => answer(tally, params.token ?? "", request)),
  });

/**
 * The unsubscribe link of e-mail reports, which works without signing in: its token is
 * signed (core checks it). GET only asks (mail scanners open links); POST turns the
 * reports off, from the page's button or straight from a mail client (RFC 8058 one-click).
 */
export const unsubscribeRoutes: readonly Route[] = [
  unsubscribeRoute("GET", async (tally, token, request) => {
    const { domains } = await tally.reports.unsubscribeTarget(token);
    if (domains.length === 0)
      return page(request, 200, "Already unsubscribed", "<p>E-mail reports are already off for these websites.</p>");
    return page(
      request,
      200,
      "Stop e-mail reports?",
      `<p>Reports for ${list(domains)} will no longer be sent. You can turn them on again in Tally.</p><form method="post"><button type="submit">Stop reports</button></form>`,
    );
  }),
  unsubscribeRoute("POST", async (tally, token, request) => {
    const { domains } = await tally.reports.unsubscribe(token);
    return page(
      request,
      200,
      "Unsubscribed",
      `<p>E-mail reports are off for ${domains.length === 0 ? "these websites" : list(domains)}.</p>`,
    );
  }),
];
