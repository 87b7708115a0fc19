/**
 * Brute-force implementation of docs/statistics.md, written from the document and not
 * from the engine. It shares only the data sources with the engine: the geo database
 * (through openGeoLookup) and the user-agent verdicts (through createUserAgentParser).
 *
 * It replays the raw hits in collection order, forms visits by the document's rules,
 * and keeps (a) every visit with its hits, for the filtered statistics
 * (reference-segments.ts), and (b) the unfiltered counts by day, as the document defines
 * them for the rollups.
 */
import type { RawHit, SiteConfig } from "./reference-data.js";
import {
  channelOf,
  hostOf,
  ipMatchesList,
  isReferrerSpam,
  languageOf,
  localDayHour,
  pageOf,
  propsOf,
  referrerHost,
  screenOf,
  sourceOf,
  utmOf,
  UTM_FIELDS,
} from "./reference-fields.js";

export { localDayHour } from "./reference-fields.js";

export interface GeoSource {
  lookup(ip: string): { country: string; continent: string; city: string; region: string } | null;
}
export interface AgentSource {
  parse(userAgent: string): { browser: string; os: string; device: string; browserVersion: string; osVersion: string };
  isBot(userAgent: string): boolean;
}

export type Verdict = "accepted" | "bot" | "referrer-spam" | "excluded-ip";

/** name → day → value → count */
export type DayCounts = Map<string, Map<string, Map<string, number>>>;
/** counts[site][name][day][value] */
export type Counts = Map<string, DayCounts>;

export interface Row {
  value: string;
  count: number;
  /** `goals` */
  events?: number;
  conversion_rate?: number;
  /** `goals`: revenue per currency. */
  revenue?: unknown;
  /** With a comparison. */
  previous?: number;
  /** `scroll_depth`, `time_on_page`, `vitals` (reference-engagement.ts). */
  average?: number;
  median?: number;
  seconds?: number;
  previous_figure?: number;
  vitals?: unknown;
}

/** An engagement signal that joined a visit: its page, local day and what it reported. */
export interface ModelSignal {
  day: string;
  page: string;
  engagedMs: number;
  scrollDepth: number | undefined;
  vitals: Record<string, number> | undefined;
}

/** What a visit has one value of (docs/statistics.md, "Visits"); "" when unknown. */
export const VISIT_DIMENSIONS = [
  "entry_page",
  "exit_page",
  "referrer",
  ...UTM_FIELDS,
  "browser",
  "os",
  "device",
  "country",
  "continent",
  "city",
  "region",
  "language",
  "resolution",
  "source",
  "channel",
  "browser_version",
  "os_version",
  "hostname",
] as const;
export type VisitDimension = (typeof VISIT_DIMENSIONS)[number];

export interface ModelHit {
  time: number;
  day: string;
  hour: string;
  page: string;
  /** The page's host (docs/statistics.md, "Hostname"). */
  host: string;
  /** Null for a pageview. */
  event: string | null;
  /** The hit's properties, an event's or a pageview's (null when it has none). */
  props: ReadonlyMap<string, string> | null;
  /** An event's revenue: the amount in ten-thousandths of the currency's unit, the currency upper-cased (null when it has none). */
  revenue: { amount: number; currency: string } | null;
}

/** The currencies the data set's revenue is in: the revenue counts are `revenue_amount\u0000<currency>`, `revenue_events\u0000<currency>`. */
export const REVENUE_CURRENCIES = ["EUR", "JPY", "USD"] as const;
export const revenueCounter = (what: "amount" | "events", currency: string) => `revenue_${what}\u0000${currency}`;

export interface ModelVisit {
  site: string;
  /** The visitor-day of its first hit: (site, local day, IP, user agent). */
  visitor: string;
  start: number;
  day: string;
  hour: string;
  dims: Record<VisitDimension, string>;
  pageviews: number;
  events: number;
  /** Time of its last activity (hit or engagement signal). */
  last: number;
  hits: ModelHit[];
  signals: ModelSignal[];
}

export const durationOf = (visit: ModelVisit) => Math.floor((visit.last - visit.start) / 1000);
export const isBounce = (visit: ModelVisit) => visit.pageviews === 1 && visit.events === 0;

const THIRTY_MINUTES = 30 * 60 * 1000;
/** Values remembered per visitor-day for the once-per-value counts (screen sizes, languages and goals together). */
const MAX_SEEN = 32;

/** Key of an `event_property` count: the event and the property. */
export const propertyCounter = (event: string, property: string) => `event_property\u0000${event}\u0000${property}`;
/** The event a pageview's properties are listed under, and the event name that is a pageview. */
export const PAGEVIEW = "pageview";

export interface Model {
  verdicts: Verdict[];
  /** How often the data hits the edge cases (to check the generator reaches them). */
  diagnostics: {
    visitsAcrossMidnight: number;
    gapsOfExactly30Minutes: number;
    visitsByReferrerChange: number;
    visitsByCampaignChange: number;
    visitsByHostChange: number;
    signalsInVisits: number;
    signalsIgnored: number;
    newVisitsAfterSignalPastMidnight: number;
  };
  counts: Counts;
  /** Every visit, in order of start. */
  visits: readonly ModelVisit[];
  /** Rows of an additive count over an inclusive range of local days, every value with count > 0. */
  rows(site: string, name: string, from: string, to: string): Row[];
  /** The same, as counted from the first `collected` hits only (one of `snapshotsAt`). */
  rowsAfter(collected: number, site: string, name: string, from: string, to: string): Row[];
}

/** Sums a name's counts over a range of days. */
export function sumDays(
  byDay: ReadonlyMap<string, ReadonlyMap<string, number>> | undefined,
  from: string,
  to: string,
): Map<string, number> {
  const total = new Map<string, number>();
  for (const [day, byValue] of byDay ?? []) {
    if (day < from || day > to) continue;
    for (const [value, count] of byValue) total.set(value, (total.get(value) ?? 0) + count);
  }
  return total;
}

const positiveRows = (total: ReadonlyMap<string, number>): Row[] =>
  [...total].filter(([, count]) => count > 0).map(([value, count]) => ({ value, count }));

function copyCounts(counts: Counts): Counts {
  return new Map(
    [...counts].map(([site, byName]) => [
      site,
      new Map([...byName].map(([name, byDay]) => [name, new Map([...byDay].map(([day, byValue]) => [day, new Map(byValue)]))])),
    ]),
  );
}

/** Adds to day counts (values "" are never counted). */
export function addTo(counts: DayCounts, name: string, day: string, value: string, amount = 1): void {
  if (value === "") return;
  let byDay = counts.get(name);
  if (!byDay) counts.set(name, (byDay = new Map()));
  let byValue = byDay.get(day);
  if (!byValue) byDay.set(day, (byValue = new Map()));
  byValue.set(value, (byValue.get(value) ?? 0) + amount);
}

const addDay = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

interface Person {
  /** Latest activity (hit or signal). */
  last: number;
  /** Local day of the latest hit. */
  lastHitDay: string;
  visit: ModelVisit;
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
  const counts: Counts = new Map(sites.map((site) => [site.key, new Map()]));
  const verdicts: Verdict[] = [];
  const visits: ModelVisit[] = [];
  const add = (site: string, name: string, day: string, value: string, amount = 1) => addTo(counts.get(site)!, name, day, value, amount);

  /** (site, local day, ip, ua) → values already counted once for that visitor-day */
  const visitorDays = new Map<string, Set<string>>();
  const people = new Map<string, Person>();
  const diagnostics: Model["diagnostics"] = {
    visitsAcrossMidnight: 0,
    gapsOfExactly30Minutes: 0,
    visitsByReferrerChange: 0,
    visitsByCampaignChange: 0,
    visitsByHostChange: 0,
    signalsInVisits: 0,
    signalsIgnored: 0,
    newVisitsAfterSignalPastMidnight: 0,
  };

  /** Counts `value` once per visitor-day, remembering at most MAX_SEEN values. */
  const once = (seen: Set<string>, site: string, name: string, day: string, tag: string, value: string) => {
    if (value === "" || seen.has(`${tag} ${value}`) || seen.size >= MAX_SEEN) return;
    seen.add(`${tag} ${value}`);
    add(site, name, day, value);
  };

  for (const [index, hit] of hits.entries()) {
    if (snapshotsAt.includes(index)) snapshots.set(index, copyCounts(counts));
    const site = siteByKey.get(hit.site)!;
    if (site.exclude_bots === 1 && agents.isBot(hit.userAgent)) {
      verdicts.push("bot");
      continue;
    }
    if (site.exclude_bots === 1 && isReferrerSpam(referrerHost(hit.referrer, site, new URL(hit.url)))) {
      verdicts.push("referrer-spam");
      continue;
    }
    if (ipMatchesList(hit.ip, site.exclude_ips)) {
      verdicts.push("excluded-ip");
      continue;
    }
    verdicts.push("accepted");

    const { day, hour } = localDayHour(site.timezone, hit.timestamp);
    const personKey = [site.key, hit.ip, hit.userAgent].join("\u0000");
    const person = people.get(personKey);

    if (hit.engagedMs !== undefined) {
      // An engagement signal: activity of the visit of the person's latest hit that day or the day before.
      if (person && (person.lastHitDay === day || person.lastHitDay === addDay(day, -1))) {
        diagnostics.signalsInVisits++;
        person.last = Math.max(person.last, hit.timestamp);
        person.visit.last = Math.max(person.visit.last, hit.timestamp);
        person.visit.signals.push({
          day,
          page: pageOf(new URL(hit.url), site, hit.hash === true),
          engagedMs: Math.min(Math.round(hit.engagedMs), 6 * 3600 * 1000),
          scrollDepth: hit.scrollDepth,
          vitals: hit.vitals,
        });
      } else diagnostics.signalsIgnored++;
      continue;
    }

    const url = new URL(hit.url);
    const page = pageOf(url, site, hit.hash === true);
    const host = hostOf(url);
    const referrer = referrerHost(hit.referrer, site, url);
    const utm = utmOf(url);
    const isPageview = hit.event === undefined || hit.event.trim() === PAGEVIEW;
    const event = isPageview ? null : hit.event!.trim();

    const visitorKey = [site.key, day, hit.ip, hit.userAgent].join("\u0000");
    let seen = visitorDays.get(visitorKey);
    const agent = agents.parse(hit.userAgent);
    const place = geo.lookup(hit.ip);
    if (!seen) {
      visitorDays.set(visitorKey, (seen = new Set()));
      add(site.key, "visitors", day, day);
      add(site.key, "visitors_hours", day, hour);
      add(site.key, "browser", day, agent.browser);
      add(site.key, "os", day, agent.os);
      add(site.key, "device", day, agent.device);
      add(site.key, "browser_version", day, agent.browserVersion);
      add(site.key, "os_version", day, agent.osVersion);
      add(site.key, "country", day, place?.country ?? "");
      add(site.key, "continent", day, place?.continent ?? "");
      add(site.key, "city", day, place?.city ?? "");
      add(site.key, "region", day, place?.region ?? "");
    }

    // Rule 2 across midnight: a day's first hit sees the day before only within 30 minutes of midnight.
    const firstHitOfDay = person === undefined || person.lastHitDay !== day;
    const recognised =
      person !== undefined && (!firstHitOfDay || person.lastHitDay === localDayHour(site.timezone, hit.timestamp - THIRTY_MINUTES).day);
    const visit = person?.visit;
    const startsVisit =
      !recognised ||
      hit.timestamp - person.last >= THIRTY_MINUTES ||
      (referrer !== "" && referrer !== visit!.dims.referrer) ||
      (utm.utm_campaign !== "" && utm.utm_campaign !== visit!.dims.utm_campaign) ||
      host !== visit!.dims.hostname;
    if (person && hit.timestamp - person.last === THIRTY_MINUTES) diagnostics.gapsOfExactly30Minutes++;
    if (person && !recognised && hit.timestamp - person.last < THIRTY_MINUTES) diagnostics.newVisitsAfterSignalPastMidnight++;
    if (recognised && startsVisit && hit.timestamp - person.last < THIRTY_MINUTES) {
      if (referrer !== "" && referrer !== visit!.dims.referrer) diagnostics.visitsByReferrerChange++;
      else if (utm.utm_campaign !== "" && utm.utm_campaign !== visit!.dims.utm_campaign) diagnostics.visitsByCampaignChange++;
      else diagnostics.visitsByHostChange++;
    }
    if (!startsVisit && visit!.day !== day) diagnostics.visitsAcrossMidnight++;

    let current: ModelVisit;
    if (startsVisit) {
      const source = sourceOf(referrer, utm.utm_source);
      current = {
        site: site.key,
        visitor: visitorKey,
        start: hit.timestamp,
        day,
        hour,
        dims: {
          entry_page: page,
          exit_page: "",
          referrer,
          ...utm,
          browser: agent.browser,
          os: agent.os,
          device: agent.device,
          country: place?.country ?? "",
          continent: place?.continent ?? "",
          city: place?.city ?? "",
          region: place?.region ?? "",
          language: languageOf(hit.language),
          resolution: screenOf(hit.screen),
          source,
          channel: channelOf(source, utm, url),
          browser_version: agent.browserVersion,
          os_version: agent.osVersion,
          hostname: host,
        },
        pageviews: 0,
        events: 0,
        last: hit.timestamp,
        hits: [],
        signals: [],
      };
      visits.push(current);
      people.set(personKey, { last: hit.timestamp, lastHitDay: day, visit: current });
      add(site.key, "landing_page", day, page);
      add(site.key, "referrer", day, referrer);
      add(site.key, "campaign", day, utm.utm_campaign);
    } else {
      current = visit!;
      person!.last = Math.max(person!.last, hit.timestamp);
      person!.lastHitDay = day;
    }
    current.last = Math.max(current.last, hit.timestamp);

    once(seen, site.key, "resolution", day, "screen", screenOf(hit.screen));
    once(seen, site.key, "language", day, "language", languageOf(hit.language));

    const props = propsOf(hit.props);
    const revenue = hit.revenue
      ? { amount: Math.round(Number(hit.revenue.amount) * 10_000), currency: hit.revenue.currency.toUpperCase() }
      : null;
    current.hits.push({ time: hit.timestamp, day, hour, page, host, event, props, revenue });
    for (const [name, value] of props ?? []) add(site.key, propertyCounter(event ?? PAGEVIEW, name), day, value);
    if (isPageview) {
      current.pageviews++;
      current.dims.exit_page = page;
      add(site.key, "pageviews", day, day);
      add(site.key, "pageviews_hours", day, hour);
      add(site.key, "page", day, page);
      add(site.key, "hostname", day, host);
    } else {
      current.events++;
      add(site.key, "event", day, event!);
      once(seen, site.key, "goal_visitors", day, "goal", event!);
    }
  }

  // What a visit is counted as once all its hits are in, on the day it started.
  for (const visit of visits) {
    const { site, day } = visit;
    add(site, "visits", day, day);
    add(site, "bounces", day, day, Number(isBounce(visit)));
    add(site, "visit_duration", day, day, durationOf(visit));
    add(site, "visit_pageviews", day, day, visit.pageviews);
    add(site, "exit_page", day, visit.dims.exit_page);
    for (const field of ["utm_source", "utm_medium", "utm_content", "utm_term", "source", "channel"] as const)
      add(site, field, day, visit.dims[field]);
  }

  return {
    verdicts,
    diagnostics,
    counts,
    visits,
    rows: (site, name, from, to) => positiveRows(sumDays(counts.get(site)?.get(name), from, to)),
    rowsAfter(collected, site, name, from, to) {
      const snapshot = snapshots.get(collected);
      if (!snapshot) throw new Error(`no snapshot after ${collected} hits`);
      return positiveRows(sumDays(snapshot.get(site)?.get(name), from, to));
    },
  };
}

/** Code point order (SQLite's BINARY collation on UTF-8, Postgres "C"). */
export function compareValues(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

export interface ListQuery {
  search?: string;
  search_by?: "url" | "value";
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
