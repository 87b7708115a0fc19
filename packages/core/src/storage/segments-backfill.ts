import { sql, type Kysely } from "kysely";
import { DIMENSION_KINDS, PROPERTY_SEPARATOR, STAT_KINDS, type DimensionKind } from "../model/dimensions.js";

/** Rows per insert: far below both databases' parameter limits. */
const CHUNK = 500;

interface Entry {
  website_id: number;
  kind: number;
  value: string;
  search: string;
  created_day: number;
}

function entry(websiteId: number, kind: DimensionKind, value: string, createdDay: number): Entry {
  return { website_id: websiteId, kind: DIMENSION_KINDS[kind], value, search: value.toLowerCase(), created_day: createdDay };
}

/** The dictionary values a rollup row's value holds (none for series such as `pageviews`, three for `event_property`). */
export function rollupDimensions(websiteId: number, name: string, value: string, createdDay: number): Entry[] {
  const kind = STAT_KINDS[name];
  if (kind === undefined || value === "") return [];
  if (name !== "event_property") return [entry(websiteId, kind, value, createdDay)];
  const [event = "", property = "", propertyValue = ""] = value.split(PROPERTY_SEPARATOR);
  return [
    entry(websiteId, "event", event, createdDay),
    entry(websiteId, "prop_name", property, createdDay),
    entry(websiteId, "prop_value", propertyValue, createdDay),
  ].filter((item) => item.value !== "");
}

/**
 * Every value the rollups already hold goes into the dictionary (searches read it), as
 * created on day 0 so none of it counts against a day's limit on new values.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration: it runs on the schema of its time, not today's
export async function backfillDimensions(db: Kysely<any>): Promise<void> {
  const names = Object.keys(STAT_KINDS);
  const rows: { website_id: number; name: string; value: string }[] = await db
    .selectFrom("rollups")
    .select(["website_id", "name", "value"])
    .distinct()
    .where("name", "in", names)
    .execute();
  const entries = new Map<string, Entry>();
  for (const row of rows) {
    for (const item of rollupDimensions(Number(row.website_id), row.name, row.value, 0))
      entries.set(`${item.website_id}|${item.kind}|${item.value}`, item);
  }
  const all = [...entries.values()];
  for (let i = 0; i < all.length; i += CHUNK) {
    await db
      .insertInto("dimensions")
      .values(all.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(["website_id", "kind", "value"]).doNothing())
      .execute();
  }
}

/** Visits per day are known from before: every visit has exactly one landing page. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration, as above
export async function backfillVisits(db: Kysely<any>): Promise<void> {
  await sql`insert into rollups (website_id, name, period, value, count)
    select website_id, 'visits', period, period, sum(count) from rollups
    where name = 'landing_page' and length(period) = 10
    group by website_id, period`.execute(db);
}
