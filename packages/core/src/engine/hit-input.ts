import { isIP } from "node:net";
import { FIRST_DAY, isTimeInDomain, LAST_DAY } from "../calendar.js";
import { ValidationError } from "../errors.js";
import { withoutControlCharacters } from "./text.js";

/** One pageview or event, as the tracker (or an import) reports it. */
export interface HitInput {
  /** The page URL; its host picks the website. */
  url: string;
  referrer?: string | null | undefined;
  /** `WxH` */
  screen?: string | null | undefined;
  language?: string | null | undefined;
  /** Event name; absent for a pageview. */
  event?: string | null | undefined;
  props?: Record<string, string | number | boolean> | null | undefined;
  /** The site uses hash routing: the fragment is part of the page. */
  hash?: boolean | null | undefined;
  ip: string;
  userAgent: string;
  /** When it happened (imports, tests); defaults to now. */
  timestamp?: Date | number | undefined;
  /**
   * Milliseconds the page was visible and focused: makes this an engagement signal
   * (docs/statistics.md) rather than a pageview. Not allowed with `event`.
   */
  engagedMs?: number | null | undefined;
}

export const LIMITS = {
  url: 2048,
  referrer: 2048,
  event: 200,
  props: 30,
  propKey: 200,
  propValue: 500,
  userAgent: 1024,
  /** Longest engagement one signal may report: six hours. */
  engagedMs: 6 * 3600 * 1000,
} as const;

const SCREEN = /^(\d{1,5})x(\d{1,5})$/;
const LANGUAGE = /^([a-zA-Z]{2,3})(?:[-_][a-zA-Z0-9]{1,8})*$/;

export interface CheckedHit {
  url: URL;
  referrer: string;
  screen: string;
  language: string;
  event: string | null;
  props: Record<string, string> | null;
  hash: boolean;
  ip: string;
  userAgent: string;
  timestamp: number;
  /** Engagement signal's milliseconds (capped); null for a pageview or event. */
  engagedMs: number | null;
}

const invalid = (field: string, message: string) => ValidationError.field(field, message);

/** Checks a hit's shape; fields that only enrich (screen, language) are dropped when malformed. */
export function checkHit(input: HitInput): CheckedHit {
  if (typeof input.url !== "string" || input.url.length > LIMITS.url) throw invalid("u", "The page URL is missing or too long.");
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw invalid("u", "The page URL is not a valid URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("u", "The page URL must be http or https.");
  const ip = typeof input.ip === "string" ? input.ip.replace(/^::ffff:(?=\d+\.)/, "") : "";
  if (isIP(ip) === 0) throw invalid("ip", "The client IP is not an IP address.");
  const timestamp = input.timestamp === undefined ? Date.now() : Number(input.timestamp);
  if (!Number.isFinite(timestamp)) throw invalid("timestamp", "The timestamp is not a valid time.");
  if (!isTimeInDomain(timestamp)) throw invalid("timestamp", `The timestamp must fall between ${FIRST_DAY} and ${LAST_DAY}.`);
  return {
    url,
    referrer: typeof input.referrer === "string" ? input.referrer.slice(0, LIMITS.referrer) : "",
    screen: typeof input.screen === "string" && SCREEN.test(input.screen) ? input.screen : "",
    language: typeof input.language === "string" ? (LANGUAGE.exec(input.language)?.[1]?.toLowerCase() ?? "") : "",
    event: checkEvent(input.event),
    props: checkProps(input.props),
    hash: input.hash === true,
    ip,
    userAgent: typeof input.userAgent === "string" ? input.userAgent.slice(0, LIMITS.userAgent) : "",
    timestamp,
    engagedMs: checkEngagement(input.engagedMs, input.event),
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

function checkEvent(event: unknown): string | null {
  if (event === undefined || event === null) return null;
  const name = typeof event === "string" ? withoutControlCharacters(event).trim() : "";
  if (name === "" || name.length > LIMITS.event) {
    throw invalid("n", `The event name must be 1 to ${LIMITS.event} characters.`);
  }
  return name;
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
      throw invalid("p", `The event property "${key.slice(0, 50)}" must be a string, number or boolean of at most ${LIMITS.propValue} characters.`);
    }
    const name = withoutControlCharacters(key);
    if (name !== "") checked[name] = withoutControlCharacters(String(value));
  }
  return checked;
}
