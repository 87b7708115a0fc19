import { sql, type Kysely } from "kysely";
import { dayNumber } from "../shared/calendar.js";
import type { VisitColumnName } from "../model/dimensions.js";
import type { Database } from "../storage/schema.js";
import { BOUNCED, VISITOR } from "../stats/segment-reader.js";

/** What the visits store knows of one value on one day: visitor-days, visits, and those visits' seconds, bounces and pageviews. */
export interface VisitFigures {
  visitors: number;
  visits: number;
  duration: number;
  bounces: number;
  pageviews: number;
}

/** Visit columns that hold a dictionary id. */
export type VisitColumn = VisitColumnName;

const bounds = (day: string) => [dayNumber(day) * 86_400, (dayNumber(day) + 1) * 86_400] as const;

type FigureRow = { value: string; visitors: number; visits: number; duration: number; bounces: number; pageviews: number };

const toMap = (rows: readonly FigureRow[]) =>
  new Map(
    rows.map((row) => [
      row.value,
      {
        visitors: Number(row.visitors),
        visits: Number(row.visits),
        duration: Number(row.duration),
        bounces: Number(row.bounces),
        pageviews: Number(row.pageviews),
      },
    ]),
  );

/**
 * Per value of a visit column, the visits that started on a local day (from the store,
 * which holds the last `retention_days`): empty for days it no longer holds.
 */
export async function visitFiguresOn(
  db: Kysely<Database>,
  websiteId: number,
  column: VisitColumn,
  day: string,
): Promise<Map<string, VisitFigures>> {
  const [start, end] = bounds(day);
  const { rows } = await sql<FigureRow>`select d.value as value, count(distinct ${VISITOR}) as visitors, count(*) as visits,
      sum(v.duration) as duration, sum(${BOUNCED}) as bounces, sum(v.pageviews) as pageviews
    from visits v join dimensions d on d.id = ${sql.ref(`v.${column}`)}
    where v.website_id = ${websiteId} and v.start >= ${start} and v.start < ${end}
    group by d.value`.execute(db);
  return toMap(rows);
}

/** Per page, the visitor-days and visits with a pageview of it on a local day (pageviews and durations are not a page's). */
export async function pageFiguresOn(db: Kysely<Database>, websiteId: number, day: string): Promise<Map<string, VisitFigures>> {
  const [start, end] = bounds(day);
  const { rows } =
    await sql<FigureRow>`select d.value as value, count(distinct ${VISITOR}) as visitors, count(distinct h.visit_id) as visits,
      0 as duration, 0 as bounces, count(*) as pageviews
    from hits h join visits v on v.id = h.visit_id join dimensions d on d.id = h.page
    where h.website_id = ${websiteId} and h.event = 0 and h.time >= ${start} and h.time < ${end}
    group by d.value`.execute(db);
  return toMap(rows);
}
