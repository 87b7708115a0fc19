import type { Condition } from "../../model/filters.js";
import { VITALS } from "../../model/hit-input.js";
import type { CountRange } from "../../stats/count-reader.js";
import type { EngagementSignal } from "../../stats/engagement.js";
import { clickhouseConditions } from "./conditions.js";
import { formedVisitsWith } from "./visit-source.js";
import { queryParams, type RunQuery } from "./query.js";
import { at, KIND, SIGNAL, STARTED } from "./visits.js";

interface SignalRow {
  visit: string;
  page: string;
  engaged_ms: number | string;
  scroll_depth: number | string | null;
  vitals: Record<string, number | string>;
}

/**
 * The engagement signals of the visits started in the range that match the filters
 * (docs/statistics.md, "Engagement"), from the visits formed at read time (visits.ts): each
 * signal belongs to the visit the visit processor gives it (the person's latest that day,
 * or yesterday's), whenever it came.
 */
export async function clickhouseEngagementSignals(
  run: RunQuery,
  conditions: readonly Condition[],
  range: CountRange,
): Promise<EngagementSignal[]> {
  const params = queryParams();
  const where = clickhouseConditions(conditions, params);
  const signal = `(e.${at("page")}, e.${SIGNAL.engagedMs}, e.${SIGNAL.scrollDepth}, e.${SIGNAL.vitals})`;
  const signals = `groupArrayIf(${signal}, e.2 = ${KIND.engagement}) AS signals`;
  const filtered = `WHERE ${STARTED} AND ${where.visit()}`;
  const rows = await run<SignalRow>(
    `SELECT visit, s.1 AS page, s.2 AS engaged_ms, s.3 AS scroll_depth, s.4 AS vitals
     FROM ${formedVisitsWith(where, [signals], filtered)} ARRAY JOIN signals AS s ${filtered}`,
    range,
    { params },
  );
  // The visits as numbers, as the database's signals name them.
  const visits = new Map<string, number>();
  const numberOrNull = (value: number | string | null | undefined) => (value === null || value === undefined ? null : Number(value));
  return rows.map((row) => {
    if (!visits.has(row.visit)) visits.set(row.visit, visits.size + 1);
    return {
      visit: visits.get(row.visit)!,
      page: row.page,
      engagedMs: Number(row.engaged_ms),
      scrollDepth: numberOrNull(row.scroll_depth),
      vitals: Object.fromEntries(VITALS.map((vital) => [vital, numberOrNull(row.vitals[vital])])) as EngagementSignal["vitals"],
    };
  });
}
