import { randomBytes, randomUUID } from "node:crypto";
import { CompiledQuery, type Kysely } from "kysely";
import type { Hit } from "../model/hit.js";
import type { AppTransaction } from "../model/events.js";
import type { SqlDialect } from "../storage/dialect.js";
import type { Database } from "../storage/schema.js";
import { oneRunAtATime } from "../shared/one-run-at-a-time.js";

/** One statement through the app's transaction (`?` placeholders); the rows it returns. */
async function inAppTransaction<Row>(trx: AppTransaction, dialect: SqlDialect, text: string, params: unknown[]): Promise<Row[]> {
  let at = 0;
  const statement = dialect.name === "postgres" ? text.replace(/\?/g, () => `$${++at}`) : text;
  if ("executeQuery" in trx) return (await trx.executeQuery(CompiledQuery.raw(statement, params))).rows as Row[];
  if ("prepare" in trx) {
    const prepared = trx.prepare(statement);
    return prepared.reader ? (prepared.all(...params) as Row[]) : (prepared.run(...params), []);
  }
  return (await trx.query(statement, params)).rows as Row[];
}

/** Writes the conversion's row through the app's transaction: it exists only if that commits. */
export async function writeToOutbox(trx: AppTransaction, dialect: SqlDialect, hit: Hit): Promise<void> {
  await inAppTransaction(trx, dialect, "insert into tally_outbox (hit) values (?)", [JSON.stringify(hit)]);
}

/**
 * A day's salt read (made if need be) through the app's transaction: on SQLite, Tally's own
 * writer would wait for the lock that transaction holds, and the app for the conversion.
 * Rolled back, the salt goes with it, and nothing kept it in memory.
 */
export async function saltInAppTransaction(trx: AppTransaction, dialect: SqlDialect, day: string): Promise<string> {
  await inAppTransaction(trx, dialect, "insert into salts (day, salt) values (?, ?) on conflict (day) do nothing", [
    day,
    randomBytes(32).toString("base64url"),
  ]);
  const [row] = await inAppTransaction<{ salt: string }>(trx, dialect, "select salt from salts where day = ?", [day]);
  return row!.salt;
}

export interface OutboxRelayOptions {
  db: Kysely<Database>;
  /**
   * Writes conversions (each carrying its `outboxId`) under a batch id: in one transaction
   * of the store, which deletes their rows in it; or, with `claim`, to ClickHouse, the rows
   * deleted after.
   */
  write(hits: readonly Hit[], batchId: string): Promise<void>;
  /**
   * The rows are claimed under a batch id before they are written (ClickHouse: no transaction
   * spans it and the database): rows claimed before and still here go again under their id,
   * which ClickHouse keeps once.
   */
  claim?: boolean;
}

const BATCH = 500;

type OutboxRow = { id: number; hit: string };

/** The next rows to write and their batch id: a batch claimed before first, else up to BATCH rows claimed now. */
async function claimedRows(db: Kysely<Database>): Promise<{ rows: OutboxRow[]; batchId: string }> {
  const earlier = await db
    .selectFrom("tally_outbox")
    .select("batch")
    .where("batch", "is not", null)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  const batchId = earlier?.batch ?? `outbox-${randomUUID()}`;
  if (!earlier) {
    const next = db.selectFrom("tally_outbox").select("id").where("batch", "is", null).orderBy("id").limit(BATCH);
    await db.updateTable("tally_outbox").set({ batch: batchId }).where("id", "in", next).where("batch", "is", null).execute();
  }
  const rows = await db.selectFrom("tally_outbox").select(["id", "hit"]).where("batch", "=", batchId).orderBy("id").execute();
  return { rows, batchId };
}

/**
 * Moves committed conversions into the statistics: reads them and has them written; the
 * flush that counts them deletes their rows (in its own transaction, or after ClickHouse
 * took them under a batch id claimed first), so a conversion is counted exactly once
 * whatever stops when. A write that fails leaves the rows where they are (the outbox is
 * their buffer), for the next run.
 */
export function createOutboxRelay({ db, write, claim = false }: OutboxRelayOptions) {
  return oneRunAtATime(async () => {
    let moved = 0;
    for (;;) {
      const { rows, batchId } = claim
        ? await claimedRows(db)
        : {
            rows: await db.selectFrom("tally_outbox").select(["id", "hit"]).orderBy("id").limit(BATCH).execute(),
            batchId: `outbox-${randomUUID()}`,
          };
      if (rows.length === 0) return moved;
      await write(
        rows.map((row) => ({ ...(JSON.parse(row.hit) as Hit), outboxId: Number(row.id) })),
        batchId,
      );
      moved += rows.length;
      if (rows.length < BATCH) return moved;
    }
  });
}
