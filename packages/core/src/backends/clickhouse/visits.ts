import { HIT_DIMENSIONS, type HitDimension } from "../../model/dimensions.js";
import { VISIT_TIMEOUT_MS } from "../../ingest/visit-processor.js";
import { HITS_TABLE, quoted } from "./schema.js";

/**
 * Visits formed at read time from `tally_hits`, as the visit processor forms them when it
 * writes (docs/statistics.md, "Visits"): each visitor-day's hits and engagement signals in
 * time order are folded (`arrayFold`) into visit starts: a first hit, 30 minutes without
 * activity, a new external referrer, campaign or host. A visitor-day whose first hit comes
 * within 30 minutes of midnight continues yesterday's visit (the hit's `previous_visitor`)
 * when yesterday's last activity, the engagement signals sent since midnight included, is
 * less than 30 minutes before it; signals before a day's first hit belong to yesterday's visit.
 * Hits are taken in time order, not in the order they arrived: two processes writing one
 * visitor's hits give the same visits.
 */

/** The element of a hit `h`: time, kind, yesterday's hash, local hour, properties, every dimension, arrival and local time, then a signal's figures. */
const elementOf = (h: string) =>
  `tuple(${[
    `toUnixTimestamp64Milli(${h}.timestamp)`,
    `toUInt8(${h}.kind)`,
    `${h}.previous_visitor`,
    `toHour(${h}.local_time)`,
    `${h}.props`,
    ...HIT_DIMENSIONS.map((kind) => `${h}.${quoted(kind)}`),
    `${h}.arrival`,
    `toUnixTimestamp(${h}.local_time)`,
    `${h}.engaged_ms`,
    `${h}.scroll_depth`,
    `${h}.vitals`,
  ].join(", ")})`;
/** Where a dimension is in the element (1-based, as ClickHouse numbers tuple members). */
export const at = (kind: HitDimension): number => 6 + HIT_DIMENSIONS.indexOf(kind);
/** Where the arrival and the local time (seconds) are in the element. */
export const ARRIVAL_AT = 6 + HIT_DIMENSIONS.length;
export const LOCAL_TIME_AT = 7 + HIT_DIMENSIONS.length;
/** Where an engagement signal's engaged milliseconds, scroll depth and web vitals are in the element. */
export const SIGNAL = {
  engagedMs: 8 + HIT_DIMENSIONS.length,
  scrollDepth: 9 + HIT_DIMENSIONS.length,
  vitals: 10 + HIT_DIMENSIONS.length,
} as const;
/** Visits (of `visitsOf`) started in the range: on its days, within its local seconds (a part of them, or all). */
export const STARTED = "vday BETWEEN {from:Date} AND {to:Date} AND start_local >= {start:Int64} AND start_local < {end:Int64}";
export const KIND = { pageview: 1, event: 2, engagement: 3 } as const;

/** One step of the fold: state (started, last activity, the visit's referrer, campaign and host, starts so far). */
function step(): string {
  const [ref, camp, host] = ["x.3", "x.4", "x.5"];
  const starts =
    `s.1 = 0 OR x.1 - s.2 >= ${VISIT_TIMEOUT_MS} OR (${ref} != '' AND ${ref} != s.3) ` +
    `OR (${host} != '' AND s.5 != '' AND ${host} != s.5) OR (${camp} != '' AND ${camp} != s.4)`;
  return (
    `(s, x) -> if(x.2 = ${KIND.engagement}, ` +
    `(s.1, if(s.1 = 1, greatest(s.2, x.1), s.2), s.3, s.4, s.5, arrayPushBack(s.6, toUInt8(0))), ` +
    `if(${starts}, (toUInt8(1), greatest(s.2, x.1), ${ref}, ${camp}, ${host}, arrayPushBack(s.6, toUInt8(1))), ` +
    `(toUInt8(1), greatest(s.2, x.1), s.3, s.4, s.5, arrayPushBack(s.6, toUInt8(0)))))`
  );
}
const FRESH = "(toUInt8(0), toInt64(0), '', '', '', CAST([], 'Array(UInt8)'))";

/**
 * The little of a hit the fold reads, in a visitor-day's time order: time, kind, yesterday's
 * hash, referrer, campaign, host, then its arrival, which orders hits of one millisecond as
 * they were written and tells them apart. Only these columns are sorted and folded; the rest
 * of each hit is read once, beside its visit (`ELEMENTS`).
 */
const STEP_ELEMENT = [
  "toUnixTimestamp64Milli(timestamp)",
  "toUInt8(kind)",
  "previous_visitor",
  quoted("referrer"),
  quoted("utm_campaign"),
  quoted("hostname"),
  "arrival",
];
const folded = (elements: string) => `arrayMap(x -> (x.1, x.2, x.4, x.5, x.6), ${elements})`;

/** The visitor-days of a website's days `lo`…`hi` (query parameters `website`, `lo`, `hi`): `el` their step elements in time order, `f` the fold without yesterday. */
const days = (where = "") => `
  SELECT visitor, day, el, arrayFold(${step()}, ${folded("el")}, ${FRESH}) AS f
  FROM (
    SELECT visitor, day, arraySort(x -> (x.1, x.2, x.7), groupArray(tuple(${STEP_ELEMENT.join(", ")}))) AS el
    FROM ${HITS_TABLE}
    WHERE website_id = {website:UInt32} AND day BETWEEN {lo:Date} AND {hi:Date}${where}
    GROUP BY visitor, day
  )`;

/**
 * Each visitor-day's visits: `keys` its elements' (time, kind, arrival) in order, `visits` each
 * element's visit (the visitor-day and index of the hit that started it; "" for a signal
 * without a visit). Yesterday's visit is the one its own visitor-day started last; only the
 * visitor-days some hit names as yesterday are read for it.
 */
const VISITOR_DAYS = `
  SELECT visitor, day, arrayMap(x -> (x.1, x.2, x.7), el) AS keys,
    arrayMap(start -> if(start > 0, concat(visitor, ':', toString(start)), if(y_started = 1, concat(y_visitor, ':', toString(y_last)), '')), starts) AS visits
  FROM (
    SELECT d.visitor AS visitor, d.day AS day, d.el AS el, y.visitor AS y_visitor, y.started AS y_started, y.last AS y_last,
      d.first_prev != '' AND y.started = 1 AND d.first_ts - greatest(y.seen, d.signals_before) < ${VISIT_TIMEOUT_MS} AS continues,
      -- Only a day that continues yesterday's visit is folded again, from yesterday's end.
      if(continues, arrayFold(${step()}, ${folded("d.el")},
          (toUInt8(1), greatest(y.seen, d.signals_before), y.referrer, y.campaign, y.host, CAST([], 'Array(UInt8)'))), d.f) AS f2,
      -- Each element's visit: the index of the hit that started it (0: yesterday's).
      arrayFill(x -> x != 0, arrayMap((started, index) -> if(started = 1, index, 0), f2.6, arrayEnumerate(d.el))) AS starts
    FROM (
      SELECT *,
        arrayFirst(x -> x.2 != ${KIND.engagement}, el) AS first_hit,
        first_hit.1 AS first_ts,
        if(first_hit.2 = 0, '', first_hit.3) AS first_prev,
        if(first_prev != '', first_prev, arrayFirst(x -> x.2 = ${KIND.engagement}, el).3) AS yesterday,
        arrayMax(arrayConcat([toInt64(0)], arrayMap(x -> x.1, arrayFilter(x -> x.2 = ${KIND.engagement} AND (first_hit.2 = 0 OR x.1 < first_hit.1), el)))) AS signals_before
      FROM (${days()})
    ) AS d
    LEFT JOIN (
      SELECT visitor, f.1 AS started, f.2 AS seen, f.3 AS referrer, f.4 AS campaign, f.5 AS host, arrayLastIndex(x -> x = 1, f.6) AS last
      FROM (${days(
        ` AND visitor IN (SELECT previous_visitor FROM ${HITS_TABLE} WHERE website_id = {website:UInt32} AND day BETWEEN {lo:Date} AND {hi:Date} AND previous_visitor != '')`,
      )})
    ) AS y ON y.visitor = d.yesterday
  )`;

/**
 * Every element (hit or signal) of the days read, with its visit (`visit`: the visitor-day
 * and index of the hit that started it; "" for a signal without a visit), its index in its
 * visitor-day's time order (`i`), and `e`, the element. Each hit is read from the table
 * beside its visitor-day's visits: ClickHouse reads only the columns a statement uses.
 */
export const ELEMENTS = `
  SELECT h.visitor AS visitor, h.day AS day, ${elementOf("h")} AS e,
    indexOf(v.keys, (e.1, e.2, e.${ARRIVAL_AT})) AS i, v.visits[i] AS visit
  FROM ${HITS_TABLE} AS h
  INNER JOIN (${VISITOR_DAYS}) AS v ON v.visitor = h.visitor AND v.day = h.day
  WHERE h.website_id = {website:UInt32} AND h.day BETWEEN {lo:Date} AND {hi:Date}`;

/**
 * Where a member of a visit's hit is (`VISIT_HIT`, 1-based): its kind, day, local hour,
 * local time (seconds), page, event name and properties.
 */
export const HIT = { kind: 1, day: 2, hour: 3, local: 4, page: 5, event: 6, props: 7 } as const;

/**
 * A visit's hit (`HIT`) of its element `e`, and its hits (pageviews and events) in its order, as an aggregate over its elements `e`:
 * what filters on hits, funnels and journeys read of them (`HIT`), stored visits keeping the same.
 */
export const VISIT_HIT = `tuple(toUInt8(e.2), day, e.4, e.${LOCAL_TIME_AT}, e.${at("page")}, e.${at("event")}, e.5)`;
export const VISIT_HITS = `arrayMap(x -> x.2, arraySort(x -> x.1, groupArrayIf(((e.1, day, i), ${VISIT_HIT}), e.2 != ${KIND.engagement})))`;

/**
 * The visits of the elements (`ELEMENTS` as `elements`): their day, visitor-day (`visitor`),
 * start (time, local hour and local seconds), figures and first hit's values, and `extra` aggregates over
 * their elements `e`.
 */
export function visitsOf(kinds: readonly HitDimension[], extra: readonly string[] = []): string {
  const first = (expression: string) => `argMinIf(${expression}, (e.1, day, i), e.2 != ${KIND.engagement})`;
  return `
  SELECT visit,
    ${first("day")} AS vday,
    ${first("visitor")} AS day_visitor,
    minIf(e.1, e.2 != ${KIND.engagement}) AS start,
    ${first("e.4")} AS start_hour,
    ${first(`e.${LOCAL_TIME_AT}`)} AS start_local,
    countIf(e.2 = ${KIND.pageview}) AS pageviews,
    countIf(e.2 = ${KIND.event}) AS events,
    intDiv(max(e.1) - minIf(e.1, e.2 != ${KIND.engagement}), 1000) AS duration,
    argMaxIf(e.${at("page")}, (e.1, day, i), e.2 = ${KIND.pageview}) AS exit_page
    ${kinds.map((kind) => `, ${first(`e.${at(kind)}`)} AS ${quoted(kind)}`).join("")}
    ${extra.map((column) => `, ${column}`).join("")}
  FROM elements
  WHERE visit != ''
  GROUP BY visit
  HAVING countIf(e.2 != ${KIND.engagement}) > 0`;
}
