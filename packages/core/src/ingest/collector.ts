import { createDropLog, type RuleDropReason } from "./drop-log.js";
import { addDays } from "../shared/calendar.js";
import { NotFoundError, UnavailableError } from "../shared/errors.js";
import { wellFormed } from "../shared/text.js";
import { normalizeDomain, stripWww } from "../websites/domain.js";
import { loadRegions, locationOf, type GeoLocation, type GeoLookup } from "../enrich/geo.js";
import type { createUserAgentParser, UserAgentInfo } from "../enrich/user-agent.js";
import { PROP_VALUE_LENGTH, readValues } from "../model/dimensions.js";
import { checkHit, type CheckedHit, type HitInput, type KnownValues } from "../model/hit-input.js";
import { createLocalClock } from "../model/local-time.js";
import type { Hit } from "../model/hit.js";
import { channelOf, clickIdOf } from "../enrich/channels.js";
import { isReferrerSpam } from "../enrich/referrer-spam.js";
import { sourceOf } from "../enrich/sources.js";
import { campaignTagsOf, externalReferrer, pageOf, routePageOf } from "./page.js";
import type { OutageReport } from "./outage-log.js";
import type { EngineStore } from "../storage/store.js";
import { asStoreUnavailable } from "../storage/store-faults.js";
import type { Salts } from "./salts.js";
import { visitorHash } from "./salts.js";
import { VISIT_TIMEOUT_MS } from "./visit-processor.js";
import { isExcludedIp, type WebsiteRules, type createWebsiteCache } from "./website-rules.js";
import { createWriteQueue, type Chunk } from "./write-queue.js";
import { addressKey } from "../shared/client-address.js";

/**
 * Where a hit comes from, for the daily budgets of new values: a client (the tracker, or any
 * `collect`), the app's own server (`record`, server pageviews, conversions), or an import.
 */
export type HitOrigin = "client" | "server" | "import";

/** Where a hit's visitor hash takes a local day's salt from. */
type SaltOf = (day: string) => Promise<string>;

/** Property values as stored: cut to PROP_VALUE_LENGTH (never inside a surrogate pair). */
function truncatedValues(props: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(props))
    kept[name] = value.length > PROP_VALUE_LENGTH ? wellFormed(value.slice(0, PROP_VALUE_LENGTH)) : value;
  return kept;
}

/**
 * The visit's source and channel, from the referring host and the page URL's tags and click
 * id; a source an import knew by name stands in for `utm_source`.
 */
function acquisitionOf(referrer: string, tag: (name: string) => string, hit: CheckedHit): { source: string; channel: string } {
  const utmSource = hit.known?.source || tag("utm_source");
  const source = sourceOf(referrer, utmSource);
  return {
    source,
    channel: channelOf({ source, utmSource, utmMedium: tag("utm_medium"), utmCampaign: tag("utm_campaign"), clickId: clickIdOf(hit.url) }),
  };
}

/** What an import knew of the browser, OS and device, else the user agent's; a version only where the name agrees. */
function knownAgent(known: KnownValues, parsed: UserAgentInfo): UserAgentInfo {
  const browser = known.browser || parsed.browser;
  const os = known.os || parsed.os;
  return {
    browser,
    os,
    device: known.device || parsed.device,
    browserVersion: known.browserVersion || (browser === parsed.browser ? parsed.browserVersion : ""),
    osVersion: known.osVersion || (os === parsed.os ? parsed.osVersion : ""),
  };
}

/** A hit checked and enriched, or why it is dropped. */
type Prepared = Hit | Extract<CollectResult, { status: "dropped" }>;

/** `counted`: a tracker pageview whose view the app's server counted already (docs/statistics.md, "Server-side pageviews"). */
export type CollectResult = { status: "accepted" } | { status: "dropped"; reason: "bot" | "referrer-spam" | "excluded-ip" | "counted" };

export interface CollectorOptions {
  store: EngineStore;
  salts: Salts;
  websites: ReturnType<typeof createWebsiteCache>;
  userAgents: ReturnType<typeof createUserAgentParser>;
  geo: GeoLookup | null;
  /** @default 1000 */
  flushIntervalMs?: number;
  /** A flush starts as soon as this many hits wait. @default 20000 */
  batchSize?: number;
  /** Past this many waiting hits (a slow or failing store), collect refuses with UnavailableError. @default 200000 */
  maxBufferedHits?: number;
  /** Told of every failed write (they are retried). */
  onFlushError?: ((error: unknown) => void) | undefined;
  /** Told of failed writes and of recoveries, at most a line a minute (the default log). */
  outageReport?: OutageReport | undefined;
  /**
   * Put before every visitor hash. Imports use `~<import id>:` so their visitor rows are
   * kept by salt rotation (which deletes only hashes below `~`) until the import removes them.
   * @default ""
   */
  visitorPrefix?: string;
  /**
   * Delete salts and visitor rows too old to matter as the clock of counted hits moves on.
   * Imports turn it off: their hits are old, and their salts live in memory.
   * @default true
   */
  rotateSalts?: boolean;
  /**
   * How long `close()` keeps retrying a write the store refuses (a SQLite file locked
   * by another connection, PostgreSQL down) before it gives up. @default 30000
   */
  closeTimeoutMs?: number;
  /**
   * Keeps the hits `close()` could not write (in a file, written at the next start) and
   * answers where; without it, `close()` rejects saying how many were not written.
   */
  spill?: ((chunks: readonly Chunk[]) => Promise<string>) | undefined;
  /** Imports: every hit is the import's. @default hits come from clients unless `collect` says the server */
  origin?: "import";
}

/** Clients whose source (the hash their new values are budgeted under) is remembered. */
const RECENT_SOURCES = 4096;

/** Conversions remembered for deduplication (each for a visit's length). */
const MAX_CONVERSIONS = 100_000;

const unavailable = (error: unknown): Promise<never> => Promise.reject(asStoreUnavailable(error));

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createCollector(options: CollectorOptions) {
  const { store, salts, websites, userAgents, geo } = options;
  const localTime = createLocalClock();
  let rotatedForDay = "";
  let clock = 0;
  const deleted = new Set<number>();
  const drops = createDropLog();
  const queue = createWriteQueue({
    store,
    ...(options.flushIntervalMs === undefined ? {} : { flushIntervalMs: options.flushIntervalMs }),
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    ...(options.maxBufferedHits === undefined ? {} : { maxBufferedHits: options.maxBufferedHits }),
    report: options.outageReport,
    onError: options.onFlushError,
    isDeleted: (websiteId) => deleted.has(websiteId),
    async written(hits) {
      for (const hit of hits) clock = Math.max(clock, hit.timestamp);
      await rotateSalts();
    },
  });

  /** The hit's website: at once while its rules are cached (almost every hit), else once they are loaded. */
  function rulesFor(hit: CheckedHit): WebsiteRules | Promise<WebsiteRules> {
    const domain = hit.website === null ? stripWww(hit.url.hostname) : normalizeDomain(hit.website);
    if (domain === null) throw new NotFoundError("No website is registered for this domain.");
    const known = (rules: WebsiteRules | null) => {
      if (rules) return rules;
      drops.unknown(hit.url, domain);
      throw new NotFoundError("No website is registered for this host.");
    };
    const cached = websites.get(domain);
    return cached === undefined ? websites.load(domain).then(known) : known(cached);
  }

  async function saltFor(day: string): Promise<string> {
    return salts.peek(day) ?? (await salts.forDay(day));
  }

  const prefix = options.visitorPrefix ?? "";

  /** The person's visitor hash with a day's salt; an import's visitor key stands for (ip, user agent). */
  const hashWith = (salt: string, rules: WebsiteRules, hit: CheckedHit) =>
    prefix +
    (hit.visitorKey === null ? visitorHash(salt, rules.id, hit.ip, hit.userAgent) : visitorHash(salt, rules.id, "", hit.visitorKey));

  /**
   * The visitor hash of the same person on another local day: at once with a salt this
   * process holds (almost every hit), else once the salt is loaded.
   */
  function hashOn(day: string, rules: WebsiteRules, hit: CheckedHit, saltOf: SaltOf): string | Promise<string> {
    const salt = salts.peek(day);
    return salt === undefined ? saltOf(day).then((loaded) => hashWith(loaded, rules, hit)) : hashWith(salt, rules, hit);
  }

  /** Where the hit comes from: what an import knew, else the geo database's answer for the address. */
  function placeOf(hit: CheckedHit): GeoLocation | null {
    if (hit.known?.country) return locationOf(hit.known.country, hit.known.city, hit.known.region);
    return hit.ip === "" ? null : (geo?.lookup(hit.ip) ?? null);
  }

  /**
   * The sources of recent clients, by local day and website, then by address: a client sends
   * several hits a visit, each would hash its address again.
   */
  const recentSources = new Map<string, Map<string, string>>();
  let recentCount = 0;

  /** A client's values are budgeted per address (an IPv6 client's /64), named by a hash with the day's salt; at once when recent. */
  function sourceOf(origin: HitOrigin, day: string, rules: WebsiteRules, hit: CheckedHit): string | Promise<string> {
    if (origin !== "client") return origin;
    const client = hit.ip === "" ? `key:${hit.visitorKey ?? ""}` : hit.ip;
    const siteDay = `${day} ${rules.id}`;
    const known = recentSources.get(siteDay)?.get(client);
    if (known !== undefined) return known;
    const remember = (salt: string) => {
      const source = `c:${visitorHash(salt, rules.id, hit.ip === "" ? client : addressKey(hit.ip), "")}`;
      if (recentCount >= RECENT_SOURCES) {
        recentSources.clear();
        recentCount = 0;
      }
      let clients = recentSources.get(siteDay);
      if (!clients) recentSources.set(siteDay, (clients = new Map()));
      clients.set(client, source);
      recentCount++;
      return source;
    };
    const salt = salts.peek(day);
    return salt === undefined ? saltFor(day).then(remember) : remember(salt);
  }

  /**
   * `referrer`: the external referring host, "" when direct or internal; `host`: the page's.
   * At once where the salts are held (a hit then waits on nothing), else once they are loaded.
   */
  function enrich(
    hit: CheckedHit,
    rules: WebsiteRules,
    { referrer, host, origin, saltOf = saltFor }: { referrer: string; host: string; origin: HitOrigin; saltOf?: SaltOf },
  ): Hit | Promise<Hit> {
    const { day, hour, seconds } = localTime(rules.timezone, hit.timestamp);
    const engagement = hit.engagedMs !== null;
    // Yesterday's hash near midnight (a visit may continue), always for engagement (it may
    // belong to yesterday's visit); tomorrow's near midnight (a later hit may be counted already).
    const dayBefore = engagement ? addDays(day, -1) : localTime(rules.timezone, hit.timestamp - VISIT_TIMEOUT_MS).day;
    const dayAfter = localTime(rules.timezone, hit.timestamp + VISIT_TIMEOUT_MS).day;
    const parsed = userAgents.parse(hit.userAgent);
    const agent = hit.known ? knownAgent(hit.known, parsed) : parsed;
    const tag = campaignTagsOf(hit.url);
    // Each at once where the salts are held, else all awaited together.
    const keys = [
      hashOn(day, rules, hit, saltOf),
      dayBefore === day ? null : hashOn(dayBefore, rules, hit, saltOf),
      dayAfter === day || engagement ? null : hashOn(dayAfter, rules, hit, saltOf),
      sourceOf(origin, day, rules, hit),
    ];
    const build = ([today, before, after, source]: (string | null)[]): Hit => ({
      kind: engagement ? "engagement" : hit.event === null ? "pageview" : "event",
      websiteId: rules.id,
      timestamp: hit.timestamp,
      localTime: seconds,
      day,
      hour,
      visitorHash: today!,
      previousVisitorHash: before ?? null,
      nextVisitorHash: after ?? null,
      engagedMs: hit.engagedMs ?? 0,
      scrollDepth: hit.scrollDepth,
      vitals: hit.vitals,
      props: hit.props && truncatedValues(hit.props),
      ...(hit.revenue === null ? {} : { revenue: hit.revenue }),
      source: source!,
      values: readValues({
        page: rules.pageNames === "route" ? routePageOf(hit.url, hit.route) : pageOf(hit.url, rules.params, hit.hash),
        host,
        referrer,
        tag,
        acquisition: acquisitionOf(referrer, tag, hit),
        agent,
        place: placeOf(hit),
        language: hit.language,
        screen: hit.screen,
        event: hit.event ?? "",
      }),
    });
    return keys.some((key) => key instanceof Promise) ? Promise.all(keys).then(build) : build(keys as (string | null)[]);
  }

  /**
   * The hit checked and enriched (no raw address left in it), or why it is dropped: at once
   * when nothing needs loading (its website's rules, the day's salts), so that a hit costs
   * no turn of the event loop; a promise otherwise.
   */
  function prepare(input: HitInput, from: "client" | "server", saltOf: SaltOf = saltFor): Prepared | Promise<Prepared> {
    const hit = checkHit(input);
    if (hit.known?.region) return loadRegions().then(() => prepareFor(hit, rulesFor(hit), from, saltOf));
    return prepareFor(hit, rulesFor(hit), from, saltOf);
  }

  function prepareFor(
    hit: CheckedHit,
    rules: WebsiteRules | Promise<WebsiteRules>,
    from: "client" | "server",
    saltOf: SaltOf,
  ): Prepared | Promise<Prepared> {
    if (rules instanceof Promise) return rules.then((loaded) => prepareFor(hit, loaded, from, saltOf));
    const drop = (reason: RuleDropReason) => {
      drops.record(rules.id, hit.url, reason);
      return { status: "dropped" as const, reason };
    };
    if (rules.excludeBots && userAgents.isBot(hit.userAgent)) return drop("bot");
    const host = stripWww(hit.url.hostname);
    // Counting its subdomains, each host is a site of its own: another host of the website refers.
    const referrer = externalReferrer(hit.referrer, rules.includeSubdomains ? host : rules.domain);
    if (rules.excludeBots && isReferrerSpam(referrer)) return drop("referrer-spam");
    if (hit.ip !== "" && isExcludedIp(rules, hit.ip)) return drop("excluded-ip");
    return enrich(hit, rules, { referrer, host, origin: options.origin ?? from, saltOf });
  }

  /** The hit counted or dropped: at once when nothing needs loading and the queue takes it without waiting (almost every hit). */
  function count(input: HitInput, from: "client" | "server"): CollectResult | Promise<CollectResult> {
    const ready = prepare(input, from);
    return ready instanceof Promise ? ready.then((prepared) => admit(input, prepared)) : admit(input, ready);
  }

  function admit(input: HitInput, prepared: Prepared): CollectResult | Promise<CollectResult> {
    if ("status" in prepared) return prepared;
    if (prepared.kind === "event" && conversions.has(conversionKey(prepared))) {
      drops.record(prepared.websiteId, new URL(input.url), "counted");
      return { status: "dropped", reason: "counted" };
    }
    queue.admit();
    const added = queue.add(prepared);
    return added === undefined ? { status: "accepted" } : added.then(() => ({ status: "accepted" }));
  }

  /**
   * A database that cannot answer (a website's rules, a day's salt) is a 503 to retry, never a 500.
   * `from`: `server` for what the app's own server saw (its values have a budget of their own).
   * One promise per hit: the steps under it answer at once when they can.
   */
  function collect(input: HitInput, from: "client" | "server" = "client"): Promise<CollectResult> {
    try {
      const counted = count(input, from);
      return counted instanceof Promise ? counted.catch(unavailable) : Promise.resolve(counted);
    } catch (error) {
      return unavailable(error);
    }
  }

  /** Events the app wrote in its own transactions lately, by visitor and name: the browser's same event is not a second one. */
  const conversions = new Map<string, number>();
  const conversionKey = (hit: Hit) => `${hit.websiteId}\n${hit.visitorHash}\n${hit.values.event}`;
  function rememberConversion(hit: Hit): void {
    const now = Date.now();
    for (const [key, expires] of conversions) {
      if (expires > now && conversions.size < MAX_CONVERSIONS) break;
      conversions.delete(key);
    }
    conversions.delete(conversionKey(hit));
    conversions.set(conversionKey(hit), now + VISIT_TIMEOUT_MS);
  }

  // Salts older than two days are deleted as the clock of counted hits moves on
  // (the newest hit's time: wall time live, import time during a chronological import).
  async function rotateSalts(): Promise<void> {
    if (options.rotateSalts === false) return;
    const today = new Date(clock).toISOString().slice(0, 10);
    if (clock === 0 || today === rotatedForDay) return;
    rotatedForDay = today;
    // Addresses are not kept past their day, even in memory.
    recentSources.clear();
    recentCount = 0;
    await salts.rotate(clock);
  }

  return {
    collect,
    /**
     * A conversion (ingest/outbox.ts): the event checked and enriched for the app's own
     * transaction to store; from now on the browser's same event by the same visitor is dropped.
     */
    async prepareConversion(input: HitInput, saltOf: SaltOf): Promise<Hit | Extract<CollectResult, { status: "dropped" }>> {
      try {
        // A salt already loaded is used as is; another is read through the app's transaction (`saltOf`).
        const prepared = await prepare(input, "server", (day) => Promise.resolve(salts.peek(day) ?? saltOf(day)));
        if (!("status" in prepared)) rememberConversion(prepared);
        return prepared;
      } catch (error) {
        throw asStoreUnavailable(error);
      }
    },
    flush: () => queue.flush(),
    settleForRead: () => queue.settleForRead(),
    health: (probe: boolean) => queue.health(probe),
    refuseIfReplaced: () => queue.refuseIfReplaced(),
    /** The hits dropped lately that concern a website (its rules', unknown hosts near its domain), newest first (ingest/drop-log.ts). */
    recentDrops: (websiteId: number, domain: string) => drops.recent(websiteId, domain),
    get buffered() {
      return queue.buffered;
    },
    forgetWebsite(websiteId: number, domain: string): void {
      websites.forget(domain);
      deleted.add(websiteId);
      drops.forget(websiteId);
    },
    forgetDomain(domain: string): void {
      websites.forget(domain);
    },
    /**
     * Writes everything buffered, retrying a refused write until `closeTimeoutMs` has
     * passed; what is still unwritten then is spilled (and resolves), or without a spill
     * rejects with an UnavailableError saying how many hits were not written.
     */
    async close(): Promise<void> {
      const timeoutMs = options.closeTimeoutMs ?? 30_000;
      const { left, lastError } = await queue.drain(timeoutMs);
      const unwritten = left.reduce((total, chunk) => total + chunk.hits.length, 0);
      if (unwritten === 0) return;
      const cause = lastError === null ? "the write did not finish" : messageOf(lastError);
      if (!options.spill) throw new UnavailableError(`close(): ${unwritten} hits could not be written within ${timeoutMs} ms (${cause}).`);
      const file = await options.spill(left);
      console.warn(`tally: ${unwritten} hits could not be written (${cause}); kept in ${file}, to be written at the next start`);
    },
  };
}
