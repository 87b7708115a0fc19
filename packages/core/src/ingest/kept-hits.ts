import { dirname, join, resolve } from "node:path";
import type { Kysely } from "kysely";
import type { OpenDatabase } from "../storage/connection.js";
import type { Database } from "../storage/schema.js";
import { replaySpills, TEMP_SPILL_FOLDER, type SpillFolders } from "./spill.js";
import type { EngineStore } from "../storage/store.js";
import { storeFaultOf } from "../storage/store-faults.js";

/**
 * At start: a one-row write proves the database takes writes (a read-only file is
 * refused before anything is served); answers the database's id. A database locked by
 * another writer right now is being written, so it can be: that is no reason to refuse.
 */
export async function markStarted(db: Kysely<Database>): Promise<string> {
  const value = new Date().toISOString();
  try {
    await db
      .insertInto("tally_meta")
      .values({ key: "started_at", value })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
      .execute();
  } catch (error) {
    if (storeFaultOf(error)?.kind !== "locked") throw error;
  }
  const row = await db.selectFrom("tally_meta").select("value").where("key", "=", "database_id").executeTakeFirstOrThrow();
  return row.value;
}

/** Where this database's spills go: none in memory (the next start is another database). */
export function spillFoldersOf(store: OpenDatabase, spillDir: string | undefined): SpillFolders | null {
  const { place } = store;
  if (place === "memory") return null;
  const primary = spillDir ?? (place === "server" ? TEMP_SPILL_FOLDER : join(dirname(resolve(place.file)), "tally-spill"));
  return { primary: resolve(primary), fallback: TEMP_SPILL_FOLDER };
}

/** Writes the hits an earlier shutdown kept, before anything else is accepted, and says so in one line. */
export async function replayKeptHits(
  folders: SpillFolders,
  databaseId: string,
  store: Pick<EngineStore, "write">,
  onError: (error: unknown) => void,
): Promise<void> {
  const replayed = await replaySpills(folders, databaseId, (hits, batchId) => store.write(hits, batchId), onError);
  if (replayed.files.length > 0)
    console.warn(`tally: wrote ${replayed.hits} hits kept at an earlier shutdown (${replayed.files.join(", ")})`);
}
