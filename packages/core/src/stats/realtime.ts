import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { Realtime } from "../model/stats-schemas.js";

/** "Right now" on dashboards: visitors with a hit in the last five minutes, as Plausible and Umami show it. */
export const REALTIME_WINDOW_MS = 5 * 60 * 1000;

export type { Realtime } from "../model/stats-schemas.js";

/** Counts recent visitor rows; the `day` bound (any zone's today is within a day of UTC's) keeps it on the index. */
export function createRealtimeReader(db: Kysely<Database>) {
  return async function readRealtime(websiteId: number, now: number = Date.now()): Promise<Realtime> {
    const since = now - REALTIME_WINDOW_MS;
    const earliestDay = new Date(since - 2 * 86_400_000).toISOString().slice(0, 10);
    const row = await db
      .selectFrom("visitors")
      .select((eb) => eb.fn.countAll<number | string | bigint>().as("n"))
      .where("day", ">=", earliestDay)
      .where("website_id", "=", websiteId)
      .where("last_seen", ">=", since)
      .executeTakeFirstOrThrow();
    return { visitors: Number(row.n) };
  };
}
