import { debugLog } from "../shared/debug.js";

// The hits a website's own rules dropped lately (bots, referrer spam, excluded addresses,
// conversions already counted), kept in memory so that setting up the tracker can say why a
// hit did not count. No address or user agent is kept: when, why, and the page's path.

/** One dropped hit as the live view lists it. */
export interface DroppedHit {
  /** When it came, ISO 8601 UTC. */
  at: string;
  reason: "bot" | "referrer-spam" | "excluded-ip" | "counted";
  /** The page's path (no query or fragment). */
  page: string;
}

/** Why, in a few words, for the debug log. */
const DROP_REASONS: Record<DroppedHit["reason"], string> = {
  bot: "a bot's user agent, and the website excludes bots (exclude_bots=0 counts them)",
  "referrer-spam": "a referrer on the spam list",
  "excluded-ip": "an address the website excludes (exclude_ips)",
  counted: "the same event of the same visitor was counted in the app's transaction",
};

/** Kept per website, newest first; the websites with drops kept at most (the oldest forgotten first). */
const PER_WEBSITE = 20;
const MAX_WEBSITES = 10_000;

export function createDropLog() {
  const byWebsite = new Map<number, DroppedHit[]>();
  return {
    record(websiteId: number, url: URL, reason: DroppedHit["reason"]): void {
      debugLog(`dropped a hit on ${url.host}${url.pathname}: ${DROP_REASONS[reason]} (X-Tally-Dropped: ${reason})`);
      const list = byWebsite.get(websiteId) ?? [];
      byWebsite.delete(websiteId);
      if (byWebsite.size >= MAX_WEBSITES) byWebsite.delete(byWebsite.keys().next().value!);
      byWebsite.set(websiteId, [{ at: new Date().toISOString(), reason, page: url.pathname }, ...list].slice(0, PER_WEBSITE));
    },
    recent: (websiteId: number): DroppedHit[] => byWebsite.get(websiteId) ?? [],
    forget: (websiteId: number): void => void byWebsite.delete(websiteId),
  };
}

export type DropLog = ReturnType<typeof createDropLog>;
