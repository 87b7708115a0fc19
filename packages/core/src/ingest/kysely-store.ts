import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import type { EngineStore } from "../storage/store.js";
import { kyselyRunner } from "../storage/kysely-runner.js";
import { asStoreUnavailable } from "../storage/store-faults.js";
import { runAsync, type Steps } from "../shared/steps.js";
import { createDictionary } from "./dictionary.js";
import { engineWrites, type EngineWrites } from "./engine-writes.js";
import { createVisitorRows } from "./visitor-rows.js";

/** Writes each flush in one transaction through kysely: PostgreSQL, and SQLite databases no worker thread can open. */
export function createKyselyStore(db: Kysely<Database>, dialect: SqlDialect): EngineStore {
  const dictionary = createDictionary();
  // SQLite finds visitor rows by the rowids it keeps (ingest/visitor-rows.ts); PostgreSQL by their hash, locking them.
  const visitorRows = dialect.name === "sqlite" ? createVisitorRows() : undefined;
  const inTransaction = <T>(body: (writes: EngineWrites) => Steps<T>): Promise<T> =>
    db.transaction().execute(async (trx) => {
      // Writes whose answers nobody reads go out together (SqlRunner.hold), all before the commit.
      const runner = kyselyRunner(trx, dialect, { holdWrites: dialect.name === "postgres" });
      const answer = await runAsync(body(engineWrites(runner, dialect, dictionary, visitorRows)));
      await runner.release?.();
      return answer;
    });
  const storeCall = async <T>(body: (writes: EngineWrites) => Steps<T>): Promise<T> => {
    try {
      return await inTransaction(body);
    } catch (error) {
      throw asStoreUnavailable(error);
    }
  };
  return {
    async write(hits, batchId) {
      try {
        await storeCall((writes) => writes.write(hits, batchId));
        dictionary.commit();
        visitorRows?.commit();
      } catch (error) {
        dictionary.rollback();
        visitorRows?.forget();
        throw error;
      }
    },
    probe: () => storeCall((writes) => writes.probe()),
    async deleteWebsite(websiteId) {
      await inTransaction((writes) => writes.deleteWebsite(websiteId));
      dictionary.forgetWebsite(websiteId);
    },
    // No transaction: the insert does nothing when the day has its salt, and the select that
    // follows reads the one committed (two round trips, not four, on the collecting thread).
    salt: (day, candidate) => runAsync(engineWrites(kyselyRunner(db, dialect), dialect, dictionary).salt(day, candidate)),
    async forgetBefore(day) {
      try {
        await inTransaction((writes) => writes.forgetBefore(day));
        visitorRows?.commit();
      } catch (error) {
        visitorRows?.forget();
        throw error;
      }
    },
    deleteOlderThan: (websiteId, localSeconds, limit) => inTransaction((writes) => writes.deleteOlderThan(websiteId, localSeconds, limit)),
    close: async () => {},
  };
}
