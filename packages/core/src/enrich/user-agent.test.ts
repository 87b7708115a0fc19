import { describe, expect, it } from "vitest";
import { createLruCache } from "./lru-cache.js";
import { createUserAgentParser } from "./user-agent.js";

const HEADLESS_CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36";

const browsers: [label: string, ua: string, browser: string, os: string, device: string][] = [
  [
    "Chrome on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "Chrome",
    "Windows",
    "desktop",
  ],
  [
    "Safari on iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mobile Safari",
    "iOS",
    "mobile",
  ],
  [
    "Safari on iPad",
    "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
    "Mobile Safari",
    "iOS",
    "tablet",
  ],
  [
    "Safari on macOS",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "Safari",
    "Mac OS",
    "desktop",
  ],
  ["Firefox on Linux", "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", "Firefox", "Linux", "desktop"],
  [
    "Edge on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51",
    "Edge",
    "Windows",
    "desktop",
  ],
  [
    "Chrome on Android",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
    "Chrome",
    "Android",
    "mobile",
  ],
  [
    "Samsung smart TV",
    "Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36",
    "Safari",
    "Tizen",
    "smarttv",
  ],
  [
    "Xbox One",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox One) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/90.0.4430.93 Safari/537.36 Edg/90.0.818.49",
    "Edge",
    "Xbox",
    "console",
  ],
  // ua-parser-js says "Chrome Headless"; the parser reports Chrome (see BROWSER_ALIASES).
  ["headless Chromium (Debian)", HEADLESS_CHROME, "Chrome", "Linux", "desktop"],
];

describe("createUserAgentParser", () => {
  const parser = createUserAgentParser();

  it("names versions: the browser's major, the OS's major.minor", () => {
    const versions = (ua: string) => {
      const { browserVersion, osVersion } = parser.parse(ua);
      return [browserVersion, osVersion];
    };
    expect(versions(browsers[0]![1])).toEqual(["Chrome 124", "Windows 10"]);
    expect(versions(browsers[1]![1])).toEqual(["Mobile Safari 17", "iOS 17.4"]);
    expect(versions(browsers[3]![1])).toEqual(["Safari 17", "Mac OS 10.15"]);
    // Firefox on Linux: ua-parser-js knows no Linux version.
    expect(versions(browsers[4]![1])).toEqual(["Firefox 125", ""]);
    expect(versions(browsers[6]![1])).toEqual(["Chrome 124", "Android 10"]);
  });

  it.each(browsers)("parses %s", (_label, ua, browser, os, device) => {
    expect(parser.parse(ua)).toMatchObject({ browser, os, device });
    expect(parser.isBot(ua)).toBe(ua === HEADLESS_CHROME);
  });

  it("returns empty strings for what it cannot tell", () => {
    expect(parser.parse("")).toEqual({ browser: "", os: "", device: "", browserVersion: "", osVersion: "" });
    expect(parser.parse("foo")).toEqual({ browser: "", os: "", device: "", browserVersion: "", osVersion: "" });
    expect(parser.parse("curl/8.5.0")).toEqual({ browser: "", os: "", device: "", browserVersion: "", osVersion: "" });
  });

  it.each([
    ["Googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"],
    ["curl", "curl/8.5.0"],
    ["python-requests", "python-requests/2.31.0"],
    ["headless Chrome", HEADLESS_CHROME],
  ])("detects %s as a bot", (_label, ua) => {
    expect(parser.isBot(ua)).toBe(true);
    expect(parser.isBot(ua)).toBe(true); // cached verdict
  });

  it("follows isbot in not calling an empty user agent a bot", () => {
    expect(parser.isBot("")).toBe(false);
  });

  it("lets headless Chrome through when allowHeadless is set", () => {
    const lenient = createUserAgentParser({ allowHeadless: true });
    expect(lenient.isBot(HEADLESS_CHROME)).toBe(false);
    expect(lenient.isBot("curl/8.5.0")).toBe(true);
    expect(lenient.isBot("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")).toBe(true);
  });

  it("returns the same answer from the cache", () => {
    const ua = browsers[0]![1];
    const first = parser.parse(ua);
    expect(parser.parse(ua)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it("keeps working past its cache size", () => {
    const small = createUserAgentParser({ cacheSize: 3 });
    for (let i = 0; i < 50; i++) {
      expect(small.parse(`Mozilla/5.0 (X11; Linux x86_64; rv:${i}.0) Gecko/20100101 Firefox/${i}.0`).browser).toBe("Firefox");
      expect(small.isBot(`curl/${i}`)).toBe(true);
    }
  });
});

describe("createLruCache", () => {
  it("never grows past its size", () => {
    const cache = createLruCache<string, number>(100);
    for (let i = 0; i < 10_000; i++) {
      cache.set(`Mozilla/5.0 distinct-agent/${i}`, i);
      expect(cache.size).toBeLessThanOrEqual(100);
    }
    expect(cache.size).toBe(100);
    expect(cache.get("Mozilla/5.0 distinct-agent/9999")).toBe(9999);
    expect(cache.get("Mozilla/5.0 distinct-agent/0")).toBeUndefined();
  });

  it("evicts the least recently used entry", () => {
    const cache = createLruCache<string, string | null>(2);
    cache.set("a", null);
    cache.set("b", "B");
    expect(cache.get("a")).toBeNull(); // a is now the most recent
    cache.set("c", "C");
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeNull();
    expect(cache.get("c")).toBe("C");
  });

  it("overwrites without growing", () => {
    const cache = createLruCache<string, number>(2);
    cache.set("a", 1);
    cache.set("a", 2);
    expect(cache.size).toBe(1);
    expect(cache.get("a")).toBe(2);
  });

  it("rejects a size that is not a positive integer", () => {
    expect(() => createLruCache(0)).toThrow(RangeError);
    expect(() => createLruCache(1.5)).toThrow(RangeError);
  });
});
