import type { BlockList } from "node:net";
import type { WebsiteDirectory, WebsiteRow } from "../websites/websites.js";
import { compileIpRules } from "../shared/exclusion-lists.js";
import { compileParamFilter, type ParamFilter } from "./page.js";
import type { PageNames } from "../websites/website-input.js";

/** What the collect path needs of a website, compiled once per change. */
export interface WebsiteRules {
  id: number;
  domain: string;
  timezone: string;
  excludeBots: boolean;
  excludedIps: BlockList | null;
  params: ParamFilter;
  pageNames: PageNames;
  /** Hits on its subdomains count too: each host is then a site of its own for referrers and visits. */
  includeSubdomains: boolean;
}

export function compileRules(row: WebsiteRow): WebsiteRules {
  return {
    id: Number(row.id),
    domain: row.domain,
    timezone: row.timezone,
    excludeBots: Number(row.exclude_bots) === 1,
    excludedIps: compileIpRules(row.exclude_ips),
    params: compileParamFilter(row.exclude_params),
    pageNames: row.page_names === "route" ? "route" : "path",
    includeSubdomains: Number(row.include_subdomains) === 1,
  };
}

export function isExcludedIp(rules: WebsiteRules, ip: string): boolean {
  if (!rules.excludedIps) return false;
  return rules.excludedIps.check(ip, ip.includes(":") ? "ipv6" : "ipv4");
}

const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

/**
 * Websites by host for the collect path. Entries live a few seconds so changes made
 * by another process sharing the store are seen; changes made here drop them at once.
 * While the database cannot be read, the last rules known for a domain keep serving
 * (and the database is asked again only after another TTL), so hits keep being accepted.
 */
export function createWebsiteCache(load: (domain: string) => Promise<WebsiteRow | null>) {
  const entries = new Map<string, { rules: WebsiteRules | null; expires: number }>();
  /**
   * Lookups under way, by domain: the hits that miss together (every hit of a busy site as
   * its entry expires) wait for one query instead of queueing one each on the connection.
   */
  const loading = new Map<string, Promise<WebsiteRules | null>>();
  const remember = (domain: string, rules: WebsiteRules | null) => {
    if (entries.size >= MAX_ENTRIES && !entries.has(domain)) entries.clear();
    entries.set(domain, { rules, expires: Date.now() + TTL_MS });
    return rules;
  };
  async function read(domain: string): Promise<WebsiteRules | null> {
    try {
      const row = await load(domain);
      return row ? compileRules(row) : null;
    } catch (error) {
      const stale = entries.get(domain);
      if (stale === undefined) throw error;
      return stale.rules;
    }
  }
  return {
    get(domain: string, now = Date.now()): WebsiteRules | null | undefined {
      const entry = entries.get(domain);
      return entry && entry.expires > now ? entry.rules : undefined;
    },
    load(domain: string): Promise<WebsiteRules | null> {
      const current = loading.get(domain);
      if (current !== undefined) return current;
      const pending: Promise<WebsiteRules | null> = read(domain).then((rules) => {
        // Forgotten meanwhile (the website changed): answered, not remembered.
        if (loading.get(domain) !== pending) return rules;
        loading.delete(domain);
        return remember(domain, rules);
      });
      pending.catch(() => {
        if (loading.get(domain) === pending) loading.delete(domain);
      });
      loading.set(domain, pending);
      return pending;
    },
    /** Drops a domain's entry and its subdomains' (a website that counts its subdomains answers for them). */
    forget(domain: string): void {
      for (const hosts of [entries, loading]) {
        hosts.delete(domain);
        for (const host of hosts.keys()) if (host.endsWith(`.${domain}`)) hosts.delete(host);
      }
    },
  };
}

/** Hosts of a developer's own machine: `localhost` (and `*.localhost`), 127.0.0.1, ::1. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || host === "127.0.0.1" || host === "[::1]" || host === "::1";
}

/** What the debug log adds when a loopback host has no website. */
export const LOOPBACK_HINT =
  "; in development (NODE_ENV=development, or createTally({ development: true })) localhost and 127.0.0.1 count for the first website";

/**
 * A host's website; in development, a loopback host that no website has (any port: a host
 * has none) counts for the first website created, the app's own, so a first local run counts.
 */
export function websiteForHost(
  directory: Pick<WebsiteDirectory, "findForHost" | "listRows">,
  development: boolean,
): (host: string) => Promise<WebsiteRow | null> {
  return async (host) => {
    const found = await directory.findForHost(host);
    if (found || !development || !isLoopback(host)) return found;
    return (await directory.listRows())[0] ?? null;
  };
}
