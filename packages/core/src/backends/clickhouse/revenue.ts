import type { Condition } from "../../model/filters.js";
import type { RevenueSum } from "../../model/revenue.js";
import type { CountRange } from "../../stats/count-reader.js";
import { clickhouseConditions } from "./conditions.js";
import { queryParams, type RunQuery } from "./query.js";
import { HITS_TABLE } from "./schema.js";
import { formedVisitsWith } from "./visit-source.js";
import { ARRIVAL_AT, HIT, KIND, VISIT_HIT } from "./visits.js";

/** Where a statement reads the range's visits with their events. */
const VISITS = "\u0000visits\u0000";

/** The events of the range that carried revenue: on its days, within its local seconds. */
const REVENUE_EVENTS = `website_id = {website:UInt32} AND day BETWEEN {from:Date} AND {to:Date}
  AND toUnixTimestamp(local_time) >= {start:Int64} AND toUnixTimestamp(local_time) < {end:Int64}
  AND kind = 'event' AND revenue_currency != ''`;

/**
 * Revenue per event name and currency over a range (docs/revenue.md), from the events of
 * `tally_hits` that carried it. Under filters, the events of the range in the visits formed
 * at read time (visits.ts) that match the filters, each matching the hit conditions itself,
 * as the database's path reader counts its revenue rows: the events are found by their
 * visitor-day, time and arrival among the matching visits' events.
 */
export async function clickhouseRevenue(run: RunQuery, conditions: readonly Condition[], range: CountRange): Promise<RevenueSum[]> {
  const params = queryParams();
  let matching = "";
  if (conditions.length > 0) {
    const where = clickhouseConditions(conditions, params);
    // Each event's key (visitor-day, time, arrival) and the event as the conditions read it (`HIT`).
    const events = [
      `groupArrayIf((visitor, e.1, e.${ARRIVAL_AT}), e.2 = ${KIND.event}) AS event_keys`,
      `groupArrayIf(${VISIT_HIT}, e.2 = ${KIND.event}) AS event_hits`,
    ];
    const local = `h.${HIT.local}`;
    const keys =
      `SELECT k.1, h.${HIT.day}, k.2, k.3 FROM ${VISITS} ARRAY JOIN event_keys AS k, event_hits AS h ` +
      `WHERE h.${HIT.day} BETWEEN {from:Date} AND {to:Date} AND ${local} >= {start:Int64} AND ${local} < {end:Int64} ` +
      `AND ${where.visit()} AND ${where.hit(true, "h")}`;
    matching = ` AND (visitor, day, toUnixTimestamp64Milli(timestamp), arrival) IN (${keys.replace(VISITS, () => formedVisitsWith(where, events, keys))})`;
  }
  const rows = await run<{ event: string; currency: string; amount: string | number; n: string | number }>(
    `SELECT event, revenue_currency AS currency, sum(revenue_amount) AS amount, count() AS n
     FROM ${HITS_TABLE} WHERE ${REVENUE_EVENTS}${matching} GROUP BY event, currency`,
    range,
    { params },
  );
  return rows.map((row) => ({ event: row.event, currency: row.currency, amount: Number(row.amount), events: Number(row.n) }));
}
