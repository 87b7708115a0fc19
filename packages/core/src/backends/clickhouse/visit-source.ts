import { VISIT_COLUMNS, type HitDimension } from "../../model/dimensions.js";
import { addDays } from "../../shared/calendar.js";
import type { CountRange } from "../../stats/count-reader.js";
import type { ClickhouseConditions } from "./conditions.js";
import { quoted } from "./schema.js";
import { checkedFrom, storedVisits, type StoredUntil } from "./stored-visits.js";
import { ELEMENTS, KIND, VISIT_HITS, visitsOf } from "./visits.js";

/**
 * The visits statements under filters, funnels and journeys read: those of closed days kept
 * (stored-visits.ts), the rest formed from the hits when read (visits.ts), one rows' shape
 * for both: start day, visitor-day (`day_visitor`), start, figures, exit page, the first
 * hit's values a statement names, and (`hits`) the visit's hits in order.
 */

/** Every dimension a visit keeps its first hit's value of. */
const KINDS = [...new Set(VISIT_COLUMNS.map((column) => column.kind))];

/** What every visit row holds. */
const FIGURES = ["vday", "day_visitor", "start", "start_hour", "start_local", "pageviews", "events", "duration", "exit_page"];

/** Which visits a statement reads: where they come from, and what it reads of them. */
export interface VisitParts {
  /** The first day read, as an expression: `{from:Date}`, or days before it for the range's hits of visits started before. */
  first: string;
  /** Kept visits, of the days from the first to `{split:Date}` − 1. */
  stored: boolean;
  /** Visits formed from the hits, started on `{split:Date}` or later (all of them, without kept ones). */
  formed: boolean;
  /** Whether the statement reads the visits' hits (`hits`; filters on hits read them anyway). */
  hits: boolean;
  /** Whether the statement reads each visit's pageviews on the range's days (`views`), counted beside a kept visit or over a formed one's elements. */
  views?: boolean;
}

/**
 * The visits as a subquery: the flags of `where` over their hits, the first hit's values of
 * the dimensions `statement` names, their hits when wanted.
 */
export function visitsWith(where: ClickhouseConditions, statement: string, parts: VisitParts): string {
  const hits = parts.hits || where.flags.length > 0;
  const kinds = kindsIn(statement);
  const columns = [...FIGURES, ...kinds.map(quoted), ...(hits ? ["hits"] : []), ...(parts.views ? ["views"] : [])];
  const storedColumn = (column: string) =>
    column === "day_visitor" ? "toString(visitor) AS day_visitor" : column === "views" ? `${STORED_VIEWS} AS views` : column;
  const stored = `SELECT ${columns.map(storedColumn).join(", ")} FROM (${storedVisits(parts.first)})`;
  const formed = `SELECT ${columns.join(", ")} FROM ${formedVisits(kinds, hits, parts.views ? [`${FORMED_VIEWS} AS views`] : [])}${parts.stored ? " WHERE vday >= {split:Date}" : ""}`;
  const union = [...(parts.stored ? [stored] : []), ...(parts.formed || !parts.stored ? [formed] : [])].join(" UNION ALL ");
  return withFlags(where, union);
}

/** A kept visit's pageviews on the range's days: those of its start day, and the rest on the day after (a visit past midnight). */
const STORED_VIEWS =
  "toUInt64(if(vday BETWEEN {from:Date} AND {to:Date}, first_day_pageviews, 0) + if(vday + 1 BETWEEN {from:Date} AND {to:Date}, pageviews - first_day_pageviews, 0))";
/** A formed visit's pageviews on the range's days, over its elements `e`. */
const FORMED_VIEWS = `toUInt64(countIf(e.2 = ${KIND.pageview} AND day BETWEEN {from:Date} AND {to:Date}))`;

/** The dimensions a statement names. */
const kindsIn = (statement: string) => KINDS.filter((kind) => statement.includes(quoted(kind)));

/** The visits formed from the hits of `{lo:Date}`…`{hi:Date}` (visits.ts) with the first hit's values of `kinds`, their hits if wanted and `extra` aggregates over their elements `e`. */
const formedVisits = (kinds: readonly HitDimension[], hits: boolean, extra: readonly string[]) =>
  `(WITH elements AS (${ELEMENTS}) ${visitsOf(kinds, [...(hits ? [`${VISIT_HITS} AS hits`] : []), ...extra])})`;

/** Visits with the flags of `where` over their hits. */
const withFlags = (where: ClickhouseConditions, visits: string) =>
  `(SELECT *${where.flags.map((flag) => `, ${flag}`).join("")} FROM (${visits}))`;

/**
 * The visits formed from the hits when read, of closed days too (visits.ts), as a subquery:
 * with `extra` aggregates over their elements `e` (what only the hits hold: signals, arrivals),
 * the flags of `where`, the first hit's values of the dimensions `statement` names.
 */
export const formedVisitsWith = (where: ClickhouseConditions, extra: readonly string[], statement: string): string =>
  withFlags(where, `SELECT * FROM ${formedVisits(kindsIn(statement), where.flags.length > 0, extra)}`);

/**
 * The parts of a range's visits a statement reads (`before`: days before the range whose
 * visits' hits it reads too) and the options that run it: kept visits up to the first day
 * `stored` forms, formed ones from it on.
 */
export async function visitPartsOf(
  range: CountRange,
  read: Pick<VisitParts, "hits" | "views">,
  before: 0 | 2,
  stored?: StoredUntil,
): Promise<{ parts: VisitParts; split?: string }> {
  const firstDay = addDays(range.from, -before);
  const first = before === 0 ? "{from:Date}" : `{from:Date} - ${before}`;
  const split = stored === undefined ? firstDay : await stored(checkedFrom(range), range.to);
  if (split <= firstDay) return { parts: { first, stored: false, formed: true, ...read } };
  return { parts: { first, stored: true, formed: split <= range.to, ...read }, split };
}
