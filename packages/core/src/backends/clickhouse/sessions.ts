import { addDays } from "../../shared/calendar.js";
import { VISIT_COLUMNS } from "../../model/dimensions.js";
import type { Condition } from "../../model/filters.js";
import { localText, type Session, type SessionHit, type VisitsAnswer, type VisitsRequest } from "../../stats/sessions.js";
import { clickhouseConditions, visitColumn } from "./conditions.js";
import { formedVisitsWith } from "./visit-source.js";
import { queryParams, type QueryParams, type RunQuery } from "./query.js";
import { HITS_TABLE } from "./schema.js";
import { ARRIVAL_AT, at, KIND, LOCAL_TIME_AT } from "./visits.js";

/**
 * A visit's id, at most 15 digits: the milliseconds from 2010 to its start, times 512, plus
 * 9 bits of a hash of the visit (visits.ts names it), so that the id finds the visit again
 * from its start alone (two visits started in the same millisecond share an id once in 512
 * times). Until 2071.
 */
const ID_EPOCH_MS = Date.UTC(2010, 0, 1);
const ID_FACTOR = 512;
const ID = `(start - ${ID_EPOCH_MS}) * ${ID_FACTOR} + cityHash64(visit) % ${ID_FACTOR}`;

/** Visits started in the range that match the conditions and `only`, newest first (the later written first), with their sessions' values, and `hits` (an aggregate named so) beside. */
function sessionsOf(conditions: readonly Condition[], params: QueryParams, { hits = "", only = "1" } = {}): string {
  const where = clickhouseConditions(conditions, params);
  const values = VISIT_COLUMNS.map(({ column }) => `${visitColumn(column)} AS ${column}`);
  const statement = `SELECT id, visitor, start_local, duration, pageviews, events, ${values.join(", ")}${hits ? ", hits" : ""}
    FROM (
      SELECT *, ${ID} AS id,
        -- The visitor-day's first visit names its visitor.
        first_value(id) OVER (PARTITION BY vday, day_visitor ORDER BY start, first_arrival) AS visitor
      FROM __visits WHERE vday BETWEEN {from:Date} AND {to:Date}
    )
    WHERE ${where.visit()} AND ${only}
    ORDER BY start DESC, first_arrival DESC`;
  const aggregates = [`argMinIf(e.${ARRIVAL_AT}, (e.1, day, i), e.2 != ${KIND.engagement}) AS first_arrival`, ...(hits ? [hits] : [])];
  return statement.replace("__visits", () => formedVisitsWith(where, aggregates, statement));
}

type SessionRow = Record<string, string | number>;

/** A session as the API shows it, from its row. */
const sessionOf = (row: SessionRow): Session => ({
  id: Number(row.id),
  visitor: Number(row.visitor),
  started_at: localText(Number(row.start_local)),
  duration: Number(row.duration),
  pageviews: Number(row.pageviews),
  events: Number(row.events),
  ...(Object.fromEntries(VISIT_COLUMNS.map(({ column }) => [column, String(row[column] ?? "")])) as Omit<
    Session,
    "id" | "visitor" | "started_at" | "duration" | "pageviews" | "events"
  >),
});

/** A visit's pageview or event: local time, kind, page, event name, properties. */
type HitTuple = [local: number, kind: number, page: string, event: string, props: Record<string, string>];

/**
 * The sessions explorer from ClickHouse (stats/sessions.ts): pages of the visits formed at
 * read time that match the filters; one visit, found by its id, with its pageviews and
 * events in order; the property names an event was sent with in a range.
 */
export function clickhouseVisits(run: RunQuery, conditions: readonly Condition[]) {
  return async function visits(request: VisitsRequest): Promise<VisitsAnswer | null> {
    const params = queryParams();
    if (request.kind === "sessions") {
      const { page, per_page: perPage } = request.query;
      const rows = await run<SessionRow>(
        `${sessionsOf(conditions, params)} LIMIT ${params.add(perPage + 1, "UInt32")} OFFSET ${params.add((page - 1) * perPage, "UInt32")}`,
        request.query,
        { params },
      );
      return { data: rows.slice(0, perPage).map(sessionOf), page, per_page: perPage, has_more: rows.length > perPage };
    }
    if (request.kind === "session") {
      const start = ID_EPOCH_MS + Math.floor(request.visit / ID_FACTOR);
      // Its local day is within a day of the UTC day it started.
      const day = new Date(start).toISOString().slice(0, 10);
      const hit = `(e.${LOCAL_TIME_AT}, toUInt8(e.2), e.${at("page")}, e.${at("event")}, e.5)`;
      const ordered = `arrayMap(x -> x.2, arraySort(x -> x.1, groupArrayIf(((e.1, day, i, e.${ARRIVAL_AT}), ${hit}), e.2 != ${KIND.engagement}))) AS hits`;
      const [row] = await run<SessionRow & { hits: HitTuple[] }>(
        sessionsOf([], params, { hits: ordered, only: `id = ${params.add(request.visit, "UInt64")}` }),
        { from: addDays(day, -1), to: addDays(day, 1) },
        { params },
      );
      if (!row) return null;
      return {
        session: sessionOf(row),
        hits: row.hits.map(([local, kind, page, event, props]): SessionHit => ({
          at: localText(Number(local)),
          type: Number(kind) === KIND.event ? "event" : "pageview",
          page,
          event: Number(kind) === KIND.event ? event : null,
          props,
        })),
      };
    }
    const { event, from, to } = request.query;
    const which = event === "pageview" ? `kind = 'pageview'` : `kind = 'event' AND event = ${params.add(event, "String")}`;
    const rows = await run<{ name: string }>(
      `SELECT name, count() AS n FROM ${HITS_TABLE} ARRAY JOIN mapKeys(props) AS name
        WHERE website_id = {website:UInt32} AND day BETWEEN {from:Date} AND {to:Date} AND ${which}
        GROUP BY name ORDER BY n DESC, name LIMIT 50`,
      { from, to },
      { params },
    );
    return rows.map((row) => row.name).filter((name) => name !== "");
  };
}
