/**
 * Brute-force implementation of docs/statistics.md, written from the document and not
 * from the engine. It shares only the data sources with the engine: the geo database
 * (through openGeoLookup) and the user-agent verdicts (through createUserAgentParser).
 */
import type { RawHit, SiteConfig } from "./reference-data.js";

export interface GeoSource {
  lookup(ip: string): { country: string; continent: string; city: string } | null;
}
export interface AgentSource {
  parse(userAgent: string): { browser: string; os: string; device: string };
  isBot(userAgent: string): boolean;
}

export type Verdict = "accepted" | "bot" | "excluded-ip";

/** counts[site][name][day][value] */
export type Counts = Map<string, Map<string, Map<string, Map<string, number>>>>;

export interface Row {
  value: string;
  count: number;
}

const THIRTY_MINUTES = 30 * 60 * 1000;

// ---------- IP addresses and CIDR, by hand ----------

function ipv4ToBigInt(ip: string): bigint | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    n = (n << 8n) | BigInt(Number(part));
  }
  return n;
}

function ipv6ToBigInt(ip: string): bigint | null {
  const halves = ip.toLowerCase().split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let n = 0n;
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
    n = (n << 16n) | BigInt(parseInt(group, 16));
  }
  return n;
}

function parseAddress(ip: string): { family: 4 | 6; value: bigint } | null {
  const v4 = ipv4ToBigInt(ip);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = ipv6ToBigInt(ip);
  return v6 === null ? null : { family: 6, value: v6 };
}

export function ipMatchesList(ip: string, list: string): boolean {
  const address = parseAddress(ip);
  if (!address) return false;
  for (const line of list.split("\n")) {
    const entry = line.trim();
    if (entry === "") continue;
    const [base, prefixText] = entry.split("/");
    const network = parseAddress(base!);
    if (!network || network.family !== address.family) continue;
    const bits = address.family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    const shift = BigInt(bits - prefix);
    if (address.value >> shift === network.value >> shift) return true;
  }
  return false;
}

// ---------- time ----------

const formatters = new Map<string, Intl.DateTimeFormat>();
export function localDayHour(timeZone: string, epochMs: number): { day: string; hour: string } {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timeZone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(new Date(epochMs))) parts[part.type] = part.value;
  return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: parts.hour! };
}

// ---------- fields of a hit ----------

const withoutWww = (host: string) => (host.startsWith("www.") ? host.slice(4) : host);

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    return name;
  }
}

/** docs/statistics.md: the path reads decoded, except escapes of reserved characters. */
function decodePath(pathname: string): string {
  try {
    return decodeURI(pathname);
  } catch {
    return pathname;
  }
}

export function pageOf(url: URL, site: SiteConfig, hash: boolean): string {
  const excluded = site.exclude_params.split("\n").filter((line) => line !== "");
  let page = decodePath(url.pathname);
  if (!excluded.includes("&")) {
    const query = url.search.replace(/^\?/, "");
    const kept = query === "" ? [] : query.split("&").filter((pair) => !excluded.includes(decodeName(pair.split("=")[0]!)));
    if (kept.length > 0) page += `?${kept.join("&")}`;
  }
  if (hash && url.hash !== "" && url.hash !== "#") page += url.hash;
  return page;
}

export function referrerHost(referrer: string | undefined, site: SiteConfig): string {
  if (!referrer) return "";
  let url: URL;
  try {
    url = new URL(referrer);
  } catch {
    return "";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "";
  const host = withoutWww(url.hostname);
  return host === site.domain ? "" : host;
}

export function campaignOf(url: URL): string {
  return (url.searchParams.get("utm_campaign") ?? "").trim();
}

function screenOf(screen: string | undefined): string {
  return screen !== undefined && /^\d+x\d+$/.test(screen) ? screen : "";
}

function languageOf(language: string | undefined): string {
  if (language === undefined) return "";
  const subtags = language.split(/[-_]/);
  if (!/^[A-Za-z]{2,3}$/.test(subtags[0]!)) return "";
  if (!subtags.slice(1).every((tag) => /^[A-Za-z0-9]{1,8}$/.test(tag))) return "";
  return subtags[0]!.toLowerCase();
}

// ---------- the model ----------

export interface Model {
  verdicts: Verdict[];
  /** How often the data hits the edge cases (to check the generator reaches them). */
  diagnostics: { visitsAcrossMidnight: number; gapsOfExactly30Minutes: number; visitsByReferrerChange: number; visitsByCampaignChange: number };
  counts: Counts;
  /** Rows over an inclusive range of local days, every value with count > 0. */
  rows(site: string, name: string, from: string, to: string): Row[];
  /** The same, as counted from the first `collected` hits only (one of `snapshotsAt`). */
  rowsAfter(collected: number, site: string, name: string, from: string, to: string): Row[];
}

function rowsOf(counts: Counts, site: string, name: string, from: string, to: string): Row[] {
  const total = new Map<string, number>();
  for (const [day, byValue] of counts.get(site)?.get(name) ?? []) {
    if (day < from || day > to) continue;
    for (const [value, count] of byValue) total.set(value, (total.get(value) ?? 0) + count);
  }
  return [...total].filter(([, count]) => count > 0).map(([value, count]) => ({ value, count }));
}

function copyCounts(counts: Counts): Counts {
  return new Map(
    [...counts].map(([site, byName]) => [
      site,
      new Map([...byName].map(([name, byDay]) => [name, new Map([...byDay].map(([day, byValue]) => [day, new Map(byValue)]))])),
    ]),
  );
}

/** `hits` must be in the order they are collected (chronological). */
export function buildModel(
  sites: readonly SiteConfig[],
  hits: readonly RawHit[],
  geo: GeoSource,
  agents: AgentSource,
  snapshotsAt: readonly number[] = [],
): Model {
  const snapshots = new Map<number, Counts>();
  const siteByKey = new Map(sites.map((site) => [site.key, site]));
  const counts: Counts = new Map();
  const verdicts: Verdict[] = [];

  const add = (site: string, name: string, day: string, value: string) => {
    if (value === "") return;
    let byName = counts.get(site);
    if (!byName) counts.set(site, (byName = new Map()));
    let byDay = byName.get(name);
    if (!byDay) byName.set(name, (byDay = new Map()));
    let byValue = byDay.get(day);
    if (!byValue) byDay.set(day, (byValue = new Map()));
    byValue.set(value, (byValue.get(value) ?? 0) + 1);
  };

  /** (site, local day, ip, ua) → values already counted once for that visitor-day */
  const visitorDays = new Map<string, Set<string>>();
  /** (site, ip, ua) → last hit time and the current visit's referrer and campaign */
  const people = new Map<string, { last: number; lastDay: string; referrer: string; campaign: string }>();
  const diagnostics = { visitsAcrossMidnight: 0, gapsOfExactly30Minutes: 0, visitsByReferrerChange: 0, visitsByCampaignChange: 0 };

  for (const [index, hit] of hits.entries()) {
    if (snapshotsAt.includes(index)) snapshots.set(index, copyCounts(counts));
    const site = siteByKey.get(hit.site)!;
    if (site.exclude_bots === 1 && agents.isBot(hit.userAgent)) {
      verdicts.push("bot");
      continue;
    }
    if (ipMatchesList(hit.ip, site.exclude_ips)) {
      verdicts.push("excluded-ip");
      continue;
    }
    verdicts.push("accepted");

    const url = new URL(hit.url);
    const { day, hour } = localDayHour(site.timezone, hit.timestamp);
    const page = pageOf(url, site, hit.hash === true);
    const referrer = referrerHost(hit.referrer, site);
    const campaign = campaignOf(url);
    const isPageview = hit.event === undefined;

    const visitorKey = [site.key, day, hit.ip, hit.userAgent].join("\u0000");
    let seen = visitorDays.get(visitorKey);
    if (!seen) {
      visitorDays.set(visitorKey, (seen = new Set()));
      add(site.key, "visitors", day, day);
      add(site.key, "visitors_hours", day, hour);
      const agent = agents.parse(hit.userAgent);
      add(site.key, "browser", day, agent.browser);
      add(site.key, "os", day, agent.os);
      add(site.key, "device", day, agent.device);
      const place = geo.lookup(hit.ip);
      add(site.key, "country", day, place?.country ?? "");
      add(site.key, "continent", day, place?.continent ?? "");
      add(site.key, "city", day, place?.city ?? "");
    }

    const personKey = [site.key, hit.ip, hit.userAgent].join("\u0000");
    const person = people.get(personKey);
    const startsVisit =
      person === undefined ||
      hit.timestamp - person.last >= THIRTY_MINUTES ||
      (referrer !== "" && referrer !== person.referrer) ||
      (campaign !== "" && campaign !== person.campaign);
    if (person && hit.timestamp - person.last === THIRTY_MINUTES) diagnostics.gapsOfExactly30Minutes++;
    if (person && startsVisit && hit.timestamp - person.last < THIRTY_MINUTES) {
      if (referrer !== "" && referrer !== person.referrer) diagnostics.visitsByReferrerChange++;
      else diagnostics.visitsByCampaignChange++;
    }
    if (person && !startsVisit && person.lastDay !== day) diagnostics.visitsAcrossMidnight++;
    if (startsVisit) {
      people.set(personKey, { last: hit.timestamp, lastDay: day, referrer, campaign });
      add(site.key, "landing_page", day, page);
      add(site.key, "referrer", day, referrer);
      add(site.key, "campaign", day, campaign);
    } else {
      person.last = hit.timestamp;
      person.lastDay = day;
    }

    const screen = screenOf(hit.screen);
    if (screen !== "" && !seen.has(`screen ${screen}`)) {
      seen.add(`screen ${screen}`);
      add(site.key, "resolution", day, screen);
    }
    const language = languageOf(hit.language);
    if (language !== "" && !seen.has(`language ${language}`)) {
      seen.add(`language ${language}`);
      add(site.key, "language", day, language);
    }

    if (isPageview) {
      add(site.key, "pageviews", day, day);
      add(site.key, "pageviews_hours", day, hour);
      add(site.key, "page", day, page);
    } else {
      add(site.key, "event", day, hit.event!.trim());
    }
  }

  return {
    verdicts,
    diagnostics,
    counts,
    rows: (site, name, from, to) => rowsOf(counts, site, name, from, to),
    rowsAfter(collected, site, name, from, to) {
      const snapshot = snapshots.get(collected);
      if (!snapshot) throw new Error(`no snapshot after ${collected} hits`);
      return rowsOf(snapshot, site, name, from, to);
    },
  };
}

/** Code point order (SQLite's BINARY collation on UTF-8, Postgres "C"). */
export function compareValues(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

export interface ListQuery {
  search?: string;
  sort_by?: "count" | "value";
  sort?: "asc" | "desc";
  per_page?: number;
  page?: number;
}

/** What one page of `/stats` must be, from the full rows of the range. */
export function expectedPage(all: readonly Row[], query: ListQuery): { data: Row[]; total: number } {
  const needle = (query.search ?? "").toLowerCase();
  const rows = all.filter((row) => row.value.toLowerCase().includes(needle));
  const direction = query.sort === "asc" ? 1 : -1;
  rows.sort((a, b) => {
    if ((query.sort_by ?? "count") === "value") return direction * compareValues(a.value, b.value);
    if (a.count !== b.count) return direction * (a.count - b.count);
    return compareValues(a.value, b.value);
  });
  const perPage = query.per_page ?? 10;
  const page = query.page ?? 1;
  return { data: rows.slice((page - 1) * perPage, page * perPage), total: rows.length };
}
