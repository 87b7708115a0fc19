/** The UTM parameters a visit carries (`campaign` is `utm_campaign`). */
export interface Utm {
  source: string;
  medium: string;
  campaign: string;
  content: string;
  term: string;
}

/** A pageview, an event, or an engagement signal (which is no hit: docs/statistics.md). */
export type HitKind = "pageview" | "event" | "engagement";

/** A hit that passed every check and was enriched, waiting in memory for the next flush. */
export interface PendingHit {
  kind: HitKind;
  websiteId: number;
  timestamp: number;
  /** Local wall-clock seconds in the website's time zone (epoch seconds as if it were UTC). */
  localTime: number;
  /** Local `Y-m-d` and `HH` in the website's time zone. */
  day: string;
  hour: string;
  /** The visitor's hash for `day`. */
  visitor: string;
  /** The same person's hash for the day before: near midnight, and for every engagement signal. */
  previousVisitor: string | null;
  /** The same person's hash for the next day, when the hit is within a visit's length of midnight. */
  nextVisitor: string | null;
  /** Null for a pageview and an engagement signal. */
  event: string | null;
  /** Milliseconds of an engagement signal; 0 for hits. */
  engagedMs: number;
  props: Record<string, string> | null;
  page: string;
  /** External referrer host, "" when direct or internal. */
  referrer: string;
  utm: Utm;
  browser: string;
  os: string;
  device: string;
  country: string;
  continent: string;
  city: string;
  screen: string;
  language: string;
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
  /** Values counted once per visitor-day (resolutions, languages, goals). */
  seen: Set<string>;
  /** Id of this visitor-day's first visit; 0 before it has one; negative while provisional in a flush. */
  visitor: number;
  visit: number;
  visitStart: number;
  visitDay: string;
  visitPageviews: number;
  visitEvents: number;
  visitExit: string;
}
