import { ipVersion } from "../shared/client-address.js";
import { FIRST_DAY, isTimeInDomain, LAST_DAY } from "../shared/calendar.js";
import { ValidationError } from "../shared/errors.js";
import { storableText, wellFormed } from "../shared/text.js";
import { PAGEVIEW_EVENT } from "./dimensions.js";
import { checkRevenue, type Revenue, type RevenueInput } from "./revenue.js";

/** One pageview or event, as the tracker (or an import) reports it. */
export interface HitInput {
  /** The page URL; its host picks the website unless `website` names it. */
  url: string;
  /**
   * The website's domain when the tracker names it rather than leaving it to the page's
   * host (another tool's tracker: Plausible's `d`); written as a website's domain is.
   */
  website?: string | null | undefined;
  referrer?: string | null | undefined;
  /** `WxH` */
  screen?: string | null | undefined;
  language?: string | null | undefined;
  /** Event name; absent (or `pageview`, Plausible's name for it) for a pageview. */
  event?: string | null | undefined;
  /** The event's or the pageview's properties. */
  props?: Record<string, string | number | boolean> | null | undefined;
  /** An event's revenue: an amount and its ISO 4217 currency (docs/revenue.md). */
  revenue?: RevenueInput | null | undefined;
  /** The site uses hash routing: the fragment is part of the page. */
  hash?: boolean | null | undefined;
  /** The client's address; may be left out when `visitorKey` names the visitor. */
  ip?: string | undefined;
  userAgent: string;
  /**
   * Imports: who the visitor is, instead of (ip, userAgent): the session id the other
   * tool recorded. Hashed with the day's salt like an address, never stored as given.
   */
  visitorKey?: string | null | undefined;
  /** Imports: what the other tool already knew of the visitor, used instead of parsing `userAgent` or looking up `ip`. */
  known?: KnownValues | null | undefined;
  /** When it happened (imports, tests); defaults to now. */
  timestamp?: Date | number | undefined;
  /**
   * Milliseconds the page was visible and focused: makes this an engagement signal
   * (docs/statistics.md) rather than a pageview. Not allowed with `event`.
   */
  engagedMs?: number | null | undefined;
  /** With an engagement signal: the deepest percentage of the page seen, an integer 0–100. */
  scrollDepth?: number | null | undefined;
  /** With an engagement signal: the pageview's web vitals (each optional; milliseconds, CLS a score). */
  vitals?: WebVitals | null | undefined;
  /**
   * A pageview's server mark (`Server-Timing: tally;desc=<mark>` on the page's response):
   * the pageview completes the one the app's server counted (docs/statistics.md,
   * "Server-side pageviews") instead of counting again.
   */
  view?: string | null | undefined;
  /**
   * The route template the app's server answered the page with (`/orders/:id`, the
   * middleware): the page's name on a website with `page_names: "route"`.
   */
  route?: string | null | undefined;
}

/** A pageview's web vitals as the browser measured them: LCP, INP, FCP, TTFB in milliseconds, CLS a score. */
export interface WebVitals {
  lcp?: number | null | undefined;
  inp?: number | null | undefined;
  cls?: number | null | undefined;
  fcp?: number | null | undefined;
  ttfb?: number | null | undefined;
}

/** The web vitals, in the order they are stored and listed. */
export const VITALS = ["lcp", "inp", "cls", "fcp", "ttfb"] as const;
export type Vital = (typeof VITALS)[number];

/** A signal's vitals as checked: each a finite number within its bound, null when not measured. */
export type CheckedVitals = Record<Vital, number | null>;

/** Values an import brings along; "" (or absent) means unknown. */
export interface KnownValues {
  /** As Tally names them (ua-parser-js): `Chrome`, `Mobile Safari`, `Windows`, `Mac OS`. */
  browser?: string;
  os?: string;
  /** `desktop`, `mobile`, `tablet`… */
  device?: string;
  /** ISO 3166-1 alpha-2 code, `US`. */
  country?: string;
  /** The city's English name (with `country`). */
  city?: string;
  /** The ISO 3166-2 code of the region (`US-TX`, with `country`). */
  region?: string;
  /** A source the tool named without a host (GoatCounter's generated referrers, `Email`): stands in for `utm_source`. */
  source?: string;
  /** `Chrome 120`, `Mac OS 14.1`, as the browser_version and os_version statistics name them. */
  browserVersion?: string;
  osVersion?: string;
}

export const LIMITS = {
  url: 2048,
  website: 253,
  referrer: 2048,
  event: 200,
  props: 30,
  propKey: 200,
  propValue: 500,
  userAgent: 1024,
  /** Longest engagement one signal may report: six hours. */
  engagedMs: 6 * 3600 * 1000,
  /**
   * Largest vital accepted: ten minutes for the timings (a page slower than that is a
   * broken measurement, not a slow page), 10 for CLS (real pages stay far below 1).
   */
  vitals: { lcp: 600_000, inp: 600_000, cls: 10, fcp: 600_000, ttfb: 600_000 },
} as const;

const SCREEN = /^(\d{1,5})x(\d{1,5})$/;
const LANGUAGE = /^([a-zA-Z]{2,3})(?:[-_][a-zA-Z0-9]{1,8})*$/;

export interface CheckedHit {
  /** Shared with the other hits of the same URL text: read it, never change it. */
  url: URL;
  /** The website the tracker named; null: the page's host. */
  website: string | null;
  referrer: string;
  screen: string;
  language: string;
  event: string | null;
  props: Record<string, string> | null;
  revenue: Revenue | null;
  hash: boolean;
  /** "" when an import names the visitor by `visitorKey` instead. */
  ip: string;
  userAgent: string;
  visitorKey: string | null;
  known: KnownValues | null;
  timestamp: number;
  /** Engagement signal's milliseconds (capped); null for a pageview or event. */
  engagedMs: number | null;
  /** An engagement signal's scroll depth (0–100); null when not sent. */
  scrollDepth: number | null;
  /** An engagement signal's web vitals; null when not sent. */
  vitals: CheckedVitals | null;
  /** The route template the app's server answered with; null when unknown. */
  route: string | null;
}

const invalid = (field: string, message: string) => ValidationError.field(field, message);

/** Page URLs parsed lately, kept at most (those of up to MAX_KEPT_LENGTH characters): a site's hits name the same pages again and again. */
const MAX_PARSED_URLS = 1024;
const MAX_KEPT_LENGTH = 512;
const parsedUrls = new Map<string, URL>();

/** The URL of this text, parsed once while it is among the recent ones (shared between hits: never changed). */
function parsedUrl(text: string): URL | null {
  let url = parsedUrls.get(text);
  if (url === undefined) {
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    if (text.length > MAX_KEPT_LENGTH) return url;
    if (parsedUrls.size >= MAX_PARSED_URLS) parsedUrls.clear();
    parsedUrls.set(text, url);
  }
  return url;
}

/** Checks a hit's shape; fields that only enrich (screen, language) are dropped when malformed. */
export function checkHit(input: HitInput): CheckedHit {
  if (typeof input.url !== "string" || input.url.length > LIMITS.url) throw invalid("u", "The page URL is missing or too long.");
  const url = parsedUrl(input.url);
  if (url === null) throw invalid("u", "The page URL is not a valid URL.");
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("u", "The page URL must be http or https.");
  const ip = typeof input.ip !== "string" ? "" : input.ip.startsWith("::") ? input.ip.replace(/^::ffff:(?=\d+\.)/, "") : input.ip;
  const visitorKey = typeof input.visitorKey === "string" && input.visitorKey !== "" ? input.visitorKey : null;
  if (ipVersion(ip) === 0 && !(visitorKey !== null && ip === "")) throw invalid("ip", "The client IP is not an IP address.");
  const timestamp = input.timestamp === undefined ? Date.now() : Number(input.timestamp);
  if (!Number.isFinite(timestamp)) throw invalid("timestamp", "The timestamp is not a valid time.");
  if (!isTimeInDomain(timestamp)) throw invalid("timestamp", `The timestamp must fall between ${FIRST_DAY} and ${LAST_DAY}.`);
  return {
    url,
    website: checkWebsite(input.website),
    referrer: typeof input.referrer === "string" ? input.referrer.slice(0, LIMITS.referrer) : "",
    screen: typeof input.screen === "string" && SCREEN.test(input.screen) ? input.screen : "",
    language: typeof input.language === "string" ? (LANGUAGE.exec(input.language)?.[1]?.toLowerCase() ?? "") : "",
    event: checkEvent(input.event),
    props: checkProps(input.props),
    revenue: checkRevenue(input.revenue, checkEvent(input.event)),
    hash: input.hash === true,
    ip,
    userAgent: typeof input.userAgent === "string" ? input.userAgent.slice(0, LIMITS.userAgent) : "",
    visitorKey,
    known: checkKnown(input.known),
    timestamp,
    engagedMs: checkEngagement(input.engagedMs, input.event),
    // Most hits carry neither: one comparison each, no work.
    scrollDepth: input.scrollDepth === undefined || input.scrollDepth === null ? null : checkScrollDepth(input),
    vitals: input.vitals === undefined || input.vitals === null ? null : checkVitals(input),
    route: checkRoute(input.route),
  };
}

function checkWebsite(website: unknown): string | null {
  if (website === undefined || website === null) return null;
  if (typeof website !== "string" || website === "" || website.length > LIMITS.website) {
    throw invalid("website", `The website must be a domain of 1 to ${LIMITS.website} characters.`);
  }
  return website;
}

/** A route template is a path: `/` first, no control characters, at most as long as a URL. */
function checkRoute(route: unknown): string | null {
  if (route === undefined || route === null) return null;
  if (typeof route !== "string" || !route.startsWith("/") || route.length > LIMITS.url || storableText(route) !== route) {
    throw invalid("route", "The route must be a path template of at most 2048 characters, starting with /.");
  }
  return route;
}

/** Known values as stored: no control characters, trimmed, at most 200 characters; a country is two letters. */
function checkKnown(known: KnownValues | null | undefined): KnownValues | null {
  if (!known) return null;
  const clean = (value: unknown) => (typeof value === "string" ? wellFormed(storableText(value).trim().slice(0, 200)) : "");
  const country = clean(known.country).toUpperCase();
  return {
    browser: clean(known.browser),
    os: clean(known.os),
    device: clean(known.device),
    country: /^[A-Z]{2}$/.test(country) ? country : "",
    city: clean(known.city),
    region: clean(known.region),
    source: clean(known.source),
    browserVersion: clean(known.browserVersion),
    osVersion: clean(known.osVersion),
  };
}

function checkEngagement(engagedMs: unknown, event: unknown): number | null {
  if (engagedMs === undefined || engagedMs === null) return null;
  if (typeof engagedMs !== "number" || !Number.isFinite(engagedMs) || engagedMs < 0) {
    throw invalid("e", "The engaged time must be a number of milliseconds, 0 or more.");
  }
  if (event !== undefined && event !== null) throw invalid("e", "An engagement signal has no event name.");
  return Math.min(Math.round(engagedMs), LIMITS.engagedMs);
}

/** Scroll depth rides on an engagement signal only (it is measured when the page is hidden or left). */
function checkScrollDepth(input: HitInput): number {
  const depth = input.scrollDepth;
  if (typeof depth !== "number" || !Number.isInteger(depth) || depth < 0 || depth > 100) {
    throw invalid("d", "The scroll depth must be an integer percentage from 0 to 100.");
  }
  if (input.engagedMs === undefined || input.engagedMs === null)
    throw invalid("d", "The scroll depth is sent with an engagement signal (e).");
  return depth;
}

function checkVitals(input: HitInput): CheckedVitals | null {
  const vitals: unknown = input.vitals;
  if (typeof vitals !== "object" || vitals === null || Array.isArray(vitals)) throw invalid("w", "The web vitals must be an object.");
  if (input.engagedMs === undefined || input.engagedMs === null)
    throw invalid("w", "The web vitals are sent with an engagement signal (e).");
  const given = vitals as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!(VITALS as readonly string[]).includes(key))
      throw invalid("w", `Unknown web vital "${key.slice(0, 20)}": expected ${VITALS.join(", ")}.`);
  }
  const checked = {} as CheckedVitals;
  let measured = false;
  for (const vital of VITALS) {
    const value = given[vital];
    if (value === undefined || value === null) {
      checked[vital] = null;
      continue;
    }
    const max = LIMITS.vitals[vital];
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > max) {
      throw invalid("w", `The web vital ${vital} must be a number from 0 to ${max}${vital === "cls" ? "" : " (milliseconds)"}.`);
    }
    // Timings to the millisecond; CLS to four decimals (its thresholds are 0.1 and 0.25).
    checked[vital] = vital === "cls" ? Math.round(value * 10_000) / 10_000 : Math.round(value);
    measured = true;
  }
  return measured ? checked : null;
}

/** The event's name; null for a pageview (no name, or Plausible's `pageview`). */
function checkEvent(event: unknown): string | null {
  if (event === undefined || event === null) return null;
  const name = typeof event === "string" ? storableText(event).trim() : "";
  if (name === "" || name.length > LIMITS.event) {
    throw invalid("n", `The event name must be 1 to ${LIMITS.event} characters.`);
  }
  return name === PAGEVIEW_EVENT ? null : name;
}

function checkProps(props: unknown): Record<string, string> | null {
  if (props === undefined || props === null) return null;
  if (typeof props !== "object" || Array.isArray(props)) throw invalid("p", "The event properties must be an object.");
  const entries = Object.entries(props);
  if (entries.length > LIMITS.props) throw invalid("p", `At most ${LIMITS.props} event properties are allowed.`);
  const checked: Record<string, string> = {};
  for (const [key, value] of entries) {
    const ok = ["string", "number", "boolean"].includes(typeof value);
    if (!ok || key.length === 0 || key.length > LIMITS.propKey || String(value).length > LIMITS.propValue) {
      throw invalid(
        "p",
        `The event property "${key.slice(0, 50)}" must be a string, number or boolean of at most ${LIMITS.propValue} characters.`,
      );
    }
    const name = storableText(key);
    if (name !== "") checked[name] = storableText(String(value));
  }
  return checked;
}
