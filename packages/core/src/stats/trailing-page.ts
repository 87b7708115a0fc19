import { sql, type Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import { TRAILING_PERIOD } from "../model/trailing-period.js";
import { pageRows, type DayRange, type ListOptions } from "./count-reader.js";
import type { StatRow } from "../model/stats-schemas.js";

/** A range read through the trailing period (rollup-reader.ts `rangePeriods`): its first period is the trailing one. */
export interface TrailingPlan {
  periods: string[];
  days: DayRange | null;
  subtract: string[];
}

/** The trailing period as a literal: the partial index on the trailing rows is chosen for it, not for a parameter. */
const TRAILING = sql.lit(TRAILING_PERIOD);

/**
 * A page sorted by count of a statistic over a range near the trailing period, without
 * grouping its rows: a value's count is its trailing row's unless the periods where the
 * range and the trailing period differ count it (few values: a day or a few at each end).
 * So the page is the trailing rows' own order, read from the top of their index, merged
 * with those few values' sums; the number of values is the trailing rows' corrected by them.
 */
export async function trailingPage(
  db: Kysely<Database>,
  dialect: SqlDialect,
  where: { websiteId: number; name: string; plan: TrailingPlan },
  list: ListOptions,
): Promise<{ rows: StatRow[]; total: number }> {
  const { websiteId, name, plan } = where;
  const rows = () => db.selectFrom("rollups").where("website_id", "=", websiteId).where("name", "=", name);
  const trailingRows = () => rows().where(sql<boolean>`period = ${TRAILING}`);
  /** What the trailing rows' index orders by: their count. */
  const trailingCount = sql.ref<number>(dialect.trailingCount);
  const differing = [...plan.periods.slice(1), ...plan.subtract];
  const differingRows = () =>
    rows().where((eb) =>
      eb.or([
        ...(differing.length > 0 ? [eb("period", "in", differing)] : []),
        ...(plan.days
          ? [eb.and([eb("period", ">=", plan.days.from), eb("period", "<=", plan.days.to), eb(sql`length(period)`, "=", 10)])]
          : []),
      ]),
    );
  const anyDiffering = differing.length > 0 || plan.days !== null;
  const [changes, trailingOfChanged, [counted]] = await Promise.all([
    anyDiffering ? differingRows().select(["period", "value", "count"]).execute() : [],
    // By the primary key, one row per value counted in the differing periods.
    anyDiffering ? trailingRows().where("value", "in", differingRows().select("value")).select(["value", "count"]).execute() : [],
    trailingRows()
      .where(trailingCount, ">", 0)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .execute(),
  ]);
  /** value → its count over the range, for the values the differing periods count. */
  const changed = new Map<string, number>();
  const subtracted = new Set(plan.subtract);
  for (const row of changes)
    changed.set(row.value, (changed.get(row.value) ?? 0) + (subtracted.has(row.period) ? -1 : 1) * Number(row.count));
  let total = Number(counted?.n ?? 0);
  for (const row of trailingOfChanged) {
    if (Number(row.count) > 0) total--;
    changed.set(row.value, (changed.get(row.value) ?? 0) + Number(row.count));
  }
  const candidates: StatRow[] = [];
  for (const [value, count] of changed) {
    if (count <= 0) continue;
    total++;
    candidates.push({ value, count });
  }
  // Among the values not changed, the trailing rows' order is the page's: enough of its top rows to fill the page past every changed value.
  const top = await trailingRows()
    .where(trailingCount, ">", 0)
    .select(["value", "count"])
    .orderBy(trailingCount, list.sort)
    .orderBy(dialect.byCodePoint(sql.ref("value")), "asc")
    .limit(list.page * list.perPage + changed.size)
    .execute();
  for (const row of top) if (!changed.has(row.value)) candidates.push({ value: row.value, count: Number(row.count) });
  return { rows: pageRows(candidates, list).rows, total };
}
