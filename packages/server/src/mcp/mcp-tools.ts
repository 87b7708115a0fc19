import { canSeeWebsite, canWrite, type Access, type StatRow, type Tally, type TotalFigures } from "@tally-analytics/core";
import {
  annotationCreateSchema,
  funnelQuerySchema,
  goalCreateSchema,
  journeyQuerySchema,
  plausibleQuerySchema,
  statsQuerySchema,
  totalsQuerySchema,
} from "@tally-analytics/core/internal";
import * as z from "zod";
import { websiteListQuery } from "../http/list-query.js";
import { HttpError } from "../http/errors.js";
import { FORBIDDEN, visibleWebsite } from "../http/permissions.js";

/** Who calls a tool: the API's access, so a viewer's key sees through MCP exactly what it sees through the API. */
export interface ToolCaller {
  tally: Tally;
  access: Access;
}

/** A tool's answer: one line a person or a model reads first, and the figures themselves, exact. */
export interface ToolAnswer {
  summary: string;
  data: Record<string, unknown>;
}

/** One MCP tool: its input is a zod object derived from the schema the API validates the same call with. */
export interface TallyTool<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject<Shape>;
  /** Changes something: refused, as the API refuses it, to read-only keys and viewers. */
  writes?: boolean;
  run(caller: ToolCaller, args: z.output<z.ZodObject<Shape>>): Promise<ToolAnswer>;
}

/** Keeps a tool's argument types while it is checked, then lists it with the others. */
const defineTool = <Shape extends z.ZodRawShape>(tool: TallyTool<Shape>): TallyTool => tool as unknown as TallyTool;

/** Websites a tool lists at most: enough for a model, and `search` narrows the rest. */
const LISTED_WEBSITES = 100;
/** Rows of a Stats API v2 answer when the query names no `pagination.limit` (Plausible's own default is 10,000). */
const PLAUSIBLE_ROWS = 100;

const websiteId = z.coerce.number().int().positive().meta({ description: "The website's id, as list_websites gives it.", example: 1 });

/** The tools that take only the website. */
const websiteOnly = z.object({ website_id: websiteId });

/** The API's query fields (core's schemas), with the website beside them: the API has it in the path. */
const withWebsite = <Shape extends z.ZodRawShape>(query: { in: z.ZodObject<Shape> }) =>
  z.object({ website_id: websiteId, ...query.in.shape });

/** A website the caller may see, else NotFoundError: the API's 404 for another account's website. */
const websiteOf = ({ access }: ToolCaller, id: number) => visibleWebsite(access, id);

/** Today in a time zone, `Y-m-d`: what a model needs to turn "yesterday" into dates. */
const todayIn = (timeZone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(Date.now());

/** `1 website`, `3 websites`. */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
const range = ({ from, to }: { from: string; to: string }) => `${from} to ${to}`;
const figure = (value: number, previous?: number) => `${value}${previous === undefined ? "" : ` (previous ${previous})`}`;
const firstRows = (rows: readonly StatRow[]) =>
  rows
    .slice(0, 3)
    .map((row) => `${row.value} ${figure(row.count, row.previous)}`)
    .join(", ");

function totalsLine(figures: TotalFigures): string {
  return [
    `${figures.visitors} visitors`,
    `${figures.visits} visits`,
    `${figures.pageviews} pageviews`,
    `${figures.views_per_visit} views per visit`,
    `bounce rate ${figures.bounce_rate}%`,
    `visit duration ${figures.visit_duration} s`,
  ].join(", ");
}

const listWebsites = defineTool({
  name: "list_websites",
  title: "List websites",
  description:
    "The websites this key can see: id, domain, time zone and today's date there (statistics take days in the website's time zone).",
  input: websiteListQuery.pick({ search: true }),
  async run({ tally, access }, { search }) {
    const page = await tally.websites.list(access.accountId, {
      ...(access.websites == null ? {} : { ids: access.websites }),
      ...(search === undefined ? {} : { search }),
      sortBy: "id",
      sort: "asc",
      perPage: LISTED_WEBSITES,
    });
    const websites = page.data.map(({ id, domain, timezone }) => ({ id, domain, timezone, today: todayIn(timezone) }));
    const shown = websites.length < page.total ? ` (the first ${websites.length}: narrow with search)` : "";
    const names = websites.map((website) => `${website.domain} (id ${website.id})`).join(", ");
    return { summary: `${count(page.total, "website")}${shown}${names ? `: ${names}` : ""}.`, data: { websites, total: page.total } };
  },
});

const getStatistic = defineTool({
  name: "get_statistic",
  title: "One statistic of a website",
  description:
    "Rows {value, count} of one statistic over a range of days: pages, referrers, sources, countries, browsers, UTM fields, goals, events, " +
    "event properties…, or a day or hour series (visitors, pageviews, visits, bounce_rate…). `count` is what the statistic counts " +
    "(pageviews for page, visits for referrer and landing_page, visitors for country, browser…). Sorted by count, 10 rows a page unless asked.",
  input: withWebsite(statsQuerySchema).omit({ search_by: true }),
  async run(caller, { website_id, ...query }) {
    const page = await caller.tally.stats.query(caller.access.accountId, websiteOf(caller, website_id), query);
    const lastPage = Math.max(1, Math.ceil(page.total / page.perPage));
    const data = {
      website_id,
      name: query.name,
      from: query.from,
      to: query.to,
      rows: page.data,
      total_rows: page.total,
      page: page.page,
      last_page: lastPage,
      ...(page.rangeTotal === undefined ? {} : { range_total: page.rangeTotal }),
      ...(page.previousRangeTotal === undefined ? {} : { previous_range_total: page.previousRangeTotal }),
      ...(page.comparison === undefined ? {} : { comparison: page.comparison }),
    };
    const total = page.rangeTotal === undefined ? "" : `: ${figure(page.rangeTotal, page.previousRangeTotal)} over the range`;
    const shown =
      page.page > lastPage
        ? `, none on page ${page.page} (${count(lastPage, "page")})`
        : lastPage > 1
          ? `, page ${page.page} of ${lastPage}`
          : "";
    const first = page.data.length > 0 ? `; first: ${firstRows(page.data)}` : "";
    return { summary: `${query.name}, ${range(query)}${total}; ${count(page.total, "row")}${shown}${first}.`, data };
  },
});

const getTotals = defineTool({
  name: "get_totals",
  title: "Totals of a range",
  description:
    "Visitors, visits, pageviews, views per visit, bounce rate (%) and visit duration (s) of a range of days, with filters; `compare` adds the previous period's.",
  input: withWebsite(totalsQuerySchema),
  async run(caller, { website_id, ...query }) {
    const totals = await caller.tally.stats.totals(caller.access.accountId, websiteOf(caller, website_id), query);
    const previous = totals.previous && totals.comparison ? `; ${range(totals.comparison)}: ${totalsLine(totals.previous)}` : "";
    return { summary: `${range(query)}: ${totalsLine(totals.data)}${previous}.`, data: { website_id, ...totals } };
  },
});

const queryStats = defineTool({
  name: "query_stats",
  title: "A Stats API v2 query",
  description:
    "Plausible's Stats API v2 query, answered from Tally's statistics: `site_id` is the website's domain; metrics, dimensions (breakdowns, time series), " +
    `filters, order and pagination as Plausible documents them. At most ${PLAUSIBLE_ROWS} rows unless pagination.limit says otherwise.`,
  // A new object of the same fields: the schema's own id would make the tool's JSON Schema a `$ref`, not an object.
  input: z.object(plausibleQuerySchema.shape),
  async run({ tally, access }, body) {
    const query = { ...body, pagination: { limit: PLAUSIBLE_ROWS, ...body.pagination } };
    const answer = await tally.stats.plausible(access.accountId, query, {
      canSee: (id) => canSeeWebsite(access, id),
      userId: access.userId,
    });
    const { total_rows: total } = answer.meta;
    const rows = total === undefined ? count(answer.results.length, "row") : `${answer.results.length} of ${count(total, "row")}`;
    const by = body.dimensions && body.dimensions.length > 0 ? ` by ${body.dimensions.join(", ")}` : "";
    const days = answer.query.date_range;
    const when = Array.isArray(days) ? days.join(" to ") : JSON.stringify(body.date_range);
    return {
      summary: `${rows}: ${body.metrics.join(", ")}${by}, ${when}.`,
      data: { ...answer },
    };
  },
});

const listFunnels = defineTool({
  name: "list_funnels",
  title: "List a website's funnels",
  description: "The funnels defined on a website: id, name and steps (read one with get_funnel).",
  input: websiteOnly,
  async run(caller, { website_id }) {
    const funnels = await caller.tally.funnels.list(caller.access.accountId, websiteOf(caller, website_id));
    const names = funnels.map((funnel) => `${funnel.name} (id ${funnel.id}, ${funnel.steps.length} steps)`).join(", ");
    return { summary: `${count(funnels.length, "funnel")}${names ? `: ${names}` : ""}.`, data: { website_id, funnels } };
  },
});

const getFunnel = defineTool({
  name: "get_funnel",
  title: "A funnel over a range",
  description:
    "Each step of one of the website's funnels: visitors with a visit that did steps 1…n in order, their share of the first step's, and the drop-off.",
  input: withWebsite(funnelQuerySchema),
  async run(caller, { website_id, ...query }) {
    const result = await caller.tally.stats.funnel(caller.access.accountId, websiteOf(caller, website_id), query);
    const steps = result.data.map((row) => `${row.label} ${figure(row.visitors, row.previous)} (${row.conversion_rate}%)`).join(" → ");
    return { summary: `Funnel "${result.funnel.name}", ${range(query)}: ${steps}.`, data: { website_id, ...result } };
  },
});

const getJourney = defineTool({
  name: "get_journey",
  title: "Where visits went after (or came from before) a page or an event",
  description:
    "From the first hit of each visit matching from_page or from_event, the next (or previous) pages and events up to `depth` steps: " +
    "the 10 most frequent values of each step and the links between them, in visitors.",
  input: withWebsite(journeyQuerySchema),
  async run(caller, { website_id, ...query }) {
    const result = await caller.tally.stats.journey(caller.access.accountId, websiteOf(caller, website_id), query);
    const start = result.data.find((node) => node.step === 0);
    const next = result.data.find((node) => node.step === 1);
    const startLine = start ? `${start.value} ${figure(start.visitors, start.previous)} visitors` : "no visit with the start";
    const nextLine = next ? `; most at step 1: ${next.value} ${figure(next.visitors, next.previous)}` : "";
    return { summary: `Journey (${query.direction}), ${range(query)}: ${startLine}${nextLine}.`, data: { website_id, ...result } };
  },
});

const getRealtime = defineTool({
  name: "get_realtime",
  title: "Visitors right now",
  description: "Visitors with a hit in the last five minutes.",
  input: websiteOnly,
  async run(caller, { website_id }) {
    const realtime = await caller.tally.stats.realtime(caller.access.accountId, websiteOf(caller, website_id));
    return { summary: `${count(realtime.visitors, "visitor")} in the last five minutes.`, data: { website_id, ...realtime } };
  },
});

/** A website the caller may change: the API's 403 for a read-only key or a viewer, then its 404 for a website it cannot see. */
function writableWebsite(caller: ToolCaller, id: number): number {
  if (!canWrite(caller.access)) throw new HttpError(403, FORBIDDEN.readOnly);
  return websiteOf(caller, id);
}

const createGoal = defineTool({
  name: "create_goal",
  title: "Add a goal to a website",
  description:
    "A page goal (`goal_type` page, `page_path` such as /thanks or /blog/*) or an event goal (`goal_type` event, `event_name`); " +
    "the goals statistic counts it from then on, over any range. Needs a write key.",
  input: z.object({ website_id: websiteId, ...goalCreateSchema.shape }),
  writes: true,
  async run(caller, { website_id, ...goal }) {
    const created = await caller.tally.goals.create(caller.access.accountId, writableWebsite(caller, website_id), goal);
    return { summary: `Goal "${created.display_name}" added (id ${created.id}).`, data: { ...created } };
  },
});

const createAnnotation = defineTool({
  name: "create_annotation",
  title: "Add an annotation to a website's charts",
  description: "A note (`text`, at most 500 characters) on a day (`date`, Y-m-d in the website's time zone). Needs a write key.",
  input: z.object({ website_id: websiteId, ...annotationCreateSchema.shape }),
  writes: true,
  async run(caller, { website_id, ...note }) {
    const created = await caller.tally.annotations.create(caller.access.accountId, writableWebsite(caller, website_id), note);
    return { summary: `Annotation on ${created.date} added (id ${created.id}).`, data: { ...created } };
  },
});

/** Every tool of Tally's MCP server, in the order clients list them. */
export const TOOLS: readonly TallyTool[] = [
  listWebsites,
  getStatistic,
  getTotals,
  queryStats,
  listFunnels,
  getFunnel,
  getJourney,
  getRealtime,
  createGoal,
  createAnnotation,
];
