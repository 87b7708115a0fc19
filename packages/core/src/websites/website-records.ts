import type { Kysely } from "kysely";
import { NotFoundError, ValidationError } from "../shared/errors.js";
import type { Database } from "../storage/schema.js";

/** Tables of what a team defines per website (deleted with it): funnels, goals, annotations, saved segments. */
export type RecordTable = "funnels" | "goals" | "annotations" | "saved_segments" | "share_links";

/** Refuses one more row when the website has `max` already: a 422 on `field` that says so. */
export async function requireRoom(
  db: Kysely<Database>,
  { table, websiteId, max, field, what }: { table: RecordTable; websiteId: number; max: number; field: string; what: string },
): Promise<void> {
  const { n } = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string | bigint>().as("n"))
    .where("website_id", "=", websiteId)
    .executeTakeFirstOrThrow();
  if (Number(n) >= max) throw ValidationError.field(field, `A website may have at most ${max} ${what}.`);
}

/** Deletes one row of a website by id; NotFoundError when it has no such row. */
export async function deleteRecord(db: Kysely<Database>, table: RecordTable, websiteId: number, id: number): Promise<void> {
  const deleted = await db.deleteFrom(table).where("website_id", "=", websiteId).where("id", "=", id).executeTakeFirst();
  if (Number(deleted.numDeletedRows) === 0) throw new NotFoundError();
}

/** `now` as stored: an ISO date-time in UTC. */
export const timestamp = (): string => new Date().toISOString();
