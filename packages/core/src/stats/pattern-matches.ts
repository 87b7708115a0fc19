import { sql, type Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import { DIMENSION_KINDS, type DimensionKind } from "../model/dimensions.js";
import { isPattern, simpleConditions, type Condition } from "../model/filters.js";
import { matchesPattern } from "../shared/patterns.js";
import { conditionKind, patternKey, segmentConditions, type PatternMatches, type SegmentConditions } from "./segment-conditions.js";

/**
 * The ids of the website's values that each `matches` / `matches_not` pattern matches, tested
 * here with RE2 (re2js): for a database that cannot (a SQLite connection of the app's, which
 * lacks Tally's `tally_regexp`). Each kind's values are read once.
 */
async function matchPatterns(db: Kysely<Database>, websiteId: number, conditions: readonly Condition[]): Promise<PatternMatches> {
  const patterns = new Map<DimensionKind, Set<string>>();
  for (const condition of simpleConditions(conditions).filter((part) => isPattern(part.operator))) {
    const kind = conditionKind(condition);
    patterns.set(kind, new Set([...(patterns.get(kind) ?? []), ...condition.values]));
  }
  const matches = new Map<string, number[]>();
  for (const [kind, wanted] of patterns) {
    const { rows } = await sql<{ id: number; value: string }>`select id, value from dimensions
      where website_id = ${websiteId} and kind = ${DIMENSION_KINDS[kind]}`.execute(db);
    for (const pattern of wanted) {
      matches.set(
        patternKey(kind, pattern),
        rows.filter((row) => matchesPattern(pattern, row.value)).map((row) => Number(row.id)),
      );
    }
  }
  return matches;
}

/**
 * A filter set's SQL, for a reader: built at once where the database matches patterns itself,
 * else once its patterns are matched (on first use, once per reader).
 */
export function preparedConditions(
  db: Kysely<Database>,
  dialect: SqlDialect,
  websiteId: number,
  conditions: readonly Condition[],
): () => Promise<SegmentConditions> {
  const needsMatching = !dialect.matchesRegex && simpleConditions(conditions).some((condition) => isPattern(condition.operator));
  let prepared: Promise<SegmentConditions> | null = needsMatching
    ? null
    : Promise.resolve(segmentConditions(dialect, websiteId, conditions));
  return () =>
    (prepared ??= matchPatterns(db, websiteId, conditions).then((matched) => segmentConditions(dialect, websiteId, conditions, matched)));
}
