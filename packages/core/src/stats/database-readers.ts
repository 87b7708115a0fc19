import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import { UnavailableError } from "../shared/errors.js";
import { createRollupReader } from "./rollup-reader.js";
import { createSegmentReader } from "./segment-reader.js";
import { createPathReader } from "./path-reader.js";
import type { StatsSources } from "./stats.js";
import { createBlockColumnStore, type BlockColumnStore } from "./block-column-store.js";

/** How long a statistics query may run before it is stopped (HTTP 503). */
export const DEFAULT_QUERY_TIMEOUT_MS = 20_000;

/** Rollups without filters or page goals, the visits and hits with them or when asked (and for funnels and journeys), read through `db`; the day-block columns decoded kept in `columnStore` for later requests (one per database, not per transaction). */
export function databaseSources(
  db: Kysely<Database>,
  dialect: SqlDialect,
  columnStore: BlockColumnStore = createBlockColumnStore(),
): StatsSources {
  return {
    readerFor: (websiteId, query, columnCache) =>
      query.conditions.length === 0 && (query.goal_page ?? []).length === 0 && !query.fromRows
        ? createRollupReader(db, dialect, websiteId)
        : createSegmentReader(db, dialect, { websiteId, conditions: query.conditions, columnCache, columnStore }),
    pathsFor: (websiteId, conditions) => createPathReader(db, dialect, websiteId, conditions),
  };
}

/** What a client gets when its statistics query ran past the timeout and was stopped. */
export function queryTooLong(): UnavailableError {
  return new UnavailableError("The statistics query took too long and was stopped; try a shorter range or fewer filters.");
}

/** What a client gets when its statistics query would read more rows than allowed, or could not start in time. */
export function queryTooLarge(): UnavailableError {
  return new UnavailableError("The statistics query would take too long and was not run; try a shorter range or fewer filters.");
}
