import {
  funnelQuerySchema,
  journeyQuerySchema,
  NotFoundError,
  propertyNamesQuerySchema,
  sessionsQuerySchema,
  statsQuerySchema,
  totalsQuerySchema,
  websiteCreateSchema,
  websiteUpdateSchema,
  accountUpdateSchema,
  type Account,
} from "@tally-analytics/core/internal";
import * as z from "zod";
import {
  accountAnswer,
  funnelResultAnswer,
  journeyResultAnswer,
  realtimeAnswer,
  liveAnswer,
  propertyNamesAnswer,
  sessionAnswer,
  sessionsAnswer,
  send,
  statsAnswer,
  totalsAnswer,
  websiteAnswer,
  websiteCreatedAnswer,
  websiteDeletedAnswer,
  websiteListAnswer,
} from "./http/answers.js";
import { documentationRoutes } from "./api/api-routes.js";
import { collectRoutes } from "./collect/collect-routes.js";
import { foreignRoutes } from "./collect/foreign-routes.js";
import { healthRoute } from "./collect/health.js";
import { dashboardRoutes } from "./dashboard/dashboard-routes.js";
import { websiteListQuery } from "./http/list-query.js";
import { fallbackHeaders, fallbacksOf } from "./http/fallbacks.js";
import { paginated } from "./http/pagination.js";
import { statsBody } from "./http/stats-response.js";
import { defineRoute, type Route } from "./http/route.js";
import { unsubscribeRoutes } from "./api/unsubscribe.js";
import { plausibleQueryRoute } from "./api/plausible-query-route.js";
import { mcpRoute } from "./mcp/mcp-route.js";
import { alertRoutes } from "./api/alert-routes.js";
import { requireAllWebsites } from "./http/permissions.js";
import { resourceId, websiteParams } from "./http/website-params.js";
import { websiteRecordRoutes } from "./api/website-records.js";
import { signInRoutes } from "./team/sign-in-routes.js";
import { teamRoutes } from "./team/team-routes.js";

/** The account as the API shows it: its report settings, nothing about its keys. */
const accountResource = ({ id, name, created_at, email, report_period }: Account) => ({ id, name, created_at, email, report_period });

/** `format`, `from` and `to` of an export; core checks the days. */
const exportQuery = z.object({
  format: z
    .enum(["csv", "plausible"], { error: "The format must be csv or plausible." })
    .default("csv")
    .meta({ description: "`csv` (Tally's own) or `plausible`." }),
  from: z.string().optional().meta({ description: "First day, `Y-m-d` in the website's time zone.", example: "2026-01-01" }),
  to: z.string().optional().meta({ description: "Last day, `Y-m-d`.", example: "2026-12-31" }),
});

const notFound = { 404: "error" } as const;

/** `{id}/sessions/{visit}`: the website and one of its visits. */
const visitParams = websiteParams.extend({
  visit: z
    .string()
    .regex(/^\d{1,15}$/)
    .meta({ description: "The visit's id (a session's `id`).", example: "1" }),
});

const STATS_DESCRIPTION =
  "Rows `{value, count}` of one statistic over a range of the website's days, with search, sorting and paging. " +
  "`pageviews`, `visitors`, `visits` and the ratios are day series (`Y-m-d`), the `_hours` ones hour series (`00`…`23`); " +
  "`goals` rows add `events` and `conversion_rate`; `compare` adds `previous`.";

/**
 * The route table, relative to the mount. Account routes are authenticated and rate
 * limited by the handler; public routes get neither.
 */
export const routes: readonly Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/account",
    auth: "account",
    summary: "The account of the API key",
    tag: "Account",
    responses: { 200: { description: "The account.", schema: accountAnswer } },
    async handle({ tally, accountId }) {
      return send(accountAnswer, { data: accountResource(await tally.accounts.get(accountId)) });
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/account",
    auth: "account",
    body: accountUpdateSchema,
    permission: "owner",
    summary: "Rename the account, or change its report settings",
    tag: "Account",
    description: "`name`, and `email` (an address, or empty for none) and `report_period` (`week` or `month`) of the e-mail reports.",
    responses: { 200: { description: "The account, changed.", schema: accountAnswer } },
    async handle({ tally, accountId, body }) {
      return send(accountAnswer, { data: accountResource(await tally.accounts.update(accountId, body)) });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/websites",
    auth: "account",
    query: websiteListQuery,
    summary: "List websites",
    tag: "Websites",
    responses: { 200: { description: "One page of the account's websites.", schema: websiteListAnswer } },
    async handle({ tally, accountId, access, url, query }) {
      const page = await tally.websites.list(accountId, {
        ...(access.websites == null ? {} : { ids: access.websites }),
        ...(query.search === undefined ? {} : { search: query.search }),
        sortBy: query.sort_by,
        sort: query.sort,
        perPage: query.per_page,
        page: query.page,
      });
      const fallbacks = fallbacksOf(url, query);
      return send(websiteListAnswer, paginated(url, page, fallbacks), fallbackHeaders(fallbacks));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/websites",
    auth: "account",
    body: websiteCreateSchema,
    summary: "Create a website",
    tag: "Websites",
    description:
      "Defaults: privacy 1, email 0, exclude_bots 1, timezone UTC. The domain must be free across all accounts (hits are routed by host), else 422.",
    responses: { 201: { description: "The website created.", schema: websiteCreatedAnswer } },
    async handle({ tally, accountId, access, body }) {
      requireAllWebsites(access);
      return send(websiteCreatedAnswer, { data: await tally.websites.create(accountId, body) });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/websites/{id}",
    auth: "account",
    params: websiteParams,
    summary: "Get a website",
    tag: "Websites",
    responses: { 200: { description: "The website.", schema: websiteAnswer }, ...notFound },
    async handle(context) {
      const { tally, accountId } = context;
      return send(websiteAnswer, { data: await tally.websites.get(accountId, resourceId(context)) });
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/websites/{id}",
    auth: "account",
    params: websiteParams,
    body: websiteUpdateSchema,
    summary: "Update a website",
    tag: "Websites",
    description:
      "A partial update: fields left out keep their value. `domain` cannot change and is ignored. Leaving privacy 2 forgets the password.",
    responses: { 200: { description: "The website, updated.", schema: websiteAnswer }, ...notFound },
    async handle(context) {
      const { tally, accountId, body } = context;
      return send(websiteAnswer, { data: await tally.websites.update(accountId, resourceId(context), body) });
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/websites/{id}",
    auth: "account",
    params: websiteParams,
    summary: "Delete a website and its statistics",
    tag: "Websites",
    responses: { 200: { description: "Deleted.", schema: websiteDeletedAnswer }, ...notFound },
    async handle(context) {
      const { tally, accountId } = context;
      const id = resourceId(context);
      await tally.websites.delete(accountId, id);
      return send(websiteDeletedAnswer, { id, object: "website", deleted: true });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/websites/{id}/export",
    auth: "account",
    params: websiteParams,
    query: exportQuery,
    summary: "Export a website's statistics",
    tag: "Websites",
    description:
      "A zip of daily CSV files, streamed: `format=csv` is Tally's own layout (one file per statistic; `tally import` reads it back), `format=plausible` the layout Plausible's CSV import reads. `from`/`to` (`Y-m-d`) limit the days; default: all of them.",
    responses: {
      200: {
        description: "The zip.",
        media: { "application/zip": "One CSV file per statistic (or per Plausible table), daily rows." },
        headers: { "Content-Disposition": { description: "`attachment` with the file's name.", required: true } },
      },
      ...notFound,
    },
    async handle(context) {
      const { tally, accountId, query } = context;
      const id = resourceId(context);
      await tally.websites.get(accountId, id);
      const { from, to, format } = query;
      const exported = await tally.export(id, { format, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) });
      return new Response(exported.body, {
        status: 200,
        headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${exported.fileName}"` },
      });
    },
  }),
  ...websiteRecordRoutes,
  defineRoute({
    method: "GET",
    path: "/api/v1/stats/{id}",
    auth: "account",
    readsStatistics: true,
    params: websiteParams,
    query: statsQuerySchema,
    summary: "One statistic of a website",
    tag: "Statistics",
    description: STATS_DESCRIPTION,
    responses: { 200: { description: "One page of the statistic's rows.", schema: statsAnswer }, ...notFound, 503: "error" },
    async handle(context) {
      const { tally, accountId, url, query } = context;
      const fallbacks = fallbacksOf(url, query);
      const page = await tally.stats.query(accountId, resourceId(context), query);
      return send(statsAnswer, statsBody(url, page, fallbacks), fallbackHeaders(fallbacks, page.startsAt));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/stats/{id}/totals",
    auth: "account",
    readsStatistics: true,
    params: websiteParams,
    query: totalsQuerySchema,
    summary: "Visitors, visits, pageviews and visit metrics of a range",
    tag: "Statistics",
    responses: {
      200: { description: "The figures (and, with `compare`, the previous ones).", schema: totalsAnswer },
      ...notFound,
      503: "error",
    },
    async handle(context) {
      const { tally, accountId, query } = context;
      return send(totalsAnswer, await tally.stats.totals(accountId, resourceId(context), query));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/stats/{id}/funnel",
    auth: "account",
    readsStatistics: true,
    params: websiteParams,
    query: funnelQuerySchema,
    summary: "One of the website's funnels over a range",
    tag: "Statistics",
    description:
      'A row per step, in order: visitors with a visit that did steps 1…n in order, their share of the first step\'s, and the drop-off from the step before (docs/statistics.md, "Funnels"). Filters select the visits; `compare` adds `previous`.',
    responses: { 200: { description: "The funnel's steps.", schema: funnelResultAnswer }, ...notFound, 503: "error" },
    async handle(context) {
      const { tally, accountId, query } = context;
      return send(funnelResultAnswer, await tally.stats.funnel(accountId, resourceId(context), query));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/stats/{id}/journey",
    auth: "account",
    readsStatistics: true,
    params: websiteParams,
    query: journeyQuerySchema,
    summary: "Where visits went after (or came from before) a page or an event",
    tag: "Statistics",
    description:
      'From the first hit of each visit matching `from_page` or `from_event`, the following (or preceding) pages and events, up to `depth` steps, repeats in a row counted once: the start (`step` 0), the 10 most frequent values of each step, and the links between them, in visitors (docs/statistics.md, "Journeys"). Filters select the visits; `compare` adds `previous` to the nodes.',
    responses: { 200: { description: "The flow.", schema: journeyResultAnswer }, ...notFound, 503: "error" },
    async handle(context) {
      const { tally, accountId, query } = context;
      return send(journeyResultAnswer, await tally.stats.journey(accountId, resourceId(context), query));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/realtime/{id}",
    auth: "account",
    readsStatistics: true,
    params: websiteParams,
    summary: "Visitors right now",
    tag: "Statistics",
    responses: { 200: { description: "Visitors with a hit in the last five minutes.", schema: realtimeAnswer }, ...notFound },
    async handle(context) {
      const { tally, accountId } = context;
      return send(realtimeAnswer, { data: await tally.stats.realtime(accountId, resourceId(context)) });
    },
  }),
  ...alertRoutes,
  defineRoute({
    method: "GET",
    path: "/api/v1/live/{id}",
    auth: "account",
    readsStatistics: true,
    params: websiteParams,
    summary: "The live view: the last 30 minutes",
    tag: "Statistics",
    description:
      "Visitors right now (the last five minutes), the last 30 minutes minute by minute (visitors and pageviews), their pages, sources and countries by visitors, the latest hit, and the hits the website's rules dropped lately (bots, excluded addresses: kept in memory, so per process and since its start).",
    responses: { 200: { description: "The live view.", schema: liveAnswer }, ...notFound },
    async handle(context) {
      return send(liveAnswer, { data: await context.tally.stats.live(context.accountId, resourceId(context)) });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/stats/{id}/sessions",
    auth: "account",
    readsStatistics: true,
    params: websiteParams,
    query: sessionsQuerySchema,
    summary: "The range's sessions, newest first",
    tag: "Statistics",
    description:
      "Each visit that started in the range and matches the filters: when, how long, its pageviews and events, and its values (entry and exit page, source, country, device…), a page at a time. From the visits, so within `retention_days`.",
    responses: { 200: { description: "One page of sessions.", schema: sessionsAnswer }, ...notFound, 503: "error" },
    async handle(context) {
      const page = await context.tally.stats.sessions(context.accountId, resourceId(context), context.query);
      return send(sessionsAnswer, { data: page.data, meta: { current_page: page.page, per_page: page.per_page, has_more: page.has_more } });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/stats/{id}/sessions/{visit}",
    auth: "account",
    readsStatistics: true,
    params: visitParams,
    summary: "One session: its pageviews and events in order",
    tag: "Statistics",
    responses: { 200: { description: "The session and its hits.", schema: sessionAnswer }, ...notFound, 503: "error" },
    async handle(context) {
      const parsed = visitParams.safeParse(context.params);
      if (!parsed.success) throw new NotFoundError();
      return send(sessionAnswer, {
        data: await context.tally.stats.session(context.accountId, resourceId(context), Number(parsed.data.visit)),
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/stats/{id}/properties",
    auth: "account",
    readsStatistics: true,
    params: websiteParams,
    query: propertyNamesQuerySchema,
    summary: "The property names an event was sent with",
    tag: "Statistics",
    description: "Over a range, most used first (at most 50): what to break an event down by (`name=event_property`).",
    responses: { 200: { description: "The names.", schema: propertyNamesAnswer }, ...notFound, 503: "error" },
    async handle(context) {
      return send(propertyNamesAnswer, {
        data: await context.tally.stats.propertyNames(context.accountId, resourceId(context), context.query),
      });
    },
  }),
  plausibleQueryRoute,
  mcpRoute,
  ...collectRoutes,
  ...foreignRoutes,
  healthRoute,
  ...dashboardRoutes,
  ...unsubscribeRoutes,
  ...teamRoutes,
  ...signInRoutes,
  ...documentationRoutes(() => routes),
];
