import type { Hit } from "../model/hit.js";
import type { CheckedVitals } from "../model/hit-input.js";

/** A visit that starts in this flush. `id` and `firstVisitId` are provisional (negative) until stored. */
export interface NewVisit {
  id: number;
  /** The id of its visitor-day's first visit (its own id when it is that visit). */
  firstVisitId: number;
  /** The hit that started it: entry page, referrer, UTM, browser… */
  first: Hit;
  change: VisitChange;
}

/** What a flush adds to a visit: counts to add, and the latest duration and exit page. */
export interface VisitChange {
  id: number;
  websiteId: number;
  /** The local day the visit started (`Y-m-d`): the day block it belongs to. */
  day: string;
  pageviews: number;
  events: number;
  /** Seconds; the stored duration only ever grows to this. */
  duration: number;
  /** Null: unchanged. */
  exitPage: string | null;
  /** Milliseconds of engaged time to add. */
  engagedMs: number;
}

/** One stored hit; `visit` may be provisional until the flush's new visits are stored. */
export interface HitRow {
  websiteId: number;
  visit: number;
  time: number;
  page: string;
  /** "" for a pageview. */
  event: string;
  /** Its place in the visit. */
  seq: number;
}

/** An engagement signal as stored: the page it came from and what it reported (model/hit.ts). */
export interface EngagementRow {
  websiteId: number;
  visit: number;
  time: number;
  page: string;
  engagedMs: number;
  scrollDepth: number | null;
  vitals: CheckedVitals | null;
}

export interface PropRow {
  websiteId: number;
  visit: number;
  time: number;
  event: string;
  seq: number;
  name: string;
  value: string;
}

/** An event's revenue, as its properties are kept beside its hit. */
export interface RevenueRow {
  websiteId: number;
  visit: number;
  time: number;
  event: string;
  seq: number;
  amount: number;
  currency: string;
}

/** The visits a flush starts and changes, under provisional ids for the new ones. */
export function createVisitLedger() {
  const created: NewVisit[] = [];
  const changes = new Map<number, VisitChange>();

  const emptyChange = (id: number, websiteId: number, day: string): VisitChange => ({
    id,
    websiteId,
    day,
    pageviews: 0,
    events: 0,
    duration: 0,
    exitPage: null,
    engagedMs: 0,
  });

  return {
    /** Starts a visit of the visitor-day whose first visit is `firstVisitId` (0: none yet, this is it). */
    start(first: Hit, firstVisitId: number): NewVisit {
      const id = -(created.length + 1);
      const visit: NewVisit = {
        id,
        firstVisitId: firstVisitId === 0 ? id : firstVisitId,
        first,
        change: emptyChange(id, first.websiteId, first.day),
      };
      created.push(visit);
      changes.set(id, visit.change);
      return visit;
    },
    change(id: number, websiteId: number, day: string): VisitChange {
      let change = changes.get(id);
      if (!change) changes.set(id, (change = emptyChange(id, websiteId, day)));
      return change;
    },
    created: (): readonly NewVisit[] => created,
    /** Changes to visits stored before this flush. */
    updates: (): VisitChange[] => [...changes.values()].filter((change) => change.id > 0),
  };
}

export type VisitLedger = ReturnType<typeof createVisitLedger>;
