import { CompiledQuery, type Kysely } from "kysely";
import type { Hit } from "../model/hit.js";
import type { AppTransaction } from "../model/events.js";
import type { SqlDialect } from "../storage/dialect.js";
import type { Database } from "../storage/schema.js";
import { oneRunAtATime } from "../shared/one-run-at-a-time.js";

/** Writes the conversion's row through the app's transaction: it exists only if that commits. */
export async function writeToOutbox(trx: AppTransaction, dialect: SqlDialect, hit: Hit): Promise<void> {
  const json = JSON.stringify(hit);
  const text = `insert into tally_outbox (hit) values (${dialect.name === "postgres" ? "$1" : "?"})`;
  if ("executeQuery" in trx) await trx.executeQuery(CompiledQuery.raw(text, [json]));
  else if ("prepare" in trx) trx.prepare(text).run(json);
  else await trx.query(text, [json]);
}

export interface OutboxRelayOptions {
  db: Kysely<Database>;
  /** Writes conversions (each carrying its `outboxId`) in one transaction of the store, which deletes their rows in it. */
  write(hits: readonly Hit[]): Promise<void>;
}

const BATCH = 500;

/**
 * Moves committed conversions into the statistics: reads them and has them written; the
 * flush that counts them deletes their rows in its own transaction, so a conversion is
 * counted exactly once whatever stops when. A write that fails leaves the rows where they
 * are (the outbox is their buffer), for the next run.
 */
export function createOutboxRelay({ db, write }: OutboxRelayOptions) {
  return oneRunAtATime(async () => {
    let moved = 0;
    for (;;) {
      const rows = await db.selectFrom("tally_outbox").select(["id", "hit"]).orderBy("id").limit(BATCH).execute();
      if (rows.length === 0) return moved;
      await write(rows.map((row) => ({ ...(JSON.parse(row.hit) as Hit), outboxId: Number(row.id) })));
      moved += rows.length;
      if (rows.length < BATCH) return moved;
    }
  });
}
