// What a team defines per website beside its settings: funnels, goals, annotations and
// saved segments. Each is a collection under `/api/v1/websites/{id}/<collection>`, listed,
// created and deleted the same way (some also changed in place), built by one factory.
import {
  NotFoundError,
  annotationCreateSchema,
  annotationListQuery,
  annotationSchema,
  annotationUpdateSchema,
  canWrite,
  funnelCreateSchema,
  funnelSchema,
  goalCreateSchema,
  goalSchema,
  savedSegmentCreateSchema,
  savedSegmentSchema,
  savedSegmentUpdateSchema,
  shareLinkCreateSchema,
  shareLinkSchema,
  type Access,
} from "@tally-analytics/core/internal";
import * as z from "zod";
import { dataAnswer, deletedAnswer, send } from "../http/answers.js";
import { HttpError } from "../http/errors.js";
import { FORBIDDEN } from "../http/permissions.js";
import { resourceId, websiteParams } from "../http/website-params.js";
import { defineRoute, type AccountRoute, type Permission, type RequestContext, type Route } from "../http/route.js";

const notFound = { 404: "error" } as const;

type Context = RequestContext<Record<string, unknown>, Record<string, unknown>> & { accountId: number; access: Access };

/** One collection's routes: its names, its resource, and what each operation does. */
interface Collection {
  /** The path segment and the tag's words: `funnels`. */
  collection: string;
  /** One of them, as `{<item>}` in paths and `object` in answers: `funnel`. */
  item: string;
  /** The schema id prefix: `Funnel` → `FunnelList`, `FunnelDeleted`. */
  title: string;
  resource: z.ZodType;
  /** Who may create, change and delete (reading needs only to see the website). @default "write" */
  writes?: Permission;
  list: { summary: string; description?: string; query?: z.ZodType; handle(context: Context, websiteId: number): Promise<unknown[]> };
  create: { summary: string; description?: string; body: z.ZodType; handle(context: Context, websiteId: number): Promise<unknown> };
  update?: {
    summary: string;
    description?: string;
    body: z.ZodType;
    handle(context: Context, websiteId: number, id: number): Promise<unknown>;
  };
  remove: { summary: string; handle(context: Context, websiteId: number, id: number): Promise<void> };
}

function collectionRoutes(spec: Collection): Route[] {
  const base = `/api/v1/websites/{id}/${spec.collection}`;
  const itemParams = websiteParams.extend({
    [spec.item]: z
      .string()
      .regex(/^\d{1,15}$/)
      .meta({ description: `The ${spec.item.replace("_", " ")}'s id.`, example: "1" }),
  });
  const itemId = (context: Context): number => {
    const parsed = itemParams.safeParse(context.params);
    if (!parsed.success) throw new NotFoundError();
    return Number((parsed.data as Record<string, string>)[spec.item]);
  };
  const one = dataAnswer(spec.resource, 200);
  const created = dataAnswer(spec.resource, 201);
  const listed = dataAnswer(z.array(spec.resource), 200).meta({ id: `${spec.title}List` });
  const deleted = deletedAnswer(spec.item, `${spec.title}Deleted`);
  const writes = spec.writes ?? "write";
  const route = (definition: AccountRoute<Record<string, unknown>, Record<string, unknown>>) => defineRoute(definition);
  const routes = [
    route({
      method: "GET",
      path: base,
      auth: "account",
      params: websiteParams,
      ...(spec.list.query ? { query: spec.list.query as z.ZodType<Record<string, unknown>> } : {}),
      summary: spec.list.summary,
      ...(spec.list.description ? { description: spec.list.description } : {}),
      tag: "Websites",
      responses: { 200: { description: `The website's ${spec.collection.replace("_", " ")}.`, schema: listed }, ...notFound },
      async handle(context) {
        return send(listed, { data: await spec.list.handle(context, resourceId(context)) });
      },
    }),
    route({
      method: "POST",
      path: base,
      auth: "account",
      permission: writes,
      params: websiteParams,
      body: spec.create.body as z.ZodType<Record<string, unknown>>,
      summary: spec.create.summary,
      ...(spec.create.description ? { description: spec.create.description } : {}),
      tag: "Websites",
      responses: { 201: { description: "Created.", schema: created }, ...notFound },
      async handle(context) {
        return send(created, { data: await spec.create.handle(context, resourceId(context)) });
      },
    }),
    route({
      method: "DELETE",
      path: `${base}/{${spec.item}}`,
      auth: "account",
      permission: writes,
      params: itemParams,
      summary: spec.remove.summary,
      tag: "Websites",
      responses: { 200: { description: "Deleted.", schema: deleted }, ...notFound },
      async handle(context) {
        const id = itemId(context);
        await spec.remove.handle(context, resourceId(context), id);
        return send(deleted, { id, object: spec.item, deleted: true });
      },
    }),
  ];
  const { update } = spec;
  if (update)
    routes.push(
      route({
        method: "PUT",
        path: `${base}/{${spec.item}}`,
        auth: "account",
        permission: writes,
        params: itemParams,
        body: update.body as z.ZodType<Record<string, unknown>>,
        summary: update.summary,
        ...(update.description ? { description: update.description } : {}),
        tag: "Websites",
        responses: { 200: { description: "Changed.", schema: one }, ...notFound },
        async handle(context) {
          return send(one, { data: await update.handle(context, resourceId(context), itemId(context)) });
        },
      }),
    );
  return routes;
}

/** Sharing a segment with the team, or changing a shared one, takes what changing settings takes. */
function requireWriteFor(access: Access, shared: boolean): void {
  if (shared && !canWrite(access)) throw new HttpError(403, FORBIDDEN.readOnly);
}

const viewer = ({ accountId, access }: Context) => ({ accountId, userId: access.userId });

export const websiteRecordRoutes: Route[] = [
  ...collectionRoutes({
    collection: "funnels",
    item: "funnel",
    title: "Funnel",
    resource: funnelSchema,
    list: { summary: "List a website's funnels", handle: (context, id) => context.tally.funnels.list(context.accountId, id) },
    create: {
      summary: "Define a funnel",
      description:
        "A name and 2 to 8 steps, each `page:<pattern>` (`*`: any characters) or `event:<name>`; a path alone (`/pricing`) is a page step; a form sends the steps one a line. Read it with `GET /api/v1/stats/{id}/funnel`.",
      body: funnelCreateSchema,
      handle: (context, id) => context.tally.funnels.create(context.accountId, id, context.body),
    },
    remove: { summary: "Delete a funnel", handle: (context, id, funnel) => context.tally.funnels.delete(context.accountId, id, funnel) },
  }),
  ...collectionRoutes({
    collection: "goals",
    item: "goal",
    title: "Goal",
    resource: goalSchema,
    list: {
      summary: "List a website's goals",
      description: "Page goals first, then event goals, each in the order they were added. The `goals` statistic counts them.",
      handle: (context, id) => context.tally.goals.list(context.accountId, id),
    },
    create: {
      summary: "Add a goal",
      description:
        "`goal_type=page` with `page_path` (`/blog/*`: `*` stands for any characters; at most 10 page goals), or `goal_type=event` with `event_name` (at most 50); `display_name` is optional. Everyone who sees the website sees it; the `goals` statistic counts page goals beside the events, and lists event goals nobody reached with 0.",
      body: goalCreateSchema,
      handle: (context, id) => context.tally.goals.create(context.accountId, id, context.body),
    },
    remove: { summary: "Delete a goal", handle: (context, id, goal) => context.tally.goals.delete(context.accountId, id, goal) },
  }),
  ...collectionRoutes({
    collection: "annotations",
    item: "annotation",
    title: "Annotation",
    resource: annotationSchema,
    list: {
      summary: "List a website's annotations",
      description: "In date order; `from` and `to` (`Y-m-d`) narrow them to a range.",
      query: annotationListQuery,
      handle: (context, id) => context.tally.annotations.list(context.accountId, id, context.query),
    },
    create: {
      summary: "Add an annotation",
      description:
        "A note (`text`, at most 500 characters) on a day (`date`, `Y-m-d` in the website's time zone), shown on the dashboard's charts.",
      body: annotationCreateSchema,
      handle: (context, id) => context.tally.annotations.create(context.accountId, id, context.body),
    },
    update: {
      summary: "Change an annotation",
      body: annotationUpdateSchema,
      handle: (context, id, annotation) => context.tally.annotations.update(context.accountId, id, { ...context.body, id: annotation }),
    },
    remove: {
      summary: "Delete an annotation",
      handle: (context, id, annotation) => context.tally.annotations.delete(context.accountId, id, annotation),
    },
  }),
  ...collectionRoutes({
    collection: "share-links",
    item: "share_link",
    title: "ShareLink",
    resource: shareLinkSchema,
    list: { summary: "List a website's share links", handle: (context, id) => context.tally.shareLinks.list(context.accountId, id) },
    create: {
      summary: "Add a share link",
      description:
        "A named link to the website's share page, `{base}/share/{domain}?link={token}`: whoever has it sees the statistics, whatever the website's privacy (public, private or password). Delete it to end it.",
      body: shareLinkCreateSchema,
      handle: (context, id) => context.tally.shareLinks.create(context.accountId, id, context.body),
    },
    remove: { summary: "Delete a share link", handle: (context, id, link) => context.tally.shareLinks.delete(context.accountId, id, link) },
  }),
  ...collectionRoutes({
    collection: "segments",
    item: "segment",
    title: "SavedSegment",
    resource: savedSegmentSchema,
    // Anyone who sees the website keeps segments of their own; sharing one takes an admin or owner.
    writes: "read",
    list: {
      summary: "List the saved segments you see",
      description: "The website's shared segments and your personal ones, by name.",
      handle: (context, id) => context.tally.savedSegments.list(viewer(context), id),
    },
    create: {
      summary: "Save a segment",
      description:
        'A name and filters (as `GET /api/v1/stats` takes them), `personal` or `shared`. Filter on it in the Stats API v2 with `["is", "segment", [id]]`; the dashboard lists it in its toolbar.',
      body: savedSegmentCreateSchema,
      async handle(context, id) {
        const visibility = context.body.visibility ?? (context.access.userId === undefined ? "shared" : "personal");
        requireWriteFor(context.access, visibility === "shared");
        return context.tally.savedSegments.create(viewer(context), id, context.body);
      },
    },
    update: {
      summary: "Change a saved segment",
      description: "Its name, filters or visibility; a shared segment is changed by an admin or owner.",
      body: savedSegmentUpdateSchema,
      async handle(context, id, segment) {
        const current = await context.tally.savedSegments.get(viewer(context), id, segment);
        requireWriteFor(context.access, current.visibility === "shared" || context.body.visibility === "shared");
        return context.tally.savedSegments.update(viewer(context), id, { ...context.body, id: segment });
      },
    },
    remove: {
      summary: "Delete a saved segment",
      async handle(context, id, segment) {
        const current = await context.tally.savedSegments.get(viewer(context), id, segment);
        requireWriteFor(context.access, current.visibility === "shared");
        await context.tally.savedSegments.delete(viewer(context), id, segment);
      },
    },
  }),
];
