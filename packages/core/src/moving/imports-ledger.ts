import type { Kysely, Selectable } from "kysely";
import type { Database, ImportsTable } from "../storage/schema.js";

export type ImportRow = Selectable<ImportsTable>;

export interface ImportCounts {
  rowsRead: number;
  imported: number;
  skipped: number;
  firstDay: string | null;
  lastDay: string | null;
}

/** The `imports` table: every run, so that the same file or the same days are never counted twice. */
export function createImportsLedger(db: Kysely<Database>) {
  return {
    async list(websiteId: number): Promise<ImportRow[]> {
      return db.selectFrom("imports").selectAll().where("website_id", "=", websiteId).orderBy("id").execute();
    },
    /** Records a run about to write, with the days its check found (so they are taken even if it dies). */
    async begin(websiteId: number, source: string, fileName: string, contentHash: string, counts: ImportCounts): Promise<number> {
      const row = await db
        .insertInto("imports")
        .values({
          website_id: websiteId,
          source,
          file_name: fileName,
          content_hash: contentHash,
          first_day: counts.firstDay ?? "",
          last_day: counts.lastDay ?? "",
          rows_read: 0,
          rows_imported: 0,
          rows_skipped: 0,
          status: "running",
          message: "",
          created_at: new Date().toISOString(),
          finished_at: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },
    async finish(id: number, counts: ImportCounts, status: "complete" | "failed", message = ""): Promise<void> {
      await db
        .updateTable("imports")
        .set({
          first_day: counts.firstDay ?? "",
          last_day: counts.lastDay ?? "",
          rows_read: counts.rowsRead,
          rows_imported: counts.imported,
          rows_skipped: counts.skipped,
          status,
          message,
          finished_at: new Date().toISOString(),
        })
        .where("id", "=", id)
        .execute();
    },
    /** The visitor rows an import's replay kept for itself (`~<id>:…`): removed once it ends. */
    async forgetVisitors(id: number): Promise<void> {
      await db.deleteFrom("visitors").where("hash", "like", `~${id}:%`).execute();
    },
  };
}

export type ImportsLedger = ReturnType<typeof createImportsLedger>;
