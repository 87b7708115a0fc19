import type { Kysely } from "kysely";
import { OPEN_RUNS } from "../storage/claimed-runs.js";
import type { Database } from "../storage/schema.js";

/**
 * Whether the alerts' scheduled run has anything to do: a rule to check, or a delivery not
 * yet finished. Without either, the run is skipped and the alerts' code stays unloaded.
 */
export async function hasAlertWork(db: Kysely<Database>): Promise<boolean> {
  const rule = await db.selectFrom("alert_rules").select("id").limit(1).executeTakeFirst();
  if (rule) return true;
  const delivery = await db.selectFrom("alert_deliveries").select("id").where("status", "in", OPEN_RUNS).limit(1).executeTakeFirst();
  return delivery !== undefined;
}
