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
  /** Hands committed conversions to the write queue and writes them. */
  count(hits: readonly Hit[]): Promise<void>;
}

const BATCH = 1000;

/**
 * Moves committed conversions into the statistics: reads them, has them written like any
 * hit, then deletes their rows. A process that stops between the write and the delete
 * counts those conversions again at its next start (a window of one statement).
 */
export function createOutboxRelay({ db, count }: OutboxRelayOptions) {
  return oneRunAtATime(async () => {
    let moved = 0;
    for (;;) {
      const rows = await db.selectFrom("tally_outbox").select(["id", "hit"]).orderBy("id").limit(BATCH).execute();
      if (rows.length === 0) return moved;
      await count(rows.map((row) => JSON.parse(row.hit) as Hit));
      await db
        .deleteFrom("tally_outbox")
        .where(
          "id",
          "in",
          rows.map((row) => row.id),
        )
        .execute();
      moved += rows.length;
      if (rows.length < BATCH) return moved;
    }
  });
}
