import { sql, type Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import { createLocalClock } from "../model/local-time.js";
import type { PathStep } from "../model/path-steps.js";
import { segmentConditions } from "../stats/segment-conditions.js";
import { VISITOR } from "../stats/segment-reader.js";

/** The website a rule watches, as its counts need it. */
export interface WatchedWebsite {
  id: number;
  domain: string;
  timezone: string;
}

/** What alert rules count, from the stored hits, over moments `[from, to)` in epoch milliseconds. */
export interface AlertReader {
  /** Visitors with a hit (pageview or event) in the span. */
  visitors(website: WatchedWebsite, from: number, to: number): Promise<number>;
  /** Whether the span has a pageview. */
  hasPageview(website: WatchedWebsite, from: number, to: number): Promise<boolean>;
  /** Visitors with a hit matching the goal in the span: a pageview of a matching page, or the event. */
  goalVisitors(website: WatchedWebsite, goal: PathStep, from: number, to: number): Promise<number>;
}

/**
 * Hits keep local wall-clock seconds (storage/schema.ts): a span of moments becomes a span of
 * the website's local seconds, and is read on the `(website_id, time)` index.
 */
export function createAlertReader(db: Kysely<Database>, dialect: SqlDialect): AlertReader {
  const localTime = createLocalClock();
  // Hits keep whole seconds: a span's ends round up to theirs, so a check counts the hits of its
  // own second, and two spans that meet count each second once.
  const upTo = (website: WatchedWebsite, at: number) => localTime(website.timezone, at + 999).seconds;
  const span = (website: WatchedWebsite, from: number, to: number) => ({ start: upTo(website, from), end: upTo(website, to) });

  async function countVisitors(website: WatchedWebsite, from: number, to: number, only = sql`1 = 1`): Promise<number> {
    const { start, end } = span(website, from, to);
    const { rows } = await sql<{ n: number | string }>`select count(distinct ${VISITOR}) as n
      from hits h join visits v on v.id = h.visit_id
      where h.website_id = ${website.id} and h.time >= ${start} and h.time < ${end} and ${only}`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }

  return {
    visitors: (website, from, to) => countVisitors(website, from, to),

    async hasPageview(website, from, to) {
      const { start, end } = span(website, from, to);
      const { rows } = await sql`select 1 as found from hits
        where website_id = ${website.id} and time >= ${start} and time < ${end} and event = 0 limit 1`.execute(db);
      return rows.length > 0;
    },

    goalVisitors(website, goal, from, to) {
      const where = segmentConditions(dialect, website.id, []);
      const matching =
        goal.kind === "page"
          ? sql`h.event = 0 and h.page in ${where.pagesMatching(goal.pattern)}`
          : sql`h.event in ${where.idsOf("event", goal.name)}`;
      return countVisitors(website, from, to, matching);
    },
  };
}
