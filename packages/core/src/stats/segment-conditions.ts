import { sql, type RawBuilder } from "kysely";
import type { SqlDialect } from "../storage/dialect.js";
import { DIMENSION_KINDS, isCoded, VISIT_COLUMNS, type DimensionKind } from "../model/dimensions.js";
import { appliesToHit, isNegated, isPattern, isSubstring, NO_VALUE, type Condition, type SimpleCondition } from "../model/filters.js";

type Sql = RawBuilder<unknown>;

/** The dictionary kind of each visit column (entry and exit pages are pages). */
const VISIT_KINDS = new Map(VISIT_COLUMNS.map(({ column, kind }) => [column, kind]));

/** The dictionary ids each pattern matches, by `patternKey`: for a database without regular expressions (pattern-matches.ts). */
export type PatternMatches = ReadonlyMap<string, readonly number[]>;

export const patternKey = (kind: DimensionKind, pattern: string) => `${kind}\u0000${pattern}`;

/** The dictionary kind a condition's values are looked up in. */
export function conditionKind(condition: SimpleCondition): DimensionKind {
  if (condition.on === "visit") return VISIT_KINDS.get(condition.dimension)!;
  return condition.on === "prop" ? "prop_value" : condition.on;
}

/**
 * SQL fragments for the conditions of docs/statistics.md ("Segments: filters"), on the
 * aliases `v` (visits) and `h` (hits). Each condition becomes a set of dictionary ids,
 * so the big tables are compared on integers only. Where the database has no regular
 * expressions (`dialect.matchesRegex` absent), `matched` holds the ids each pattern matches.
 */
export type SegmentConditions = ReturnType<typeof segmentConditions>;

export function segmentConditions(dialect: SqlDialect, websiteId: number, conditions: readonly Condition[], matched?: PatternMatches) {
  /** Ids of the values a pattern matches: by the database, or among those matched beforehand. */
  function patternTest(kind: DimensionKind, pattern: string): Sql {
    if (dialect.matchesRegex) return dialect.matchesRegex(sql.ref("value"), pattern);
    const ids = matched?.get(patternKey(kind, pattern));
    if (!ids) throw new TypeError("patterns must be matched (matchPatterns) before their SQL is built");
    return ids.length === 0 ? sql`1 = 0` : sql`id in (${sql.join(ids.map((id) => sql.lit(id)))})`;
  }

  /** Ids of the website's values of a kind that the condition's values match, as `is`, `contains` or `matches` would. */
  function matchingIds(kind: DimensionKind, values: readonly string[], how: "is" | "contains" | "matches"): Sql {
    const tests: Sql[] =
      how === "contains"
        ? values.map((value) => dialect.contains(sql.ref("search"), value.toLowerCase()))
        : how === "matches"
          ? values.map((pattern) => patternTest(kind, pattern))
          : [sql`value in (${sql.join(values)})`];
    if (how === "is" && isCoded(kind)) {
      for (const code of values.filter((value) => !value.includes(":"))) {
        const prefix = `${code.toUpperCase()}:`;
        tests.push(sql`substr(value, 1, ${prefix.length}) = ${prefix}`);
      }
    }
    return sql`(select id from dimensions where website_id = ${websiteId} and kind = ${DIMENSION_KINDS[kind]} and (${sql.join(tests, sql` or `)}))`;
  }

  /** The ids a condition's values match; `(none)` among a visit condition's `is` values also matches a visit without a value (id 0). */
  function ids(condition: SimpleCondition): Sql {
    const how = isSubstring(condition.operator) ? "contains" : isPattern(condition.operator) ? "matches" : "is";
    const none = condition.on === "visit" && how === "is" && condition.values.includes(NO_VALUE);
    const values = none ? condition.values.filter((value) => value !== NO_VALUE) : condition.values;
    const matched = values.length > 0 ? matchingIds(conditionKind(condition), values, how) : sql`(select id from dimensions where 1 = 0)`;
    return none ? sql`(select id from ${matched} ids union all select 0)` : matched;
  }
  const negated = (condition: SimpleCondition) => isNegated(condition.operator);
  const propertyNames = (name: string) => matchingIds("prop_name", [name], "is");

  /** The hits of visit `v` that match a hit condition positively (is / contains). */
  function matchingHitsOfVisit(condition: SimpleCondition): Sql {
    if (condition.on === "page") return sql`select 1 from hits h2 where h2.visit_id = v.id and h2.page in ${ids(condition)}`;
    if (condition.on === "event") return sql`select 1 from hits h2 where h2.visit_id = v.id and h2.event in ${ids(condition)}`;
    if (condition.on === "prop") {
      return sql`select 1 from event_props p2 where p2.visit_id = v.id and p2.name in ${propertyNames(condition.name)}
        and p2.value in ${ids(condition)}`;
    }
    throw new TypeError("not a hit condition");
  }

  /** A visit matches: its own value for visit dimensions, one of its hits (or none, for is_not) for the others; `any`: one of its conditions. */
  function onVisit(condition: Condition): Sql {
    if (condition.on === "any") return sql`(${sql.join(condition.conditions.map(onVisit), sql` or `)})`;
    if (condition.on === "visit") {
      const column = sql.ref(`v.${condition.dimension}`);
      const set = ids(condition);
      return negated(condition) ? sql`${column} not in ${set}` : sql`${column} in ${set}`;
    }
    const exists = sql`exists (${matchingHitsOfVisit(condition)})`;
    return negated(condition) ? sql`not ${exists}` : exists;
  }

  /** Whether a condition narrows the hits a statistic counts (appliesToHit); `any` when one of its conditions does. */
  const narrowsHits = (condition: Condition, eventStatistic: boolean) =>
    condition.on === "any"
      ? condition.conditions.some((part) => appliesToHit(part, eventStatistic))
      : appliesToHit(condition, eventStatistic);

  /**
   * A hit `h` (of visit `v`) itself matches: its page, its event name, or its own property;
   * `any`: one of its conditions holds, on the hit where it narrows hits, else on the visit.
   */
  function onHit(condition: Condition, eventStatistic: boolean): Sql {
    if (condition.on === "any") {
      const parts = condition.conditions.map((part) => (appliesToHit(part, eventStatistic) ? onHit(part, eventStatistic) : onVisit(part)));
      return sql`(${sql.join(parts, sql` or `)})`;
    }
    if (condition.on === "page" || condition.on === "event") {
      const column = sql.ref(`h.${condition.on}`);
      const set = ids(condition);
      return negated(condition) ? sql`${column} not in ${set}` : sql`${column} in ${set}`;
    }
    if (condition.on === "prop") {
      const exists = sql`exists (select 1 from event_props p2 where p2.visit_id = h.visit_id and p2.time = h.time
        and p2.event = h.event and p2.seq = h.seq and p2.name in ${propertyNames(condition.name)} and p2.value in ${ids(condition)})`;
      return negated(condition) ? sql`not ${exists}` : exists;
    }
    throw new TypeError("not a hit condition");
  }

  const all = (parts: readonly Sql[]) => (parts.length === 0 ? sql`1 = 1` : sql.join(parts, sql` and `));

  /** The dictionary ids each condition matches (and for properties, the ids of the name), as queries. */
  function idQueries(condition: SimpleCondition): { ids: Sql; names: Sql } {
    const none = sql`(select id from dimensions where 1 = 0)`;
    return { ids: ids(condition), names: condition.on === "prop" ? propertyNames(condition.name) : none };
  }

  return {
    conditions,
    idQueries,
    /** Every condition, evaluated on the visit `v`. */
    visit: () => all(conditions.map(onVisit)),
    /** What a hit `h` of a matching visit must match itself: page and property conditions, and for event statistics event ones. */
    hit: (eventStatistic: boolean) => all(conditions.filter((c) => narrowsHits(c, eventStatistic)).map((c) => onHit(c, eventStatistic))),
    /** Ids of the dictionary values equal to `value` (event and property names of `event_property`). */
    idsOf: (kind: DimensionKind, value: string) => matchingIds(kind, [value], "is"),
    /** Ids of the website's pages a page goal's pattern matches (`*`: any characters). */
    pagesMatching: (pattern: string) =>
      sql`(select id from dimensions where website_id = ${websiteId} and kind = ${DIMENSION_KINDS.page} and ${dialect.matchesWildcard(sql.ref("value"), pattern)})`,
  };
}
