import { NotFoundError, statsQuerySchema, totalsQuerySchema, ValidationError } from "@tally-analytics/core";
import * as z from "zod";
import { clientKey } from "../client-limits.js";
import { HttpError, tooManyAttempts } from "../errors.js";
import { json } from "../json-response.js";
import { statsBody } from "../stats-response.js";
import { defineRoute, type Route } from "../route.js";
import { assetResponse } from "./assets.js";
import { pageResponse, redirectResponse } from "./page.js";
import { passwordLimiter, PRIVACY, readableWebsite, sharedWebsite } from "./share-access.js";
import { shareCookieHeader, shareCookiePath, signShareCookie } from "./share-cookie.js";

/** Share API answers depend on cookies and credentials: never cached. */
const NO_STORE = { "cache-control": "no-store" } as const;

const passwordBody = z.object({
  password: z
    .string({ error: "The password field is required." })
    .min(1, "The password field is required.")
    .max(128, "The password may not be longer than 128 characters."),
});

const lastSegment = (url: URL) => url.pathname.split("/").filter(Boolean).pop() ?? "";

/**
 * The dashboard at `{base}/`, its assets, and share pages at `{base}/share/{domain}` with
 * their read-only API. HTML and assets are the only answers that are not JSON.
 */
export const dashboardRoutes: readonly Route[] = [
  defineRoute({
    method: "GET",
    path: "/",
    auth: "public",
    async handle({ request, url }) {
      if (!url.pathname.endsWith("/")) return redirectResponse(`${lastSegment(url)}/${url.search}`);
      return pageResponse(request, { toBase: "./", title: "Tally" });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/assets/{name}",
    auth: "public",
    handle: async ({ request, url, params }) => assetResponse(request, url, params.name ?? ""),
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}",
    auth: "public",
    rateLimited: true,
    async handle(context) {
      const { request, url, params } = context;
      if (url.pathname.endsWith("/")) return redirectResponse(`../${lastSegment(url)}${url.search}`);
      const domain = params.domain ?? "";
      let status = 200;
      try {
        await readableWebsite(context);
      } catch (error) {
        // A missing and a private website get the same page and status; a password page shows its form.
        if (error instanceof NotFoundError) status = 404;
        else if (!(error instanceof HttpError && error.status === 401)) throw error;
      }
      return pageResponse(request, { toBase: "../", title: `${domain} · Tally`, share: domain, status });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}/api/website",
    auth: "public",
    rateLimited: true,
    headers: NO_STORE,
    async handle(context) {
      const { domain, timezone } = await readableWebsite(context);
      return json(200, { data: { domain, timezone } });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}/api/stats",
    auth: "public",
    rateLimited: true,
    headers: NO_STORE,
    query: statsQuerySchema,
    async handle(context) {
      const { id } = await readableWebsite(context);
      return json(200, statsBody(context.url, await context.tally.stats.queryWebsite(Number(id), context.query)));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}/api/totals",
    auth: "public",
    rateLimited: true,
    headers: NO_STORE,
    query: totalsQuerySchema,
    async handle(context) {
      const { id } = await readableWebsite(context);
      return json(200, { ...(await context.tally.stats.totalsWebsite(Number(id), context.query)) });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/share/{domain}/api/realtime",
    auth: "public",
    rateLimited: true,
    headers: NO_STORE,
    async handle(context) {
      const { id } = await readableWebsite(context);
      return json(200, { data: await context.tally.stats.realtimeWebsite(Number(id)) });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/share/{domain}/api/auth",
    auth: "public",
    rateLimited: true,
    headers: NO_STORE,
    body: passwordBody,
    async handle({ tally, request, url, params, ip, basePath, body }) {
      const row = await sharedWebsite({ tally, params });
      const privacy = Number(row.privacy);
      if (privacy === PRIVACY.public) return json(200, { message: "This page is public." });
      if (privacy !== PRIVACY.password) throw new NotFoundError();
      const limit = passwordLimiter(tally).hit(`${row.id}|${clientKey(tally, request, ip)}`);
      if (!limit.allowed) throw tooManyAttempts(limit.retryAfter);
      if (!(await tally.websites.checkPassword(Number(row.id), body.password))) {
        throw ValidationError.field("password", "The password is incorrect.");
      }
      const value = signShareCookie(row);
      if (value === null) throw new NotFoundError();
      // The page's path from the mount and the stored domain: nothing the client typed reaches the header.
      const path = shareCookiePath(basePath, row.domain);
      return json(200, { message: "Access granted." }, { "set-cookie": shareCookieHeader(value, path, url.protocol === "https:") });
    },
  }),
];
