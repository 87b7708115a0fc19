// The live view (docs/statistics.md, "Live"): the last 30 minutes of a website minute by
// minute, and its pages, sources and countries over them, from the hits and their visits;
// the visitors right now (the last five minutes, as `realtime`); the last hit; the hits its
// rules dropped lately. Thirty minutes of hits are few: read on the host's connection.
import { sql, type Kysely } from "kysely";
import * as z from "zod";
import type { Database } from "../storage/schema.js";
import type { DroppedHit } from "../ingest/drop-log.js";
import { dictionaryValues } from "./dictionary-values.js";

/** Minutes the live view covers. */
export const LIVE_MINUTES = 30;
/** Rows listed per breakdown (countries: all, for the map). */
const TOP = 10;
/** Hits read at most: a website busier than this shows its latest ones. */
export const MAX_HITS = 100_000;

const valueRow = z.object({ value: z.string(), visitors: z.int().nonnegative() });

export const liveSchema = z
  .object({
    visitors: z.int().nonnegative().meta({ description: "Visitors with a hit in the last five minutes (as `GET /api/v1/realtime/{id}`)." }),
    minutes: z
      .array(z.object({ minute: z.string().meta({ example: "14:05" }), visitors: z.int().nonnegative(), pageviews: z.int().nonnegative() }))
      .meta({ description: `The last ${LIVE_MINUTES} minutes, oldest first, in the website's time zone; the last is the current minute.` }),
    pages: z.array(valueRow).meta({ description: "The pages viewed in those minutes, by visitors." }),
    sources: z.array(valueRow).meta({ description: "Where those visits came from (`source`; empty: direct), by visitors." }),
    countries: z.array(valueRow).meta({ description: "Their countries (`US:United States`), by visitors." }),
    last_hit: z
      .object({ at: z.string().meta({ example: "14:05:32" }), page: z.string() })
      .nullable()
      .meta({ description: "The latest pageview or event, its local time and page." }),
    dropped: z
      .array(
        z.object({
          at: z.string().meta({ format: "date-time" }),
          reason: z.enum(["bot", "referrer-spam", "excluded-ip", "counted", "unknown-website"]),
          host: z.string().meta({ description: "The page's host (and port), as the hit named it.", example: "localhost:3000" }),
          page: z.string(),
        }),
      )
      .meta({
        description:
          "Hits dropped lately (kept in this process's memory), newest first: those the website's rules dropped, and `unknown-website` hits of hosts no website has that are its domain, a subdomain or parent of it, or a developer's machine (localhost, 127.0.0.1).",
      }),
  })
  .meta({ id: "Live" });
export type Live = z.infer<typeof liveSchema>;

/** A hit of the live view: its local time, page, event (0: a pageview), visit and visitor (0: the visit's own), and its visit's source and country. */
export interface HitRow {
  time: number;
  page: number;
  event: number;
  visit: number;
  visitor: number;
  source: number;
  country: number;
}

/** Distinct visitors per key, as rows, most first (ties by value). */
function ranked(byKey: Map<number, Set<number>>, values: Map<number, string>, top = Infinity): { value: string; visitors: number }[] {
  return [...byKey]
    .map(([key, visitors]) => ({ value: values.get(key) ?? "", visitors: visitors.size }))
    .sort((a, b) => b.visitors - a.visitors || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, top);
}

function countInto(map: Map<number, Set<number>>, key: number, visitor: number): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(visitor);
}

const clock = (seconds: number, length: 5 | 8) => new Date(seconds * 1000).toISOString().slice(11, 11 + length);

/** The window a live view covers, local wall-clock seconds: from the first minute shown to the end of the current one. */
export function liveWindow(now: number): { since: number; until: number } {
  const currentMinute = Math.floor(now / 60) * 60;
  return { since: currentMinute - (LIVE_MINUTES - 1) * 60, until: currentMinute + 60 };
}

/** Reads a website's live view; `now` is local wall-clock seconds in its time zone. */
export async function readLive(db: Kysely<Database>, websiteId: number, now: number): Promise<Omit<Live, "visitors" | "dropped">> {
  const { since, until } = liveWindow(now);
  const { rows } = await sql<HitRow>`select h.time, h.page, h.event, v.id as visit, v.visitor, v.source, v.country
    from hits h cross join visits v
    where h.website_id = ${websiteId} and h.time >= ${since} and h.time < ${until} and v.id = h.visit_id
    order by h.time desc limit ${MAX_HITS}`.execute(db);
  return liveOfHits(rows, since, (ids) => dictionaryValues(db, ids));
}

/**
 * The live view of the window's hits, newest first (at most MAX_HITS), their values as ids
 * that `valuesOf` names (a country of 0 is none).
 */
export async function liveOfHits(
  rows: readonly HitRow[],
  since: number,
  valuesOf: (ids: readonly number[]) => Promise<Map<number, string>>,
): Promise<Omit<Live, "visitors" | "dropped">> {
  const minutes = Array.from({ length: LIVE_MINUTES }, () => ({ visitors: new Set<number>(), pageviews: 0 }));
  const pages = new Map<number, Set<number>>();
  const sources = new Map<number, Set<number>>();
  const countries = new Map<number, Set<number>>();
  for (const row of rows) {
    const visitor = Number(row.visitor) || Number(row.visit);
    const minute = minutes[Math.floor((Number(row.time) - since) / 60)];
    if (!minute) continue;
    minute.visitors.add(visitor);
    if (Number(row.event) === 0) {
      minute.pageviews++;
      countInto(pages, Number(row.page), visitor);
    }
    countInto(sources, Number(row.source), visitor);
    if (Number(row.country) !== 0) countInto(countries, Number(row.country), visitor);
  }
  const latest = rows[0];
  const values = await valuesOf([...new Set([...pages.keys(), ...sources.keys(), ...countries.keys(), Number(latest?.page ?? 0)])]);
  return {
    minutes: minutes.map((minute, index) => ({
      minute: clock(since + index * 60, 5),
      visitors: minute.visitors.size,
      pageviews: minute.pageviews,
    })),
    pages: ranked(pages, values, TOP),
    sources: ranked(sources, values, TOP),
    countries: ranked(countries, values),
    last_hit: latest ? { at: clock(Number(latest.time), 8), page: values.get(Number(latest.page)) ?? "" } : null,
  };
}

export type { DroppedHit };
