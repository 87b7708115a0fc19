import { addDays } from "../calendar.js";
import { NotFoundError, UnavailableError } from "../errors.js";
import { stripWww } from "../websites/domain.js";
import { locationOf, type GeoLocation, type GeoLookup } from "../enrich/geo.js";
import type { createUserAgentParser } from "../enrich/user-agent.js";
import { PROP_VALUE_LENGTH } from "./dimensions.js";
import { checkHit, type CheckedHit, type HitInput } from "./hit-input.js";
import { createLocalClock } from "./local-time.js";
import { externalReferrer, pageOf, utmOf } from "./page.js";
import type { PendingHit } from "./pending-hit.js";
import type { EngineStore } from "./store.js";
import type { Salts } from "./salts.js";
import { visitorHash } from "./salts.js";
import { VISIT_TIMEOUT_MS } from "./visit-processor.js";
import { isExcludedIp, type WebsiteRules, type createWebsiteCache } from "./website-rules.js";

/** Property values as stored: cut to PROP_VALUE_LENGTH. */
function truncatedValues(props: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(props)) kept[name] = value.slice(0, PROP_VALUE_LENGTH);
  return kept;
}

export type CollectResult = { status: "accepted" } | { status: "dropped"; reason: "bot" | "excluded-ip" };

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
  onFlushError?: (error: unknown) => void;
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
   * by another connection, PostgreSQL down) before it rejects. @default 30000
   */
  closeTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));


export function createCollector(options: CollectorOptions) {
  const { store, salts, websites, userAgents, geo } = options;
  const batchSize = options.batchSize ?? 20_000;
  const maxBuffered = options.maxBufferedHits ?? 200_000;
  const localTime = createLocalClock();
  let buffer: PendingHit[] = [];
  let flushing: Promise<void> | null = null;
  /** Hits of the batch being written that are not written yet. */
  let inFlight = 0;
  let rotatedForDay = "";
  let clock = 0;
  const deleted = new Set<number>();

  const timer = setInterval(() => {
    if (buffer.length > 0) flush().catch(() => {});
  }, options.flushIntervalMs ?? 1000);
  timer.unref();

  async function rulesFor(host: string): Promise<WebsiteRules> {
    const domain = stripWww(host);
    const cached = websites.get(domain);
    const rules = cached === undefined ? await websites.load(domain) : cached;
    if (!rules) throw new NotFoundError("No website is registered for this host.");
    return rules;
  }

  async function saltFor(day: string): Promise<string> {
    return salts.peek(day) ?? (await salts.forDay(day));
  }

  const prefix = options.visitorPrefix ?? "";

  /** The visitor hash of the same person on another local day (that day's salt); an import's visitor key stands for (ip, user agent). */
  async function hashOn(day: string, rules: WebsiteRules, hit: CheckedHit): Promise<string> {
    const salt = await saltFor(day);
    return prefix + (hit.visitorKey === null ? visitorHash(salt, rules.id, hit.ip, hit.userAgent) : visitorHash(salt, rules.id, "", hit.visitorKey));
  }

  /** Where the hit comes from: what an import knew, else the geo database's answer for the address. */
  function placeOf(hit: CheckedHit): GeoLocation | null {
    if (hit.known?.country) return locationOf(hit.known.country, hit.known.city);
    return hit.ip === "" ? null : (geo?.lookup(hit.ip) ?? null);
  }

  async function enrich(hit: CheckedHit, rules: WebsiteRules): Promise<PendingHit> {
    const { day, hour, seconds } = localTime(rules.timezone, hit.timestamp);
    const engagement = hit.engagedMs !== null;
    // Yesterday's hash near midnight (a visit may continue), always for engagement (it may
    // belong to yesterday's visit); tomorrow's near midnight (a later hit may be counted already).
    const dayBefore = engagement ? addDays(day, -1) : localTime(rules.timezone, hit.timestamp - VISIT_TIMEOUT_MS).day;
    const dayAfter = localTime(rules.timezone, hit.timestamp + VISIT_TIMEOUT_MS).day;
    const parsed = userAgents.parse(hit.userAgent);
    const agent = hit.known ? { browser: hit.known.browser || parsed.browser, os: hit.known.os || parsed.os, device: hit.known.device || parsed.device } : parsed;
    const place = placeOf(hit);
    return {
      kind: engagement ? "engagement" : hit.event === null ? "pageview" : "event",
      websiteId: rules.id,
      timestamp: hit.timestamp,
      localTime: seconds,
      day,
      hour,
      visitor: await hashOn(day, rules, hit),
      previousVisitor: dayBefore === day ? null : await hashOn(dayBefore, rules, hit),
      nextVisitor: dayAfter === day || engagement ? null : await hashOn(dayAfter, rules, hit),
      event: hit.event,
      engagedMs: hit.engagedMs ?? 0,
      props: hit.props && truncatedValues(hit.props),
      page: pageOf(hit.url, rules.params, hit.hash),
      referrer: externalReferrer(hit.referrer, rules.domain),
      utm: utmOf(hit.url),
      browser: agent.browser,
      os: agent.os,
      device: agent.device,
      country: place?.country ?? "",
      continent: place?.continent ?? "",
      city: place?.city ?? "",
      screen: hit.screen,
      language: hit.language,
    };
  }

  async function collect(input: HitInput): Promise<CollectResult> {
    const hit = checkHit(input);
    const rules = await rulesFor(hit.url.hostname);
    if (rules.excludeBots && userAgents.isBot(hit.userAgent)) return { status: "dropped", reason: "bot" };
    if (hit.ip !== "" && isExcludedIp(rules, hit.ip)) return { status: "dropped", reason: "excluded-ip" };
    // Hits handed to the store but not yet written wait too: they count against the bound.
    if (buffer.length + inFlight >= maxBuffered) throw new UnavailableError("Too many hits are waiting to be written; try again shortly.");

    // Enriched before `buffer` is read: a flush may swap the buffer during the awaits, and
    // `buffer.push(await …)` would push into the batch being written (counted twice).
    const pending = await enrich(hit, rules);
    buffer.push(pending);
    if (buffer.length >= batchSize) {
      const written = flush().catch(() => {});
      // One batch may wait while another is being written; past that, callers wait
      // for the writes (back-pressure keeps memory bounded without refusing anything).
      if (buffer.length >= 2 * batchSize) await written;
    }
    return { status: "accepted" };
  }

  /** Writes one chunk: its visitor states and counters together, atomically. */
  async function writeChunk(chunk: PendingHit[]): Promise<void> {
    const hits = deleted.size === 0 ? chunk : chunk.filter((hit) => !deleted.has(hit.websiteId));
    if (hits.length > 0) await store.write(hits);
    for (const hit of hits) clock = Math.max(clock, hit.timestamp);
  }

  /**
   * Writes everything buffered, in order, in writes of at most `store.maxHitsPerWrite`
   * hits with a turn of the event loop between them (a synchronous store never blocks
   * the host for a whole batch). A failed write puts back only the hits not yet
   * written, at the front of the queue, so nothing is counted twice or lost.
   */
  async function flushOnce(): Promise<void> {
    const batch = buffer;
    buffer = [];
    inFlight = batch.length;
    const step = store.maxHitsPerWrite ?? batch.length;
    let written = 0;
    try {
      while (written < batch.length) {
        if (written > 0) await new Promise((resolve) => setImmediate(resolve));
        const end = Math.min(batch.length, written + step);
        await writeChunk(written === 0 && end === batch.length ? batch : batch.slice(written, end));
        written = end;
        inFlight = batch.length - written;
      }
    } catch (error) {
      inFlight = 0;
      buffer = batch.slice(written).concat(buffer);
      options.onFlushError?.(error);
      throw error;
    }
    await rotateSalts();
  }

  // Salts older than two days are deleted as the clock of counted hits moves on
  // (the newest hit's time: wall time live, import time during a chronological import).
  async function rotateSalts(): Promise<void> {
    if (options.rotateSalts === false) return;
    const today = new Date(clock).toISOString().slice(0, 10);
    if (clock === 0 || today === rotatedForDay) return;
    rotatedForDay = today;
    await salts.rotate(clock);
  }

  function flush(): Promise<void> {
    if (flushing) return flushing;
    // The run is cleared in a `.finally` callback, which always runs after this
    // assignment: clearing it inside the async body would run synchronously when the
    // buffer is empty, before `flushing` is assigned, and leave a settled promise
    // behind that every later flush would return without writing anything.
    const run: Promise<void> = (async () => {
      while (buffer.length > 0) await flushOnce();
    })().finally(() => {
      if (flushing === run) flushing = null;
    });
    flushing = run;
    return run;
  }

  return {
    collect,
    flush,
    get buffered() {
      return buffer.length;
    },
    forgetWebsite(websiteId: number, domain: string): void {
      websites.forget(domain);
      deleted.add(websiteId);
    },
    forgetDomain(domain: string): void {
      websites.forget(domain);
    },
    /**
     * Writes everything buffered, retrying a refused write until `closeTimeoutMs` has
     * passed; then rejects with an UnavailableError saying how many hits were not written.
     */
    async close(): Promise<void> {
      clearInterval(timer);
      const timeoutMs = options.closeTimeoutMs ?? 30_000;
      const deadline = Date.now() + timeoutMs;
      let lastError: unknown = null;
      for (let attempt = 0; attempt === 0 || Date.now() < deadline; attempt++) {
        if (attempt > 0) await sleep(Math.min(deadline - Date.now(), 100 * 2 ** Math.min(attempt - 1, 4)));
        const attempted = flush().then(
          () => true,
          (error: unknown) => {
            lastError = error;
            return false;
          },
        );
        // An attempt may wait on a lock (SQLite's busy_timeout) or a connection: never past the deadline.
        let expire: NodeJS.Timeout | undefined;
        const expired = new Promise<null>((resolve) => (expire = setTimeout(resolve, Math.max(0, deadline - Date.now()), null)));
        const outcome = await Promise.race([attempted, expired]);
        clearTimeout(expire);
        if (outcome === true) return;
        if (outcome === null) break;
      }
      const unwritten = buffer.length + inFlight;
      if (unwritten === 0) return;
      const cause = lastError === null ? "the write did not finish" : messageOf(lastError);
      throw new UnavailableError(`close(): ${unwritten} hits could not be written within ${timeoutMs} ms (${cause}).`);
    },
  };
}

export type Collector = ReturnType<typeof createCollector>;
