import { sql, type Kysely } from "kysely";
import { dayNumber, dayText } from "../shared/calendar.js";
import { VITALS, type Vital } from "../model/hit-input.js";
import { visitPages } from "../stats/engagement.js";
import type { Database } from "../storage/schema.js";
import type { ExportRange } from "./rollup-rows.js";
import type { OutputFile } from "./zip-csv.js";

/**
 * The engagement signals (`page_engagement`, docs/statistics.md "Engagement signals") as an
 * export carries them: Tally's `engagement.csv`, one row per signal, and the per-page totals
 * of Plausible's `imported_pages`. Read by the local day of each signal, as the store keeps
 * them (retention deletes a signal with its day's hits).
 */
export interface EngagementRow {
  visit: number;
  page: string;
  /** Local wall-clock seconds. */
  time: number;
  engagedMs: number;
  scrollDepth: number | null;
  vitals: Record<Vital, number | null>;
}

const DAY_SECONDS = 86_400;
const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** Where `range` has signals: the first and last local day, or null. */
async function signalDays(db: Kysely<Database>, websiteId: number, range: ExportRange): Promise<{ first: number; last: number } | null> {
  const row = await db
    .selectFrom("page_engagement")
    .select((eb) => [eb.fn.min("time").as("first"), eb.fn.max("time").as("last")])
    .where("website_id", "=", websiteId)
    .where("time", ">=", dayNumber(range.from) * DAY_SECONDS)
    .where("time", "<", (dayNumber(range.to) + 1) * DAY_SECONDS)
    .executeTakeFirst();
  if (row?.first === null || row?.first === undefined || row.last === null) return null;
  return { first: Math.floor(Number(row.first) / DAY_SECONDS), last: Math.floor(Number(row.last) / DAY_SECONDS) };
}

/** One local day's signals, in the order they came. */
async function signalsOn(db: Kysely<Database>, websiteId: number, day: number): Promise<EngagementRow[]> {
  const { rows } = await sql<Record<string, unknown>>`select e.visit_id as visit, d.value as page, e.time, e.engaged_ms, e.scroll_depth,
      ${sql.join(VITALS.map((vital) => sql.ref(`e.${vital}`)))}
    from page_engagement e join dimensions d on d.id = e.page
    where e.website_id = ${websiteId} and e.time >= ${day * DAY_SECONDS} and e.time < ${(day + 1) * DAY_SECONDS}
    order by e.time, e.visit_id`.execute(db);
  return rows.map((row) => ({
    visit: Number(row.visit),
    page: String(row.page),
    time: Number(row.time),
    engagedMs: Number(row.engaged_ms),
    scrollDepth: numberOrNull(row.scroll_depth),
    vitals: Object.fromEntries(VITALS.map((vital) => [vital, numberOrNull(row[vital])])) as EngagementRow["vitals"],
  }));
}

/** Every day of `range` that has signals, with them. */
export async function* signalsByDay(
  db: Kysely<Database>,
  websiteId: number,
  range: ExportRange,
): AsyncGenerator<{ day: string; signals: EngagementRow[] }> {
  const days = await signalDays(db, websiteId, range);
  if (!days) return;
  for (let day = days.first; day <= days.last; day++) {
    const signals = await signalsOn(db, websiteId, day);
    if (signals.length > 0) yield { day: dayText(day), signals };
  }
}

/** How many signals `range` holds. */
export async function countSignals(db: Kysely<Database>, websiteId: number, range: ExportRange): Promise<number> {
  const row = await db
    .selectFrom("page_engagement")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("website_id", "=", websiteId)
    .where("time", ">=", dayNumber(range.from) * DAY_SECONDS)
    .where("time", "<", (dayNumber(range.to) + 1) * DAY_SECONDS)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** `engagement.csv`: the signals of Tally's export, visits numbered 1, 2, … in the order they first engaged. */
export const ENGAGEMENT_FILE = {
  file: "engagement.csv",
  columns: ["date", "visit", "page", "engaged_ms", "scroll_depth", ...VITALS],
} as const;

export function engagementFile(
  signalsOf: (range: ExportRange) => AsyncIterable<{ day: string; signals: EngagementRow[] }>,
  range: ExportRange,
): OutputFile {
  return {
    name: ENGAGEMENT_FILE.file,
    header: ENGAGEMENT_FILE.columns,
    async *rows() {
      const numbers = new Map<number, number>();
      const blank = (value: number | null) => value ?? "";
      for await (const { day, signals } of signalsOf(range)) {
        for (const signal of signals) {
          let visit = numbers.get(signal.visit);
          if (visit === undefined) numbers.set(signal.visit, (visit = numbers.size + 1));
          yield [
            day,
            visit,
            signal.page,
            signal.engagedMs,
            blank(signal.scrollDepth),
            ...VITALS.map((vital) => blank(signal.vitals[vital])),
          ];
        }
      }
    },
  };
}

/** Plausible's per-page engagement totals: each visit's deepest scroll summed, and its engaged seconds. */
export interface PageEngagementTotals {
  totalScrollDepth: number;
  scrollDepthVisits: number;
  totalTimeOnPage: number;
  timeOnPageVisits: number;
}

/**
 * Per page, one day's totals as Plausible's export reckons them (`total_scroll_depth`: the sum
 * of each visit's deepest scroll there, over `total_scroll_depth_visits` visits;
 * `total_time_on_page`: the visits' engaged seconds there, over the visits that engaged).
 */
function pageTotals(signals: readonly EngagementRow[]): Map<string, PageEngagementTotals> {
  const totals = new Map<string, PageEngagementTotals>();
  for (const { page, scrollDepth, engagedMs } of visitPages(signals)) {
    let total = totals.get(page);
    if (!total) totals.set(page, (total = { totalScrollDepth: 0, scrollDepthVisits: 0, totalTimeOnPage: 0, timeOnPageVisits: 0 }));
    if (scrollDepth !== null) {
      total.totalScrollDepth += scrollDepth;
      total.scrollDepthVisits++;
    }
    if (engagedMs > 0) {
      total.totalTimeOnPage += engagedMs / 1000;
      total.timeOnPageVisits++;
    }
  }
  for (const total of totals.values()) total.totalTimeOnPage = Math.round(total.totalTimeOnPage);
  return totals;
}

/** `pageTotals` of one local day's signals. */
export async function pageTotalsOn(db: Kysely<Database>, websiteId: number, day: string): Promise<Map<string, PageEngagementTotals>> {
  return pageTotals(await signalsOn(db, websiteId, dayNumber(day)));
}
