import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";

/** The first day with statistics of a website (`Y-m-d`, its time zone), from its day rollups; null before any. */
export async function readFirstDay(db: Kysely<Database>, websiteId: number): Promise<string | null> {
  const row = await db
    .selectFrom("rollups")
    .select((eb) => eb.fn.min("period").as("first"))
    .where("website_id", "=", websiteId)
    .where("period", "like", "____-__-__")
    .executeTakeFirst();
  return row?.first ?? null;
}
