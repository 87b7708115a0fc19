// Funnels and journeys over the raw-events baseline (raw-events.mjs): the same questions
// asked of one row per hit with window functions and self-joins, as a tool without
// per-visit storage would. Parameters: website id, range start, range end (epoch ms), twice.
import { PLACEHOLDERS, quote } from "./raw-events.mjs";

/** `$1`…`$6` on PostgreSQL, `?` on SQLite (the three range parameters, passed twice), ClickHouse's named ones twice. */
const placeholders = (dialect) =>
  dialect === "postgres" ? ["$1", "$2", "$3", "$4", "$5", "$6"] : [...PLACEHOLDERS[dialect], ...PLACEHOLDERS[dialect]];

/** A step (`page:/blog/*`, `event:Signup`) as a condition on a raw row. */
function stepCondition(step) {
  const value = step.slice(step.indexOf(":") + 1);
  if (step.startsWith("event:")) return `event = ${quote(value)}`;
  return value.includes("*")
    ? `event is null and page like ${quote(value.replace(/\*/g, "%"))}`
    : `event is null and page = ${quote(value)}`;
}

/**
 * Visitors per funnel step: each step's earliest hit after the previous step's, per visit
 * (a self-join per step over the range's matching rows), counted by visitor-day.
 */
export function funnelBaselineSql(steps, dialect) {
  const [w, start, end] = placeholders(dialect);
  const conditions = steps.map(stepCondition);
  const parts = [
    `m as (select visit, visitor, ts, page, event from raw_events where website_id = ${w} and ts >= ${start} and ts < ${end}
      and (${conditions.map((c) => `(${c})`).join(" or ")}))`,
    `s1 as (select visit, visitor, min(ts) as t from m where ${conditions[0]} group by visit, visitor)`,
    ...conditions.slice(1).map(
      (condition, index) =>
        `s${index + 2} as (select m.visit as visit, m.visitor as visitor, min(m.ts) as t from s${index + 1} p join m on m.visit = p.visit and m.ts > p.t
          where ${condition} group by m.visit, m.visitor)`,
    ),
  ];
  const counts = steps.map((_, index) => `select ${index + 1} as step, count(distinct visitor) as visitors from s${index + 1}`);
  return `with ${parts.join(",\n")} ${counts.join(" union all ")} order by step`;
}

/**
 * The values `depth` steps after each visit's first hit of `start`, top 10 per step by
 * visitor-days: row numbers per visit over the range's visits that have the start.
 */
export function journeyBaselineSql(start, depth, dialect) {
  const [w, s, e, w2, s2, e2] = placeholders(dialect);
  const value = `case when event is null then 'page:' || page else 'event:' || event end`;
  return `with h as (
      select visit, visitor, ${value} as value, row_number() over (partition by visit order by ts) as n from raw_events
      where website_id = ${w} and ts >= ${s} and ts < ${e}
        and visit in (select visit from raw_events where website_id = ${w2} and ts >= ${s2} and ts < ${e2} and ${stepCondition(start)})),
    first_start as (select visit, min(n) as n from h where value = ${quote(start)} group by visit),
    steps as (select h.n - f.n as step, h.value as value, h.visitor as visitor from h join first_start f on f.visit = h.visit where h.n > f.n and h.n <= f.n + ${Number(depth)}),
    counted as (select step, value, count(distinct visitor) as visitors from steps group by step, value),
    ranked as (select step, value, visitors, row_number() over (partition by step order by visitors desc, value) as r from counted)
    select step, value, visitors from ranked where r <= 10 order by step, visitors desc, value`;
}
