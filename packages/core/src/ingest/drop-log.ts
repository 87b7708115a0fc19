import { debugLog } from "../shared/debug.js";
import { isLoopback, LOOPBACK_HINT } from "./website-rules.js";

// The hits dropped lately, kept in memory so that setting up the tracker can say why a hit
// did not count: those a website's own rules dropped (bots, referrer spam, excluded
// addresses, conversions already counted), and those of hosts no website has. No address or
// user agent is kept: when, why, the host and the page's path.

/** Why a website's own rules dropped a hit (its `X-Tally-Dropped`). */
export type RuleDropReason = "bot" | "referrer-spam" | "excluded-ip" | "counted";

/** One dropped hit as the live view lists it. */
export interface DroppedHit {
  /** When it came, ISO 8601 UTC. */
  at: string;
  reason: RuleDropReason | "unknown-website";
  /** The page's host, with its port when it has one. */
  host: string;
  /** The page's path (no query or fragment). */
  page: string;
}

/** Why, in a few words, for the debug log. */
const DROP_REASONS: Record<RuleDropReason, string> = {
  bot: "a bot's user agent, and the website excludes bots (exclude_bots=0 counts them)",
  "referrer-spam": "a referrer on the spam list",
  "excluded-ip": "an address the website excludes (exclude_ips)",
  counted: "the same event of the same visitor was counted in the app's transaction",
};

/** Kept per website, newest first; the websites with drops kept at most (the oldest forgotten first). */
const PER_WEBSITE = 20;
const MAX_WEBSITES = 10_000;
/** Hits of hosts no website has, kept for all websites together, newest first. */
const UNKNOWN_KEPT = 50;

/** An unknown host's drop concerns a website when it is that site, one of its subdomains or a parent domain, or a developer's machine. */
const concerns = (domain: string, dropped: string) =>
  dropped === domain || dropped.endsWith(`.${domain}`) || domain.endsWith(`.${dropped}`) || isLoopback(dropped);

export function createDropLog() {
  const byWebsite = new Map<number, DroppedHit[]>();
  let unknown: (DroppedHit & { domain: string })[] = [];
  const dropOf = (url: URL, reason: DroppedHit["reason"]): DroppedHit => ({
    at: new Date().toISOString(),
    reason,
    host: url.host,
    page: url.pathname,
  });
  return {
    record(websiteId: number, url: URL, reason: RuleDropReason): void {
      debugLog(`dropped a hit on ${url.host}${url.pathname}: ${DROP_REASONS[reason]} (X-Tally-Dropped: ${reason})`);
      const list = byWebsite.get(websiteId) ?? [];
      byWebsite.delete(websiteId);
      if (byWebsite.size >= MAX_WEBSITES) byWebsite.delete(byWebsite.keys().next().value!);
      byWebsite.set(websiteId, [dropOf(url, reason), ...list].slice(0, PER_WEBSITE));
    },
    /** A hit of a host (`domain`, without www.) that no website has. */
    unknown(url: URL, domain: string): void {
      debugLog(
        `dropped a hit on ${url.host}${url.pathname}: no website has the domain ${domain} (X-Tally-Dropped: unknown-website)${isLoopback(domain) ? LOOPBACK_HINT : ""}`,
      );
      unknown = [{ ...dropOf(url, "unknown-website"), domain }, ...unknown].slice(0, UNKNOWN_KEPT);
    },
    /** The website's drops and those of unknown hosts that concern its domain, newest first. */
    recent(websiteId: number, domain: string): DroppedHit[] {
      const near = unknown.filter((drop) => concerns(domain, drop.domain)).map(({ domain: _domain, ...drop }) => drop);
      return [...(byWebsite.get(websiteId) ?? []), ...near].sort((a, b) => b.at.localeCompare(a.at)).slice(0, PER_WEBSITE);
    },
    forget: (websiteId: number): void => void byWebsite.delete(websiteId),
  };
}

export type DropLog = ReturnType<typeof createDropLog>;
