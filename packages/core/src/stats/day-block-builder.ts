import { sql, type Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import { encodeColumn } from "./day-block-format.js";
import { VISIT_DIMENSIONS } from "../model/dimensions.js";

/**
 * Day blocks: the visits that started on one local day, with all their hits and event
 * properties, stored column by column (docs/statistics.md, "How filtered statistics are
 * read"). Filtered statistics scan these instead of the rows, a few bytes per value.
 *
 * Visits are in visitor-day order (`v.run_start` is 1 where a visitor-day's run starts), hits in visit order
 * (`v.hits` of them per visit; within a visit as they came), properties in hit order (`p.hit`). Times are seconds
 * from the start of the day.
 */
export const VISIT_COUNTS = ["start", "duration", "pageviews", "events"] as const;
export type BlockColumn =
  | "v.run_start"
  | "v.hits"
  | `v.${(typeof VISIT_COUNTS)[number]}`
  | `v.${(typeof VISIT_DIMENSIONS)[number]}`
  | "h.time"
  | "h.page"
  | "h.event"
  | "p.hit"
  | "p.name"
  | "p.value";

interface VisitRow {
  id: number;
  visitor: number;
  [column: string]: number;
}

/** Reads a day's rows and encodes them: every column of its block. */
async function readBlock(db: Kysely<Database>, websiteId: number, day: number): Promise<Map<BlockColumn, Uint8Array>> {
  const start = day * 86_400;
  const ofDay = sql`v.website_id = ${websiteId} and v.start >= ${start} and v.start < ${start + 86_400}`;
  const visitColumns = sql.join(["id", "visitor", ...VISIT_COUNTS, ...VISIT_DIMENSIONS].map((column) => sql.ref(`v.${column}`)));
  const visits = (await sql<VisitRow>`select ${visitColumns} from visits v where ${ofDay}`.execute(db)).rows.map((row) => {
    const numeric: VisitRow = { id: 0, visitor: 0 };
    for (const [key, value] of Object.entries(row)) numeric[key] = Number(value);
    return numeric;
  });
  // Cross join: the day's visits drive, their hits are found by visit.
  const hits = (
    await sql<{ visit_id: number; time: number; page: number; event: number; seq: number }>`
      select h.visit_id, h.time, h.page, h.event, h.seq from visits v cross join hits h where h.visit_id = v.id and ${ofDay}`.execute(db)
  ).rows;
  const props = (
    await sql<{ visit_id: number; time: number; event: number; seq: number; name: number; value: number }>`
      select p.visit_id, p.time, p.event, p.seq, p.name, p.value from visits v cross join event_props p where p.visit_id = v.id and ${ofDay}`.execute(
      db,
    )
  ).rows;

  const visitorOf = (visit: VisitRow) => (visit.visitor === 0 ? visit.id : visit.visitor);
  visits.sort((a, b) => visitorOf(a) - visitorOf(b) || a.id - b.id);
  const visitIndex = new Map(visits.map((visit, i) => [visit.id, i]));
  const sortedHits = hits
    .map((hit) => ({
      visit: visitIndex.get(Number(hit.visit_id))!,
      time: Number(hit.time),
      page: Number(hit.page),
      event: Number(hit.event),
      seq: Number(hit.seq),
    }))
    // A visit's hits in the order they came (`seq`; rows older than it have 0: by time), as funnels read them.
    .sort((a, b) => a.visit - b.visit || a.seq - b.seq || a.time - b.time);
  const hitKey = (visit: number, time: number, event: number, seq: number) => `${visit}:${time}:${event}:${seq}`;
  const hitIndex = new Map(sortedHits.map((hit, i) => [hitKey(hit.visit, hit.time, hit.event, hit.seq), i]));
  const sortedProps = props
    .map((prop) => ({
      hit: hitIndex.get(hitKey(visitIndex.get(Number(prop.visit_id))!, Number(prop.time), Number(prop.event), Number(prop.seq))) ?? -1,
      name: Number(prop.name),
      value: Number(prop.value),
    }))
    .filter((prop) => prop.hit >= 0)
    .sort((a, b) => a.hit - b.hit);

  const hitsPerVisit = new Array<number>(visits.length).fill(0);
  for (const hit of sortedHits) hitsPerVisit[hit.visit]!++;
  const runStarts = visits.map((visit, i) => Number(i === 0 || visitorOf(visit) !== visitorOf(visits[i - 1]!)));

  const columns = new Map<BlockColumn, Uint8Array>();
  columns.set("v.run_start", encodeColumn(runStarts));
  columns.set("v.hits", encodeColumn(hitsPerVisit));
  for (const column of VISIT_COUNTS) {
    columns.set(`v.${column}`, encodeColumn(visits.map((visit) => (column === "start" ? visit.start! - start : visit[column]!))));
  }
  for (const column of VISIT_DIMENSIONS) columns.set(`v.${column}`, encodeColumn(visits.map((visit) => visit[column]!)));
  columns.set("h.time", encodeColumn(sortedHits.map((hit) => hit.time - start)));
  columns.set("h.page", encodeColumn(sortedHits.map((hit) => hit.page)));
  columns.set("h.event", encodeColumn(sortedHits.map((hit) => hit.event)));
  columns.set("p.hit", encodeColumn(sortedProps.map((prop) => prop.hit)));
  columns.set("p.name", encodeColumn(sortedProps.map((prop) => prop.name)));
  columns.set("p.value", encodeColumn(sortedProps.map((prop) => prop.value)));
  return columns;
}

/** A turn of the event loop between days, so hits and requests go on meanwhile. */
const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Builds the blocks of every day that has none or an out-of-date one, except each
 * website's latest day (still being written); answers how many were built. A day
 * written again while its block was read keeps its old block and is built next time.
 */
export async function buildDayBlocks(db: Kysely<Database>, options: { websiteId?: number } = {}): Promise<number> {
  const website = options.websiteId === undefined ? sql`1 = 1` : sql`d.website_id = ${options.websiteId}`;
  const stale = (
    await sql<{ website_id: number; day: number; version: number }>`
      select d.website_id, d.day, d.version from day_versions d
      where ${website} and d.day < (select max(m.day) from day_versions m where m.website_id = d.website_id)
        and not exists (select 1 from day_blocks b where b.website_id = d.website_id and b.day = d.day and b.name = 'v.hits' and b.version = d.version)
      order by d.website_id, d.day`.execute(db)
  ).rows;
  let built = 0;
  for (const { website_id: websiteId, day, version } of stale) {
    // One snapshot (SQLite's read transactions are; PostgreSQL's repeatable read): the rows read are those of `version`.
    const columns = await db
      .transaction()
      .setIsolationLevel("repeatable read")
      .execute((trx) => readBlock(trx, Number(websiteId), Number(day)));
    await db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom("day_versions")
        .select("version")
        .where("website_id", "=", websiteId)
        .where("day", "=", day)
        .executeTakeFirst();
      if (Number(current?.version) !== Number(version)) return;
      await trx.deleteFrom("day_blocks").where("website_id", "=", websiteId).where("day", "=", day).execute();
      for (const [name, data] of columns) {
        await trx
          .insertInto("day_blocks")
          .values({ website_id: websiteId, day, version, name, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) })
          .execute();
      }
      built++;
    });
    await pause();
  }
  return built;
}
