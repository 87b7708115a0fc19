import type { Insertable } from "kysely";
import type { EventPropsTable, HitsTable, VisitorsTable, VisitsTable } from "../storage/schema.js";
import type { CounterRow } from "../model/counters.js";
import type { DimensionIo } from "./dictionary.js";
import type { VisitorState } from "../model/pending-hit.js";
import { MAX_SEEN_PER_VISITOR } from "./visit-processor.js";

type MaybePromise<T> = T | Promise<T>;

/** `visitor` 0: the visit is its visitor-day's first (its own id is the visitor). */
export type VisitRow = Omit<Insertable<VisitsTable>, "id">;

/** A change to a stored visit: counts to add, and the duration and exit page it grows to. */
export interface VisitUpdateRow {
  id: number;
  pageviews: number;
  events: number;
  duration: number;
  /** 0: unchanged. */
  exit_page: number;
  engaged: number;
}

/** A day whose visits a flush added or changed: its version goes up, its latest hit to `last_hit`. */
export interface TouchedDay {
  website_id: number;
  day: number;
  last_hit: number;
}

export interface VisitorClaim {
  hash: string;
  websiteId: number;
  day: string;
}

/**
 * The statements one flush runs, inside one transaction the store opens around it.
 * better-sqlite3 answers synchronously on the writer thread; kysely with promises.
 */
export interface FlushIo extends DimensionIo {
  /** Records a batch's id; answers false when it was recorded before (that batch is written already). */
  claimBatch(id: string, now: number): MaybePromise<boolean>;
  /** PostgreSQL only: creates today's rows first and locks them, so two processes never count one visitor twice. */
  claimVisitors?(claims: readonly VisitorClaim[]): MaybePromise<void>;
  loadVisitors(hashes: readonly string[]): MaybePromise<readonly VisitorsTable[]>;
  /** Ids for new visits, when the database hands them out before inserting (PostgreSQL sequences). */
  reserveVisitIds?(count: number): MaybePromise<readonly number[]>;
  /** Stores visits with the ids reserveVisitIds gave. */
  insertVisitsWithIds?(rows: readonly (VisitRow & { id: number })[]): MaybePromise<void>;
  /** Stores one visit; answers its new id (SQLite, or any store without reserveVisitIds). */
  insertVisit(row: VisitRow): MaybePromise<number>;
  updateVisits(rows: readonly VisitUpdateRow[]): MaybePromise<void>;
  insertHits(rows: readonly HitsTable[]): MaybePromise<void>;
  insertProps(rows: readonly EventPropsTable[]): MaybePromise<void>;
  saveVisitors(rows: readonly VisitorsTable[]): MaybePromise<void>;
  addCounts(rows: readonly CounterRow[]): MaybePromise<void>;
  /** Bumps the versions of the days whose visits changed (their day blocks are out of date). */
  touchDays(rows: readonly TouchedDay[]): MaybePromise<void>;
}

export function stateOf(row: VisitorsTable): VisitorState {
  return {
    hash: row.hash,
    websiteId: Number(row.website_id),
    day: row.day,
    lastSeen: Number(row.last_seen),
    visitReferrer: row.visit_referrer,
    visitCampaign: row.visit_campaign,
    seen: new Set(row.seen === "" ? [] : row.seen.split("\n")),
    visitor: Number(row.visitor),
    visit: Number(row.visit),
    visitStart: Number(row.visit_start),
    visitDay: row.visit_day,
    visitPageviews: Number(row.visit_pageviews),
    visitEvents: Number(row.visit_events),
    visitExit: row.visit_exit,
  };
}

export function rowOf(state: VisitorState): VisitorsTable {
  return {
    hash: state.hash,
    website_id: state.websiteId,
    day: state.day,
    last_seen: state.lastSeen,
    visit_referrer: state.visitReferrer,
    visit_campaign: state.visitCampaign,
    seen: [...state.seen].slice(0, MAX_SEEN_PER_VISITOR).join("\n"),
    visitor: state.visitor,
    visit: state.visit,
    visit_start: state.visitStart,
    visit_day: state.visitDay,
    visit_pageviews: state.visitPageviews,
    visit_events: state.visitEvents,
    visit_exit: state.visitExit,
  };
}

/** A row just claimed: today's, with nothing counted yet. */
export const claimedRow = (claim: VisitorClaim): VisitorsTable =>
  rowOf({
    hash: claim.hash,
    websiteId: claim.websiteId,
    day: claim.day,
    lastSeen: 0,
    visitReferrer: "",
    visitCampaign: "",
    seen: new Set(),
    visitor: 0,
    visit: 0,
    visitStart: 0,
    visitDay: "",
    visitPageviews: 0,
    visitEvents: 0,
    visitExit: "",
  });
