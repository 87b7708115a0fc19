import type { Kysely } from "kysely";
import { HIT_DIMENSIONS, VISIT_COLUMNS, type HitDimension } from "../../model/dimensions.js";
import type { Database, VisitsTable } from "../../storage/schema.js";
import type { Selectable } from "kysely";
import { TallyError } from "../../shared/errors.js";
import type { ClickhouseClient } from "./connect.js";
import { HITS_TABLE } from "./schema.js";
import { VISIT_TIMEOUT_MS } from "../../ingest/visit-processor.js";
import { createLocalClock } from "../../model/local-time.js";

/** Visits per insert: their hits and engagement signals go to ClickHouse as one batch under one token. */
export const COPY_VISITS_PER_BATCH = 2000;

export interface HitsCopyOptions {
  /** Told after each batch of the rows written so far. */
  onProgress?: ((progress: HitsCopyProgress) => void) | undefined;
  /** @default COPY_VISITS_PER_BATCH */
  visitsPerBatch?: number | undefined;
}

export interface HitsCopyProgress {
  /** Hits and engagement signals written so far, and of every website. */
  rows: number;
  totalRows: number;
}

type Visit = Selectable<VisitsTable>;

const DAY_MS = 86_400_000;
const dayOf = (localSeconds: number) => new Date(localSeconds * 1000).toISOString().slice(0, 10);
const dayBefore = (day: string) => new Date(Date.parse(day) - DAY_MS).toISOString().slice(0, 10);

/** The visit column holding each hit dimension's value for a whole visit (the page and event are each hit's own). */
const VISIT_COLUMN_OF = new Map<HitDimension, keyof Visit>(
  VISIT_COLUMNS.filter(({ kind }) => kind !== "page" && kind !== "event").map(({ kind, column }) => [kind, column]),
);

/**
 * The rows of `tally_hits` a database's visits stand for. The database keeps no visitor
 * hash: a visitor-day is named by its first visit's id and the day, and a visit that runs
 * past midnight names yesterday's visitor-day on its hits after midnight (as the collector
 * does with the hash of the day before). Every hit of a visit carries the visit's values
 * (referrer, campaign, host…), so ClickHouse forms the same visits when it reads them.
 */
function rowsOfVisits(
  visits: readonly Visit[],
  hits: readonly { visit_id: number; time: number; page: number; event: number; seq: number }[],
  signals: readonly (Record<string, number | null> & { visit_id: number; time: number; page: number })[],
  props: ReadonlyMap<string, Record<string, string>>,
  revenues: ReadonlyMap<string, { amount: number; currency: string }>,
  value: (id: number) => string,
  epochMs: (localSeconds: number) => number,
): Record<string, unknown>[] {
  const byId = new Map(visits.map((visit) => [visit.id, visit]));
  /** Each visit's rows with their local second and their place among the rows of that second (hits by `seq`, then signals). */
  const ofVisit = new Map<number, { at: number; rank: number; row: Record<string, unknown> }[]>();
  function add(visitId: number, time: number, rank: number, kind: "pageview" | "event" | "engagement", page: number, event: number) {
    const visit = byId.get(visitId);
    if (!visit) return null;
    const person = visit.visitor === 0 ? visit.id : visit.visitor;
    const day = dayOf(time);
    const continued = day !== dayOf(visit.start);
    const row: Record<string, unknown> = {
      website_id: visit.website_id,
      day,
      visitor: `${person}:${day}`,
      local_time: time,
      kind,
      // The collector names yesterday's hash on every signal, and on hits of a visit begun yesterday.
      previous_visitor: continued || kind === "engagement" ? `${person}:${dayBefore(day)}` : "",
      next_visitor: "",
      engaged_ms: 0,
      scroll_depth: null,
      vitals: {},
      props: {},
    };
    for (const dimension of HIT_DIMENSIONS) {
      const column = VISIT_COLUMN_OF.get(dimension);
      row[dimension] =
        dimension === "page" ? value(page) : dimension === "event" ? value(event) : column ? value(visit[column] as number) : "";
    }
    const rows = ofVisit.get(visitId) ?? [];
    ofVisit.set(visitId, rows);
    rows.push({ at: epochMs(time), rank, row });
    return row;
  }
  for (const hit of hits) {
    const row = add(hit.visit_id, hit.time, hit.seq, hit.event === 0 ? "pageview" : "event", hit.page, hit.event);
    if (!row) continue;
    const key = `${hit.visit_id}:${hit.time}:${hit.seq}`;
    row.props = props.get(key) ?? {};
    row.revenue_amount = revenues.get(key)?.amount ?? 0;
    row.revenue_currency = revenues.get(key)?.currency ?? "";
  }
  for (const signal of signals) {
    const row = add(signal.visit_id, signal.time, Number.MAX_SAFE_INTEGER, "engagement", signal.page, 0);
    if (!row) continue;
    row.engaged_ms = signal.engaged_ms;
    row.scroll_depth = signal.scroll_depth;
    row.vitals = Object.fromEntries(
      (["lcp", "inp", "cls", "fcp", "ttfb"] as const).filter((name) => signal[name] !== null).map((name) => [name, signal[name]]),
    );
  }
  const rows: Record<string, unknown>[] = [];
  for (const [visitId, elements] of ofVisit) {
    // Hits in their order in the visit (`seq`: their local seconds may go back where a clock is
    // turned back), each signal before the first hit that comes after it.
    const hitsInOrder = elements.filter(({ row }) => row.kind !== "engagement").sort((a, b) => a.rank - b.rank);
    const signalsInOrder = elements.filter(({ row }) => row.kind === "engagement").sort((a, b) => a.at - b.at);
    elements.length = 0;
    while (hitsInOrder.length > 0 || signalsInOrder.length > 0) {
      const signalFirst = signalsInOrder.length > 0 && (hitsInOrder.length === 0 || signalsInOrder[0]!.at < hitsInOrder[0]!.at);
      elements.push((signalFirst ? signalsInOrder : hitsInOrder).shift()!);
    }
    const times: number[] = [];
    for (const { at, row } of elements) {
      // The database keeps local seconds: each row at the middle of its second (in UTC), one millisecond
      // after the row before it in the same second, and a hit less than a visit's timeout after
      // the row before it (seconds 30 minutes apart within a visit were less than that apart, or
      // the database would have started a new visit; a signal joins the visit whenever it comes):
      // ClickHouse forms the database's visits from them.
      const middle = at + 500;
      const previous = times.at(-1);
      const latest = row.kind === "engagement" ? Infinity : (previous ?? 0) + VISIT_TIMEOUT_MS - 1;
      times.push(previous === undefined ? middle : Math.min(Math.max(middle, previous + 1), latest));
    }
    // The visit's duration, measured by the database in milliseconds, says whether its last activity
    // came earlier in its second than its first hit did in its own.
    const first = elements.findIndex(({ row }) => row.kind !== "engagement");
    const last = times.length - 1;
    const latest = first < 0 ? null : times[first]! + byId.get(visitId)!.duration * 1000 + 999;
    if (latest !== null && times[last]! > latest && (last === 0 || latest > times[last - 1]!)) times[last] = latest;
    // Its arrival (microseconds, as the collector's) tells apart rows of one millisecond in two visits of a visitor-day.
    elements.forEach(({ row }, index) =>
      rows.push({ ...row, timestamp: times[index], arrival: times[index]! * 1000 + (rows.length % 1000) }),
    );
  }
  return rows;
}

/**
 * Every hit and engagement signal a database holds, of every website, into ClickHouse's
 * `tally_hits`: the history of an installation that starts keeping its hits in ClickHouse.
 * A batch of visits at a time, each insert under a token made of the database's id and its
 * visits: a copy run again after it stopped skips the batches ClickHouse already took, and
 * writes the rest. At the end, each website's rows in ClickHouse are counted against the database.
 */
export async function copyHitsToClickhouse(
  db: Kysely<Database>,
  client: ClickhouseClient,
  options: HitsCopyOptions = {},
): Promise<{ websites: number; rows: number }> {
  const { value: databaseId } = await db
    .selectFrom("tally_meta")
    .select("value")
    .where("key", "=", "database_id")
    .executeTakeFirstOrThrow();
  const websites = await db.selectFrom("websites").select(["id", "timezone"]).orderBy("id").execute();
  const clock = createLocalClock();
  const count = async (table: "hits" | "page_engagement") =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const totalRows = (await count("hits")) + (await count("page_engagement"));
  let done = 0;
  for (const { id: websiteId, timezone } of websites) {
    // Local seconds to the moment: the zone's offset there (a second look across a change of offset).
    const offsetAt = (ms: number) => clock(timezone, ms).seconds * 1000 - Math.floor(ms / 1000) * 1000;
    const epochMs = (localSeconds: number) => {
      const guess = localSeconds * 1000 - offsetAt(localSeconds * 1000);
      return localSeconds * 1000 - offsetAt(guess);
    };
    const dictionary = new Map<number, string>([[0, ""]]);
    for (const row of await db.selectFrom("dimensions").select(["id", "value"]).where("website_id", "=", websiteId).execute())
      dictionary.set(row.id, row.value);
    const value = (id: number) => dictionary.get(id) ?? "";
    let written = 0;
    for (let after = 0; ;) {
      const visits = await db
        .selectFrom("visits")
        .selectAll()
        .where("website_id", "=", websiteId)
        .where("id", ">", after)
        .orderBy("id")
        .limit(options.visitsPerBatch ?? COPY_VISITS_PER_BATCH)
        .execute();
      if (visits.length === 0) break;
      const [lo, hi] = [visits[0]!.id, visits.at(-1)!.id];
      after = hi;
      const inBatch = <T extends "hits" | "page_engagement" | "event_props">(table: T) =>
        db
          .selectFrom(table as "hits")
          .where("website_id", "=", websiteId)
          .where("visit_id", ">=", lo)
          .where("visit_id", "<=", hi);
      const hits = await inBatch("hits").selectAll().execute();
      const signals = (await inBatch("page_engagement" as "hits")
        .selectAll()
        .execute()) as unknown as Parameters<typeof rowsOfVisits>[2];
      const props = new Map<string, Record<string, string>>();
      for (const prop of (await inBatch("event_props" as "hits")
        .selectAll()
        .execute()) as unknown as {
        visit_id: number;
        time: number;
        seq: number;
        name: number;
        value: number;
      }[]) {
        const key = `${prop.visit_id}:${prop.time}:${prop.seq}`;
        props.set(key, { ...props.get(key), [value(prop.name)]: value(prop.value) });
      }
      const revenues = new Map<string, { amount: number; currency: string }>();
      for (const revenue of await db
        .selectFrom("event_revenue")
        .select(["visit_id", "time", "seq", "amount", "currency"])
        .where("website_id", "=", websiteId)
        .where("visit_id", ">=", lo)
        .where("visit_id", "<=", hi)
        .execute())
        revenues.set(`${revenue.visit_id}:${revenue.time}:${revenue.seq}`, { amount: Number(revenue.amount), currency: revenue.currency });
      const rows = rowsOfVisits(visits, hits, signals, props, revenues, value, epochMs);
      if (rows.length > 0)
        await client.insert({
          table: HITS_TABLE,
          values: rows,
          format: "JSONEachRow",
          clickhouse_settings: {
            insert_deduplicate: 1,
            insert_deduplication_token: `copy:${databaseId}:${websiteId}:${lo}-${hi}`,
            date_time_input_format: "best_effort",
          },
        });
      written += rows.length;
      done += rows.length;
      options.onProgress?.({ rows: done, totalRows });
    }
    const [held] = await (
      await client.query({
        query: `SELECT count() AS n FROM ${HITS_TABLE} WHERE website_id = {website:UInt32}`,
        query_params: { website: websiteId },
        format: "JSONEachRow",
      })
    ).json<{ n: string }>();
    if (Number(held?.n ?? 0) !== written)
      throw new TallyError(
        `website ${websiteId}: ${written} hits and signals in the database, ${held?.n ?? 0} in ClickHouse ` +
          "(ClickHouse already held hits of it: copy before the app writes to ClickHouse, into an empty table)",
      );
  }
  return { websites: websites.length, rows: done };
}
