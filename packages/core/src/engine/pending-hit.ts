/** A hit that passed every check and was enriched, waiting in memory for the next flush. */
export interface PendingHit {
  websiteId: number;
  timestamp: number;
  /** Local `Y-m-d` and `HH` in the website's time zone. */
  day: string;
  hour: string;
  /** The visitor's hash for `day`. */
  visitor: string;
  /** The same person's hash for yesterday, when the hit is within a visit's length of midnight. */
  previousVisitor: string | null;
  /** Null for a pageview. */
  event: string | null;
  props: Record<string, string> | null;
  page: string;
  /** External referrer host, "" when direct or internal. */
  referrer: string;
  campaign: string;
  browser: string;
  os: string;
  device: string;
  country: string;
  continent: string;
  city: string;
  screen: string;
  language: string;
}

/** What a flush knows of a visitor-day; `lastSeen` 0 means the visitor is new today. */
export interface VisitorState {
  hash: string;
  websiteId: number;
  day: string;
  lastSeen: number;
  visitReferrer: string;
  visitCampaign: string;
  /** Values counted once per visitor-day that can change between hits, one per line. */
  seen: string;
}
