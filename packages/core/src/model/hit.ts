import type { DimensionValues } from "./dimensions.js";
import type { CheckedVitals } from "./hit-input.js";
import type { Revenue } from "./revenue.js";

/** A pageview, an event, or an engagement signal (which is no hit: docs/statistics.md). */
export type HitKind = "pageview" | "event" | "engagement";

/** A hit that passed every check and was enriched, waiting in memory for the next flush. */
export interface Hit {
  kind: HitKind;
  websiteId: number;
  timestamp: number;
  /** Local wall-clock seconds in the website's time zone (epoch seconds as if it were UTC). */
  localTime: number;
  /** Local `Y-m-d` and `HH` in the website's time zone. */
  day: string;
  hour: string;
  /** The salted hash of (website, IP, user agent) for `day`. */
  visitorHash: string;
  /** The same person's hash for the day before: near midnight, and for every engagement signal. */
  previousVisitorHash: string | null;
  /** The same person's hash for the next day, when the hit is within a visit's length of midnight. */
  nextVisitorHash: string | null;
  /** Milliseconds of an engagement signal; 0 for hits. */
  engagedMs: number;
  /** An engagement signal's deepest percentage of the page seen; null when not sent (and for hits). */
  scrollDepth: number | null;
  /** An engagement signal's web vitals of its pageview; null when not sent (and for hits). */
  vitals: CheckedVitals | null;
  props: Record<string, string> | null;
  /** An event's revenue; absent or null for most hits. */
  revenue?: Revenue | null;
  /**
   * One value per kind of the registry (model/dimensions.ts): `page` without tracking
   * parameters, `referrer` the external host ("" when direct or internal), `event` ""
   * for a pageview, `resolution` the screen size.
   */
  values: DimensionValues;
  /**
   * A conversion recorded in the app's transaction (ingest/outbox.ts): its `tally_outbox`
   * row, deleted by the flush that counts it, in the same transaction (counted exactly once).
   */
  outboxId?: number;
  /**
   * Who brought the hit's values, for the daily budget of new values (ingest/dictionary.ts):
   * `server` (the app's own calls: `record`, server pageviews, conversions), `import`, or
   * `c:` and a hash of the client's address (an IPv6 client's /64) with the day's salt.
   * Absent in hits kept by an older version: counted as a client's, without a share of its own.
   */
  source?: string;
}

/**
 * What a flush knows of a visitor-day; `lastSeen` 0 means the visitor is new today.
 * The `visit*` fields describe the visit under way (copied into the next day's state
 * when a visit runs past midnight).
 */
export interface VisitorState {
  hash: string;
  websiteId: number;
  day: string;
  /** Epoch ms of the latest activity (hit or engagement signal). */
  lastSeen: number;
  visitReferrer: string;
  visitCampaign: string;
  /** The host of the visit's pages (a hit on another host starts a visit); "" in a state saved before hosts were kept. */
  visitHostname: string;
  /** Values counted once per visitor-day (resolutions, languages, goals). */
  seen: Set<string>;
  /** Id of this visitor-day's first visit; 0 before it has one; negative while provisional in a flush. */
  firstVisitId: number;
  visit: number;
  visitStart: number;
  visitDay: string;
  visitPageviews: number;
  visitEvents: number;
  visitExit: string;
}

/** A visitor-day's state before anything is counted. */
export const newVisitorState = (hash: string, websiteId: number, day: string): VisitorState => ({
  hash,
  websiteId,
  day,
  lastSeen: 0,
  visitReferrer: "",
  visitCampaign: "",
  visitHostname: "",
  seen: new Set(),
  firstVisitId: 0,
  visit: 0,
  visitStart: 0,
  visitDay: "",
  visitPageviews: 0,
  visitEvents: 0,
  visitExit: "",
});
