import { NotFoundError, statsQuerySchema, totalsQuerySchema } from "@tally-analytics/core";
import { collect, CORS_HEADERS } from "./collect.js";
import { dashboardRoutes } from "./dashboard/dashboard-routes.js";
import { trackerScriptResponse } from "./script.js";
import * as z from "zod";
import { json } from "./json-response.js";
import { websiteListQuery } from "./list-query.js";
import { paginated } from "./pagination.js";
import { statsBody } from "./stats-response.js";
import { defineRoute, type Route } from "./route.js";

/** Core checks every website rule itself; the server only picks the fields a client may send. */
const field = z.unknown().optional();
const websiteUpdateBody = z.object({
  privacy: field,
  password: field,
  email: field,
  exclude_bots: field,
  exclude_params: field,
  exclude_ips: field,
  timezone: field,
  retention_days: field,
});
// `domain` is only read on create: on update it is dropped here, so it is ignored.
const websiteCreateBody = websiteUpdateBody.extend({ domain: field });

/** `format`, `from` and `to` of an export; core checks the days. */
const exportQuery = z.object({
  format: z.enum(["csv", "plausible"], { error: "The format must be csv or plausible." }).default("csv"),
  from: z.string().optional(),
  to: z.string().optional(),
});

/** `{id}` that is not a positive integer names no resource: 404, like a missing one. */
function resourceId(params: Record<string, string>): number {
  const text = params.id ?? "";
  const id = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(id) || id < 1) throw new NotFoundError();
  return id;
}

/**
 * The route table, relative to the mount. Account routes are authenticated and rate
 * limited by the handler; public routes get neither.
 */
export const routes: readonly Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/account",
    auth: "account",
    async handle({ tally, accountId }) {
      const { id, name, created_at } = await tally.accounts.get(accountId);
      return json(200, { data: { id, name, created_at } });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/websites",
    auth: "account",
    query: websiteListQuery,
    async handle({ tally, accountId, url, query }) {
      const page = await tally.websites.list(accountId, {
        ...(query.search === undefined ? {} : { search: query.search }),
        sortBy: query.sort_by,
        sort: query.sort,
        perPage: query.per_page,
        page: query.page,
      });
      return json(200, paginated(url, page));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/websites",
    auth: "account",
    body: websiteCreateBody,
    async handle({ tally, accountId, body }) {
      return json(201, { data: await tally.websites.create(accountId, body) });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/websites/{id}",
    auth: "account",
    async handle({ tally, accountId, params }) {
      return json(200, { data: await tally.websites.get(accountId, resourceId(params)) });
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/websites/{id}",
    auth: "account",
    body: websiteUpdateBody,
    async handle({ tally, accountId, params, body }) {
      return json(200, { data: await tally.websites.update(accountId, resourceId(params), body) });
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/websites/{id}",
    auth: "account",
    async handle({ tally, accountId, params }) {
      const id = resourceId(params);
      await tally.websites.delete(accountId, id);
      return json(200, { id, object: "website", deleted: true });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/websites/{id}/export",
    auth: "account",
    query: exportQuery,
    async handle({ tally, accountId, params, query }) {
      const id = resourceId(params);
      await tally.websites.get(accountId, id);
      const { from, to, format } = query;
      const exported = await tally.export(id, { format, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) });
      return new Response(exported.body, {
        status: 200,
        headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${exported.fileName}"` },
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/stats/{id}",
    auth: "account",
    query: statsQuerySchema,
    async handle({ tally, accountId, url, params, query }) {
      return json(200, statsBody(url, await tally.stats.query(accountId, resourceId(params), query)));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/stats/{id}/totals",
    auth: "account",
    query: totalsQuerySchema,
    async handle({ tally, accountId, params, query }) {
      return json(200, { ...(await tally.stats.totals(accountId, resourceId(params), query)) });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/realtime/{id}",
    auth: "account",
    async handle({ tally, accountId, params }) {
      return json(200, { data: await tally.stats.realtime(accountId, resourceId(params)) });
    },
  }),
  defineRoute({ method: "POST", path: "/collect", auth: "public", headers: CORS_HEADERS, handle: collect }),
  defineRoute({
    method: "OPTIONS",
    path: "/collect",
    auth: "public",
    headers: CORS_HEADERS,
    handle: async () => new Response(null, { status: 204 }),
  }),
  defineRoute({
    method: "GET",
    path: "/script.js",
    auth: "public",
    handle: ({ request }) => trackerScriptResponse(request),
  }),
  ...dashboardRoutes,
];
