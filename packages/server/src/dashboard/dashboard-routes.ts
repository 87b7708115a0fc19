import {
  NotFoundError,
  PASSWORDS_BUSY,
  statsQuerySchema,
  tallyInternals,
  totalsQuerySchema,
  UnavailableError,
  ValidationError,
} from "@tally-analytics/core/internal";
import * as z from "zod";
import { HttpError, tooManyAttempts } from "../http/errors.js";
import { liveAnswer, messageAnswer, send, sharedWebsiteAnswer, statsAnswer, totalsAnswer, realtimeAnswer } from "../http/answers.js";
import { statsBody } from "../http/stats-response.js";
import { defineRoute, type RouteAnswer, type Route } from "../http/route.js";
import { assetResponse } from "./assets.js";
import { pageResponse, redirectResponse } from "./page.js";
import { PASSWORD_REQUIRED, PRIVACY, readableWebsite, sharedWebsite } from "./share-access.js";
import { reserveSharePassword, underReservation } from "../http/attempt-limits.js";
import { SHARE_COOKIE, shareCookieHeader, shareCookiePath, shareLinkCookieHeader, signShareCookie } from "./share-cookie.js";

/** Share API answers depend on cookies and credentials: never cached. */
const NO_STORE = { "cache-control": "no-store" } as const;

const shareAuthAnswer = messageAnswer(200, "Access granted.");

const passwordBody = z.object({
  password: z
    .string({ error: "The password field is required." })
    .min(1, "The password field is required.")
    .max(128, "The password may not be longer than 128 characters.")
    .meta({ description: "The share page's password." }),
});

const lastSegment = (url: URL) => url.pathname.split("/").filter(Boolean).pop() ?? "";

const html = (description: string): RouteAnswer => ({
  description,
  media: { "text/html": "The page shell; the dashboard script fills it." },
});
const redirect: RouteAnswer = {
  description: "Redirect to the canonical URL (with or without the trailing slash).",
  headers: { Location: { description: "Relative to this URL, so any mount prefix works.", required: true } },
};
const shareParams = z.object({ domain: z.string().meta({ description: "The website's domain.", example: "example.com" }) });
const passwordRequired = {
  description: `Privacy 2 without a valid \`${SHARE_COOKIE}\` cookie: ${PASSWORD_REQUIRED}`,
  schema: messageAnswer(401, PASSWORD_REQUIRED),
};
/** What every share API route answers besides its data. */
const shareErrors = {
  401: passwordRequired,
  404: {
    description: "No such website, or a private one (privacy 1) and not the owner: the same answer.",
    schema: messageAnswer(404, "Resource not found."),
  },
} as const;
const shareApi = { headers: NO_STORE, params: shareParams, readsCredentials: true, rateLimited: true, tag: "Share pages" } as const;

/**
 * The dashboard at `{base}/`, its assets, and share pages at `{base}/share/{domain}` with
 * their read-only API. HTML and assets are the only answers that are not JSON.
 */
export const dashboardRoutes: readonly Route[] = [
  defineRoute({
    method: "GET",
    path: "/",
    auth: "public",
    summary: "The dashboard",
    tag: "Dashboard",
    description: "Sign in with an API key, or straight in when the host's `authenticate` hook knows the browser.",
    responses: { 200: html("The dashboard."), 308: redirect },
    async handle({ request, url, account }) {
      if (!url.pathname.endsWith("/")) return redirectResponse(`${lastSegment(url)}/${url.search}`);
      // Only a hint for the page (skip the key form): a hook that fails here is asked again, and reported, by the API.
      const signedIn = await account().then(
        (id) => id !== null,
        () => false,
      );
      return pageResponse(request, { toBase: "./", title: "Tally", signedIn });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/assets/{name}",
    auth: "public",
    params: z.object({ name: z.string().meta({ description: "A built file of the dashboard.", example: "dashboard.js" }) }),
    summary: "The dashboard's script, styles and translations",
    tag: "Dashboard",
    responses: {
      200: {
        description:
          "The file, gzip or brotli as compressed at build time when the client accepts them; cached for a year (immutable) when `?v=` is its version.",
        media: {
          "text/javascript": "dashboard.js",
          "text/css": "dashboard.css",
          "application/json": "messages-de.json and the other languages' messages",
        },
        headers: { ETag: { description: "Its version, quoted (with `-br` or `-gzip` for those forms).", required: true } },
      },
      304: { description: "Not modified (`If-None-Match` matched the ETag)." },
      404: "error",
    },
    handle: async ({ request, url, params }) => assetResponse(request, url, params.name ?? ""),
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}",
    auth: "public",
    params: shareParams,
    readsCredentials: true,
    summary: "A website's share page",
    tag: "Share pages",
    description:
      "Read-only statistics, as the website's `privacy` allows: public, the owner only, or with its password (a form, then a cookie). `?embed=true` on a public website's page: the statistics alone, and any site may show it in an iframe.",
    responses: {
      200: html("The page (or its password form)."),
      308: redirect,
      404: html("No such website, or a private one: the same page for both."),
    },
    rateLimited: true,
    async handle(context) {
      const { request, url, params } = context;
      if (url.pathname.endsWith("/")) return redirectResponse(`../${lastSegment(url)}${url.search}`);
      const domain = params.domain ?? "";
      let status = 200;
      let embeddable = false;
      let linkCookie: string | null = null;
      try {
        const row = await readableWebsite(context);
        // `?embed=true`: the statistics alone, for an iframe on any site (public pages only: a password form is never framed).
        embeddable = url.searchParams.get("embed") === "true" && Number(row.privacy) === PRIVACY.public;
        // Opened by a share link: its API calls carry the link as a cookie of this page's path.
        const link = url.searchParams.get("link");
        if (link && (await context.tally.shareLinks.opens(Number(row.id), link)))
          linkCookie = shareLinkCookieHeader(link, shareCookiePath(context.basePath, domain), url.protocol === "https:");
      } catch (error) {
        // A missing and a private website get the same page and status; a password page shows its form.
        if (error instanceof NotFoundError) status = 404;
        else if (!(error instanceof HttpError && error.status === 401)) throw error;
      }
      const page = pageResponse(request, { toBase: "../", title: `${domain} · Tally`, share: domain, status, embed: embeddable });
      if (linkCookie) page.headers.append("set-cookie", linkCookie);
      return page;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}/api/website",
    auth: "public",
    ...shareApi,
    summary: "The shared website's domain and time zone",
    responses: { 200: { description: "What the share page shows of the website.", schema: sharedWebsiteAnswer }, ...shareErrors },
    async handle(context) {
      const { domain, timezone } = await readableWebsite(context);
      return send(sharedWebsiteAnswer, { data: { domain, timezone } });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}/api/stats",
    auth: "public",
    readsStatistics: true,
    ...shareApi,
    query: statsQuerySchema,
    summary: "One statistic of the shared website",
    description: "The same parameters and answers as `GET /api/v1/stats/{id}`.",
    responses: { 200: { description: "One page of the statistic's rows.", schema: statsAnswer }, ...shareErrors, 503: "error" },
    async handle(context) {
      const { id } = await readableWebsite(context);
      return send(statsAnswer, statsBody(context.url, await context.tally.stats.queryWebsite(Number(id), context.query)));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}/api/totals",
    auth: "public",
    readsStatistics: true,
    ...shareApi,
    query: totalsQuerySchema,
    summary: "Totals of the shared website",
    description: "The same parameters and answers as `GET /api/v1/stats/{id}/totals`.",
    responses: { 200: { description: "The figures.", schema: totalsAnswer }, ...shareErrors, 503: "error" },
    async handle(context) {
      const { id } = await readableWebsite(context);
      return send(totalsAnswer, await context.tally.stats.totalsWebsite(Number(id), context.query));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}/api/realtime",
    auth: "public",
    readsStatistics: true,
    ...shareApi,
    summary: "Visitors right now on the shared website",
    responses: { 200: { description: "Visitors with a hit in the last five minutes.", schema: realtimeAnswer }, ...shareErrors },
    async handle(context) {
      const { id } = await readableWebsite(context);
      return send(realtimeAnswer, { data: await context.tally.stats.realtimeWebsite(Number(id)) });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}/api/live",
    auth: "public",
    readsStatistics: true,
    ...shareApi,
    summary: "The shared website's live view",
    description: "As `GET /api/v1/live/{id}`, without the dropped hits.",
    responses: { 200: { description: "The last 30 minutes.", schema: liveAnswer }, ...shareErrors },
    async handle(context) {
      const { id } = await readableWebsite(context);
      return send(liveAnswer, { data: await context.tally.stats.liveWebsite(Number(id)) });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/share/{domain}/api/auth",
    auth: "public",
    rateLimited: true,
    headers: NO_STORE,
    params: shareParams,
    body: passwordBody,
    summary: "Unlock a password-protected share page",
    tag: "Share pages",
    description:
      "Ten wrong attempts per 15 minutes per address, then 429. A right password sets an HttpOnly cookie for this page (30 days), signed with a key derived from the stored password hash.",
    responses: {
      200: {
        description: "Access granted (or the page is public).",
        schema: shareAuthAnswer,
        headers: { "Set-Cookie": { description: `\`${SHARE_COOKIE}\`, HttpOnly, scoped to the share page's path.` } },
      },
      404: shareErrors[404],
      429: "error",
      503: "error",
    },
    async handle({ tally, request, url, params, ip, basePath, body }) {
      const row = await sharedWebsite({ tally, params });
      const privacy = Number(row.privacy);
      if (privacy === PRIVACY.public) return send(shareAuthAnswer, { message: "This page is public." });
      if (privacy !== PRIVACY.password) throw new NotFoundError();
      if (!(await tally.team.canCheckPassword())) throw new UnavailableError(PASSWORDS_BUSY, 1);
      const reservation = await reserveSharePassword({ tally, request, ip }, Number(row.id));
      if (typeof reservation === "number") throw tooManyAttempts(reservation);
      const check = () => tallyInternals(tally).websites.checkPassword(Number(row.id), body.password);
      if (!(await underReservation(reservation, check, (matched) => matched)))
        throw ValidationError.field("password", "The password is incorrect.");
      const value = signShareCookie(row);
      if (value === null) throw new NotFoundError();
      // The page's path from the mount and the stored domain: nothing the client typed reaches the header.
      const path = shareCookiePath(basePath, row.domain);
      return send(
        shareAuthAnswer,
        { message: "Access granted." },
        { "set-cookie": shareCookieHeader(value, path, url.protocol === "https:") },
      );
    },
  }),
];
