import { addDays, dayNumber, dayText } from "../../shared/calendar.js";
import type { ClickhouseClient } from "./connect.js";
import { paramSettings } from "./query.js";
import {
  HITS_TABLE,
  quoted,
  valuesColumn,
  VISIT_DAYS_TABLE,
  VISIT_KINDS,
  VISIT_ROW_COLUMNS,
  VISIT_SHAPE,
  VISITOR_DAY_COLUMNS,
  VISITOR_DAYS_TABLE,
  VISITOR_KINDS,
  VISITOR_VALUE_KINDS,
  VISITS_TABLE,
} from "./schema.js";
import { ELEMENTS, KIND, VISIT_HITS, visitsOf } from "./visits.js";

/**
 * Stored visits (`tally_visits`) and visitor-days (`tally_visitor_days`): those of days that
 * can no longer change, formed from the hits as a read forms them (visits.ts), and kept, so
 * that reads over those days (statistics with and without filters, funnels, journeys) count
 * rows instead of forming them again. A day's visits depend on the hits of the day before
 * (a visit continued past midnight), the day and the day after; `tally_visit_days` records,
 * for each stored day, the version of its forming and how many hits those three days held.
 * A read takes a day's stored visits only while those counts are still the hits' (a hit
 * that arrives late, a copy, an import, retention: the day is formed again); the open days
 * (the last three by the UTC calendar, any time zone's today and yesterday among them) are
 * always formed when read. Two instances storing one day store the same visits; the
 * latest version is read.
 */

/** Days a day stays open after it: by then every time zone's day and the day after it (visits past midnight) have ended. */
const OPEN_DAYS = 3;
/**
 * The month of a day ("2025-06"): days are formed a month at most per statement (bounded
 * memory for a long range), and one month is one partition of the kept tables, so that a
 * month's forming writes one part of each instead of two (a part more is a part each read
 * opens, and two parts of very different sizes are seldom merged).
 */
const monthOf = (day: number) => dayText(day).slice(0, 7);

/** The last day whose visits are stored (`now`: milliseconds). */
export const lastClosedDay = (now: number): string => dayText(Math.floor(now / 86_400_000) - OPEN_DAYS);

/** The columns of a stored visit, as the forming statement selects them from visits.ts's visits. */
const FORMED_COLUMNS = VISIT_ROW_COLUMNS.map(([name]) => {
  if (name === "website_id") return "{website:UInt32}";
  if (name === "version") return "{version:UInt64}";
  if (name === "first_day_pageviews") return "arrayCount(d -> d = vday, pageview_days)";
  // Numbers telling the visitors of a day apart, as their hashes do.
  if (name === "visitor") return "toUInt32(dense_rank() OVER (PARTITION BY vday ORDER BY day_visitor))";
  return quoted(name);
});

/** Forms the visits started on `from`…`to` (query parameters) and stores them under `version`. */
const FORM = `INSERT INTO ${VISITS_TABLE} (${VISIT_ROW_COLUMNS.map(([name]) => quoted(name)).join(", ")})
  SELECT ${FORMED_COLUMNS.join(", ")}
  FROM (WITH elements AS (${ELEMENTS}) ${visitsOf(VISIT_KINDS, [`groupArrayIf(day, e.2 = ${KIND.pageview}) AS pageview_days`, `${VISIT_HITS} AS hits`])})
  WHERE vday BETWEEN {from:Date} AND {to:Date}`;

/** A visitor-day's figures over its hits (engagement signals aside): its first hit's hour and values, the values its hits had, its events' names. */
export const VISITOR_DAY_FIGURES: readonly (readonly [name: string, expression: string])[] = [
  ["hour", "argMin(toHour(local_time), (timestamp, kind))"],
  ...VISITOR_KINDS.map((kind) => [kind, `argMin(${quoted(kind)}, (timestamp, kind))`] as const),
  ...VISITOR_VALUE_KINDS.map((kind) => [valuesColumn(kind), `groupUniqArray(${quoted(kind)})`] as const),
  ["event_names", "groupUniqArrayIf(event, kind = 'event')"],
];

/** Forms the visitor-days of `from`…`to` (query parameters) and stores them under `version`. */
const FORM_VISITOR_DAYS = `INSERT INTO ${VISITOR_DAYS_TABLE} (${VISITOR_DAY_COLUMNS.map(([name]) => quoted(name)).join(", ")})
  SELECT {website:UInt32}, day, {version:UInt64}, ${VISITOR_DAY_FIGURES.map(([, expression]) => expression).join(", ")}
  FROM ${HITS_TABLE}
  WHERE website_id = {website:UInt32} AND day BETWEEN {from:Date} AND {to:Date} AND kind != 'engagement'
  GROUP BY day, visitor`;

/** The stored rows of a table (its day column `day`) of days `from` (an expression) … `{split:Date}` − 1, each day's latest version. */
const storedRows = (table: string, day: string, from: string) => `SELECT * FROM ${table}
  WHERE website_id = {website:UInt32} AND ${day} BETWEEN ${from} AND {split:Date} - 1
    AND (${day}, version) IN (SELECT day, max(version) FROM ${VISIT_DAYS_TABLE}
      WHERE website_id = {website:UInt32} AND day BETWEEN ${from} AND {split:Date} - 1 GROUP BY day)`;

/** The stored visits started on `from` (an expression) … `{split:Date}` − 1. */
export const storedVisits = (from: string) => storedRows(VISITS_TABLE, "vday", from);
/** The stored visitor-days of `{from:Date}` … `{split:Date}` − 1. */
export const STORED_VISITOR_DAYS = storedRows(VISITOR_DAYS_TABLE, "day", "{from:Date}");

/**
 * The hits per day of `{from:Date}` − 1 … `{to:Date}` + 1 and, for each kept day of
 * `{from:Date}` … `{to:Date}`, the hits its latest forming counted (the day before, the day, the
 * day after) and its shape: what tells a read which kept days are current, in one statement.
 */
const DAY_CHECK = `SELECT hit_days, hits, stored_days, counted FROM
  (SELECT groupArray(toString(day)) AS hit_days, groupArray(hits) AS hits FROM (
    SELECT day, count() AS hits FROM ${HITS_TABLE} WHERE website_id = {website:UInt32} AND day BETWEEN {from:Date} - 1 AND {to:Date} + 1 GROUP BY day)) AS h
  CROSS JOIN
  (SELECT groupArray(toString(day)) AS stored_days, groupArray(counted) AS counted FROM (
    SELECT day, argMax([toUInt64(hits_before), toUInt64(hits), toUInt64(hits_after), toUInt64(shape)], version) AS counted FROM ${VISIT_DAYS_TABLE}
    WHERE website_id = {website:UInt32} AND day BETWEEN {from:Date} AND {to:Date} GROUP BY day)) AS s`;

export interface VisitStore {
  /**
   * The first day of `from`…`to` whose visits a read forms: the days before it have stored
   * visits, current with their hits. Closed days of the range not stored yet (or whose hits
   * changed) are formed and stored first.
   */
  storedUntil(websiteId: number, from: string, to: string): Promise<string>;
  /** Forms and stores the closed days of `from`…`to` not stored yet (or whose hits changed), ahead of reads; answers how many. */
  keep(websiteId: number, from: string, to: string): Promise<number>;
}

/** The stored visits of one ClickHouse; `now` the clock (milliseconds). */
export function createVisitStore(client: ClickhouseClient, now: () => number = Date.now): VisitStore {
  /** One forming at a time per website in this process: statistics asked together wait for one. */
  const forming = new Map<number, Promise<unknown>>();
  let lastVersion = 0;

  async function rows<Row>(query: string, params: Record<string, unknown>): Promise<Row[]> {
    return (await client.query({ query, query_params: params, format: "JSONEachRow" })).json<Row>();
  }

  /** Hits per day of `from`…`to`. */
  async function hitCounts(website: number, from: string, to: string): Promise<Map<string, number>> {
    const counted = await rows<{ on: string; hits: string | number }>(
      `SELECT toString(day) AS on, count() AS hits FROM ${HITS_TABLE} WHERE website_id = {website:UInt32} AND day BETWEEN {from:Date} AND {to:Date} GROUP BY day`,
      { website, from, to },
    );
    return new Map(counted.map((row) => [row.on, Number(row.hits)]));
  }

  /** The days of `from`…`to` without stored visits current with their hits (one statement). */
  async function unstored(website: number, from: string, to: string): Promise<number[]> {
    const [row] = await rows<{ hit_days: string[]; hits: (string | number)[]; stored_days: string[]; counted: (string | number)[][] }>(
      DAY_CHECK,
      { website, from, to },
    );
    const hits = new Map(row?.hit_days.map((day, index) => [day, Number(row.hits[index])]));
    const counts = new Map(row?.stored_days.map((day, index) => [day, row.counted[index]!.map(Number)]));
    const hitsOn = (day: number) => hits.get(dayText(day)) ?? 0;
    const days: number[] = [];
    for (let day = dayNumber(from); day <= dayNumber(to); day++) {
      const counted = counts.get(dayText(day));
      const current = counted && counted[0] === hitsOn(day - 1) && counted[1] === hitsOn(day) && counted[2] === hitsOn(day + 1);
      if (!current || counted[3] !== VISIT_SHAPE) days.push(day);
    }
    return days;
  }

  /** The first day of `from`…`to` without stored visits current with its hits (the day after `to` when all have). */
  const firstUnstored = async (website: number, from: string, to: string) =>
    dayText((await unstored(website, from, to))[0] ?? dayNumber(to) + 1);

  /** Forms and stores the visits and visitor-days of some days, a run of days at a time: the hits counted first, so a hit written meanwhile makes its day formed again. */
  async function store(website: number, days: readonly number[]): Promise<void> {
    for (let at = 0; at < days.length;) {
      // A run of consecutive days of one month.
      let end = at + 1;
      while (end < days.length && days[end] === days[end - 1]! + 1 && monthOf(days[end]!) === monthOf(days[at]!)) end++;
      const [start, last] = [days[at]!, days[end - 1]!];
      at = end;
      const [first, final] = [dayText(start), dayText(last)];
      const hits = await hitCounts(website, dayText(start - 1), dayText(last + 1));
      const version = (lastVersion = Math.max(lastVersion + 1, now() * 1000));
      const params = { website, version, from: first, to: final, lo: dayText(start - 2), hi: dayText(last + 1) };
      for (const query of [FORM, FORM_VISITOR_DAYS]) await client.command({ query, clickhouse_settings: paramSettings(params) });
      const hitsOn = (day: number) => hits.get(dayText(day)) ?? 0;
      const stored = [];
      for (let day = start; day <= last; day++)
        stored.push({
          website_id: website,
          day: dayText(day),
          version,
          hits_before: hitsOn(day - 1),
          hits: hitsOn(day),
          hits_after: hitsOn(day + 1),
          shape: VISIT_SHAPE,
        });
      await client.insert({ table: VISIT_DAYS_TABLE, values: stored, format: "JSONEachRow" });
    }
  }

  /** The last closed day of `to`'s range. */
  const closedUntil = (to: string) => [to, lastClosedDay(now())].sort()[0]!;

  /** Stores the days of `from`…`last` (closed) not stored yet, after any forming of the website under way; how many. */
  function formMissing(website: number, from: string, last: string): Promise<number> {
    const formed = (forming.get(website) ?? Promise.resolve()).then(async () => {
      const days = await unstored(website, from, last);
      await store(website, days);
      return days.length;
    });
    forming.set(
      website,
      formed.catch(() => {}),
    );
    return formed;
  }

  return {
    async storedUntil(website, from, to) {
      const last = closedUntil(to);
      if (last < from) return from;
      const split = await firstUnstored(website, from, last);
      if (split > last) return split;
      await formMissing(website, from, last);
      return firstUnstored(website, from, last);
    },
    async keep(website, from, to) {
      const last = closedUntil(to);
      return last < from ? 0 : formMissing(website, from, last);
    },
  };
}

/** The first day of `from`…`to` whose visits a read forms (`VisitStore.storedUntil` for one website). */
export type StoredUntil = (from: string, to: string) => Promise<string>;

/**
 * The first day a read under filters, a funnel or a journey checks of a range: two days
 * before it, whichever part of those days it reads, so that the statistics of one range
 * share one check (`sharedSplits`).
 */
export const checkedFrom = (range: { from: string }): string => addDays(range.from, -2);

/** `stored`, asked once per range: the statistics of one reader share their ranges' answers. */
export function sharedSplits(stored: StoredUntil): StoredUntil {
  const splits = new Map<string, Promise<string>>();
  return (from, to) => {
    const key = `${from} ${to}`;
    if (!splits.has(key)) splits.set(key, stored(from, to));
    return splits.get(key)!;
  };
}
