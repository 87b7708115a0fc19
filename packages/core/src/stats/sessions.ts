// The sessions explorer (docs/statistics.md, "Sessions"): the range's visits that match the
// filters, newest first, each with its values; one visit's pageviews and events in order;
// and the property names an event was sent with (what the dashboard suggests). Read from
// the visits and hits, so within `retention_days`, through the same bounded runners as funnels.
import { sql, type RawBuilder } from "kysely";
import * as z from "zod";
import { dayText } from "../shared/calendar.js";
import { validate } from "../shared/validation.js";
import { VISIT_COLUMNS } from "../model/dimensions.js";
import { checkRange, isParsed, rangeFields, withConditions } from "./stats-query.js";
import { localBounds, type DayRange } from "./count-reader.js";
import type { SegmentConditions } from "./segment-conditions.js";

type Sql = RawBuilder<unknown>;
type Run = <T>(query: Sql) => Promise<T[]>;

const SESSION_PAGE_SIZES = [10, 25, 50, 100] as const;

export const sessionsQuerySchema = z
  .object({
    from: rangeFields.from,
    to: rangeFields.to,
    filter: rangeFields.filter,
    page: z
      .preprocess(
        (value) => (typeof value === "number" ? String(value) : value),
        z
          .string()
          .regex(/^\d{1,6}$/, "The page must be an integer greater than 0.")
          .default("1"),
      )
      .transform(Number)
      .refine((page) => page >= 1, "The page must be an integer greater than 0.")
      .meta({ description: "Page number, from 1.", default: "1" }),
    per_page: z
      .preprocess(
        (value) => (typeof value === "number" ? String(value) : value),
        z
          .enum(SESSION_PAGE_SIZES.map(String) as ["10", "25", "50", "100"])
          .catch("25")
          .default("25"),
      )
      .transform(Number)
      .meta({ description: "Sessions per page: 10, 25 (default), 50 or 100.", default: "25" }),
  })
  .superRefine(checkRange)
  .transform(withConditions);
export type SessionsQuery = z.output<typeof sessionsQuerySchema>;

export const propertyNamesQuerySchema = z.object({
  event: z
    .string({ error: "The event field is required." })
    .min(1, "The event field is required.")
    .max(200, "The event may not be longer than 200 characters.")
    .meta({ description: "The event (`pageview` for the pageviews' own properties).", example: "Signup" }),
  from: rangeFields.from,
  to: rangeFields.to,
});
export type PropertyNamesQuery = z.output<typeof propertyNamesQuerySchema>;

/** A visit's values by visit column (`entry_page`, `source`, `country`…), `""` where it has none. */
const valuesShape = Object.fromEntries(VISIT_COLUMNS.map(({ column }) => [column, z.string()])) as Record<
  (typeof VISIT_COLUMNS)[number]["column"],
  z.ZodString
>;

export const sessionSchema = z
  .object({
    id: z.int().positive().meta({ description: "The visit's id." }),
    visitor: z.int().positive().meta({ description: "The same for every visit of one visitor on one day (the first visit's id)." }),
    started_at: z
      .string()
      .meta({ description: "When it started, `Y-m-d HH:MM:SS` in the website's time zone.", example: "2026-03-03 10:04:12" }),
    duration: z.int().nonnegative().meta({ description: "Seconds from its first hit to its last activity." }),
    pageviews: z.int().nonnegative(),
    events: z.int().nonnegative(),
    ...valuesShape,
  })
  .meta({ id: "Session" });
export type Session = z.infer<typeof sessionSchema>;

export const sessionHitSchema = z
  .object({
    at: z.string().meta({ description: "`Y-m-d HH:MM:SS`, the website's time zone.", example: "2026-03-03 10:04:30" }),
    type: z.enum(["pageview", "event"]),
    page: z.string().meta({ example: "/pricing" }),
    event: z.string().nullable().meta({ description: "The event's name; null for a pageview.", example: "Signup" }),
    props: z.record(z.string(), z.string()).meta({ example: { plan: "pro" } }),
  })
  .meta({ id: "SessionHit" });
export type SessionHit = z.infer<typeof sessionHitSchema>;

export interface SessionsPage {
  data: Session[];
  page: number;
  per_page: number;
  /** Whether a later page has sessions. */
  has_more: boolean;
}

/** What the runners answer: a page of sessions, one visit's hits, an event's property names. */
export type VisitsRequest =
  { kind: "sessions"; query: SessionsQuery } | { kind: "session"; visit: number } | { kind: "propertyNames"; query: PropertyNamesQuery };
export type VisitsAnswer = SessionsPage | { session: Session; hits: SessionHit[] } | string[];

export const parseSessionsQuery = (input: object): SessionsQuery =>
  isParsed(input) ? (input as SessionsQuery) : validate(sessionsQuerySchema, input);

/** Local wall-clock seconds as `Y-m-d HH:MM:SS`. */
export const localText = (seconds: number) =>
  `${dayText(Math.floor(seconds / 86_400))} ${new Date((seconds % 86_400) * 1000).toISOString().slice(11, 19)}`;

const COLUMNS = VISIT_COLUMNS.map(({ column }) => column);

/** The sessions, a visit's hits, and property names of one website, read by `run` on `where`'s filtered visits `v`. */
export function sessionReads(run: Run, websiteId: number, valuesOf: (ids: readonly number[]) => Promise<Map<number, string>>) {
  async function shaped(rows: readonly Record<string, number | string>[]): Promise<Session[]> {
    const values = await valuesOf([...new Set(rows.flatMap((row) => COLUMNS.map((column) => Number(row[column]))))]);
    return rows.map((row) => ({
      id: Number(row.id),
      visitor: Number(row.visitor) || Number(row.id),
      started_at: localText(Number(row.start)),
      duration: Number(row.duration),
      pageviews: Number(row.pageviews),
      events: Number(row.events),
      ...(Object.fromEntries(COLUMNS.map((column) => [column, values.get(Number(row[column])) ?? ""])) as Record<
        (typeof COLUMNS)[number],
        string
      >),
    }));
  }
  const visitColumns = sql.join(
    ["id", "visitor", "start", "duration", "pageviews", "events", ...COLUMNS].map((column) => sql.ref(`v.${column}`)),
  );

  return {
    /** One page of the range's matching visits, newest first (one more row read tells whether there is a next page). */
    async sessions(where: SegmentConditions, query: SessionsQuery): Promise<SessionsPage> {
      const [start, end] = localBounds(query);
      const rows = await run<Record<string, number | string>>(sql`select ${visitColumns} from visits v
        where v.website_id = ${websiteId} and v.start >= ${start} and v.start < ${end} and ${where.visit()}
        order by v.start desc, v.id desc limit ${query.per_page + 1} offset ${(query.page - 1) * query.per_page}`);
      return {
        data: await shaped(rows.slice(0, query.per_page)),
        page: query.page,
        per_page: query.per_page,
        has_more: rows.length > query.per_page,
      };
    },

    /** A visit and its pageviews and events, in the order they came, each with its properties; null when the website has no such visit. */
    async session(visit: number): Promise<{ session: Session; hits: SessionHit[] } | null> {
      const [found] = await run<Record<string, number | string>>(
        sql`select ${visitColumns} from visits v where v.website_id = ${websiteId} and v.id = ${visit}`,
      );
      if (!found) return null;
      const hits = await run<{ time: number; page: number; event: number; seq: number }>(
        sql`select time, page, event, seq from hits where visit_id = ${visit} and website_id = ${websiteId} order by seq, time`,
      );
      const props = await run<{ seq: number; name: number; value: number }>(
        sql`select seq, name, value from event_props where visit_id = ${visit} and website_id = ${websiteId}`,
      );
      const values = await valuesOf([
        ...new Set([
          ...hits.flatMap((hit) => [Number(hit.page), Number(hit.event)]),
          ...props.flatMap((p) => [Number(p.name), Number(p.value)]),
        ]),
      ]);
      const [session] = await shaped([found]);
      return {
        session: session!,
        hits: hits.map((hit) => ({
          at: localText(Number(hit.time)),
          type: Number(hit.event) === 0 ? ("pageview" as const) : ("event" as const),
          page: values.get(Number(hit.page)) ?? "",
          event: Number(hit.event) === 0 ? null : (values.get(Number(hit.event)) ?? ""),
          props: Object.fromEntries(
            props
              .filter((p) => Number(p.seq) === Number(hit.seq))
              .map((p) => [values.get(Number(p.name)) ?? "", values.get(Number(p.value)) ?? ""]),
          ),
        })),
      };
    },

    /** The property names an event (or the pageviews) was sent with in the range, most used first. */
    async propertyNames(where: SegmentConditions, { event, from, to }: PropertyNamesQuery & DayRange): Promise<string[]> {
      const [start, end] = localBounds({ from, to });
      const rows = await run<{ name: number; n: number }>(sql`select p.name, count(*) as n from event_props p
        where p.website_id = ${websiteId} and p.event in ${event === "pageview" ? sql`(0)` : where.idsOf("event", event)}
          and p.time >= ${start} and p.time < ${end}
        group by p.name order by n desc limit 50`);
      const names = await valuesOf(rows.map((row) => Number(row.name)));
      return rows.map((row) => names.get(Number(row.name)) ?? "").filter((name) => name !== "");
    },
  };
}
