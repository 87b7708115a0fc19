import type * as Isbot from "isbot";
import type UAParser from "ua-parser-js";
import { lazyRequire } from "../shared/lazy-require.js";

// Loaded with the first hit: an app that has not counted one yet does not hold their tables.
const loadParser = lazyRequire<typeof UAParser>("ua-parser-js");
const loadIsbot = lazyRequire<typeof Isbot>("isbot");

/** What the browser, os and device statistics count; "" means unknown and is not counted. */
export interface UserAgentInfo {
  /** ua-parser-js's browser name as-is ("Chrome", "Mobile Safari", "Edge"…). */
  readonly browser: string;
  /** ua-parser-js's OS name as-is ("Windows", "Mac OS", "iOS", "Android", "Ubuntu"…). */
  readonly os: string;
  /** "desktop", "mobile", "tablet", "smarttv", "console", "wearable", "embedded"… */
  readonly device: string;
  /** The browser and its major version: "Chrome 131"; "" without either. */
  readonly browserVersion: string;
  /** The OS and its major.minor version: "iOS 17.4", "Windows 10"; "" without either. */
  readonly osVersion: string;
}

export interface UserAgentParserOptions {
  /**
   * Distinct user agents remembered, separately for parse results and bot verdicts.
   * @default 2000
   */
  cacheSize?: number;
  /**
   * Count headless Chrome (`HeadlessChrome/…`) as a visitor instead of a bot. isbot
   * treats it as a bot, which is right in production (scrapers) but drops every hit
   * of a browser test running headless Chromium.
   * @default false
   */
  allowHeadless?: boolean;
}

export interface UserAgentParser {
  parse(userAgent: string): UserAgentInfo;
  /** isbot's verdict; note that isbot does not call an empty user agent a bot. */
  isBot(userAgent: string): boolean;
}

/** Longer user agents are parsed but not cached, so hostile headers cannot bloat the cache. */
const MAX_CACHED_LENGTH = 1024;

/**
 * ua-parser-js 1.x names `HeadlessChrome/…` "Chrome Headless". It is the same engine
 * and, when it is let through at all (`allowHeadless`), it should count as Chrome.
 */
const BROWSER_ALIASES: Readonly<Record<string, string>> = { "Chrome Headless": "Chrome" };

const UNKNOWN: UserAgentInfo = Object.freeze({ browser: "", os: "", device: "", browserVersion: "", osVersion: "" });

/** A name with the first `parts` numbers of its version (`17.4.1` → `17.4`); "" when either is unknown. */
function withVersion(name: string, version: string | undefined, parts: number): string {
  const numbers = /^\d+(?:\.\d+)*/
    .exec(version ?? "")?.[0]
    .split(".")
    .slice(0, parts)
    .join(".");
  return name === "" || !numbers ? "" : `${name} ${numbers}`;
}

export function createUserAgentParser({ cacheSize = 2000, allowHeadless = false }: UserAgentParserOptions = {}): UserAgentParser {
  // Plain maps started again when full: a site sees a few hundred user agents, and every hit
  // asks twice; an LRU's reordering on each hit cost more than the rare parse it saves.
  const parsed = new Map<string, UserAgentInfo>();
  const verdicts = new Map<string, boolean>();
  const keep = <V>(cache: Map<string, V>, userAgent: string, value: V) => {
    if (userAgent.length > MAX_CACHED_LENGTH) return;
    if (cache.size >= cacheSize) cache.clear();
    cache.set(userAgent, value);
  };
  let parser: UAParser | undefined;
  let detectBot: ((userAgent: string) => boolean) | undefined;
  const botCheck = () => {
    if (detectBot) return detectBot;
    const { createIsbotFromList, isbot, list } = loadIsbot();
    return (detectBot = allowHeadless ? createIsbotFromList(list.filter((pattern) => pattern !== "headless")) : isbot);
  };

  function parseUncached(userAgent: string): UserAgentInfo {
    if (userAgent.trim() === "") return UNKNOWN;
    parser ??= new (loadParser())();
    const result = parser.setUA(userAgent).getResult();
    const name = result.browser.name ?? "";
    const browser = BROWSER_ALIASES[name] ?? name;
    const os = result.os.name ?? "";
    // ua-parser reports no device type for desktops; with neither browser nor OS
    // recognised there is no evidence of a desktop either.
    const device = result.device.type ?? (browser !== "" || os !== "" ? "desktop" : "");
    return Object.freeze({
      browser,
      os,
      device,
      browserVersion: withVersion(browser, result.browser.version, 1),
      osVersion: withVersion(os, result.os.version, 2),
    });
  }

  return {
    parse(userAgent) {
      const cached = parsed.get(userAgent);
      if (cached) return cached;
      const info = parseUncached(userAgent);
      keep(parsed, userAgent, info);
      return info;
    },
    isBot(userAgent) {
      const cached = verdicts.get(userAgent);
      if (cached !== undefined) return cached;
      const verdict = botCheck()(userAgent);
      keep(verdicts, userAgent, verdict);
      return verdict;
    },
  };
}
