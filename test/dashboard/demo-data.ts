// A year of plausible traffic for one website, from a seeded PRNG, through in-process
// `tally.collect` with explicit timestamps (the HTTP endpoint always uses the clock).
import type { HitInput, Tally } from "@tally-analytics/core";
import { seededRandom as random } from "../support/random.js";

const DAY_MS = 86_400_000;

/** The City test database (packages/core/test-fixtures) knows these networks. */
export const GEOIP_FIXTURE = new URL("../../packages/core/test-fixtures/GeoLite2-City-Test.mmdb", import.meta.url).pathname;

const PAGES = [
  "/",
  "/",
  "/",
  "/pricing",
  "/pricing",
  "/blog/cookieless-analytics",
  "/blog/hello-world",
  "/blog/self-hosting-guide",
  "/blog/release-notes",
  "/docs/getting-started",
  "/docs/api",
  "/docs/tracker",
  "/docs/filters",
  "/search?q=goals",
  "/changelog",
  "/about",
  "/contact",
  "/signup",
];
/** What ads and newsletters append to links: never part of the page Tally counts. */
const CLICK_IDS = ["fbclid=IwAR0x", "gclid=Cj0KCQ", "msclkid=4f2a", "mc_cid=spring&mc_eid=ab12"];
const REFERRERS = [
  "",
  "",
  "",
  "",
  "https://www.google.com/",
  "https://www.google.com/",
  "https://news.ycombinator.com/",
  "https://github.com/",
  "https://duckduckgo.com/",
  "https://www.reddit.com/r/selfhosted/",
  "https://t.co/abc",
];
const CAMPAIGNS = ["launch", "newsletter", "spring-sale"];
const SCREENS = ["1920x1080", "1920x1080", "1440x900", "1366x768", "2560x1440", "390x844", "390x844", "412x915", "820x1180"];
const LANGUAGES = ["en-US", "en-US", "en-GB", "de-DE", "fr-FR", "sv-SE", "ja-JP"];
const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
];

export interface DemoOptions {
  domain: string;
  /** Subdomains a quarter of the sessions are on (`docs`: `docs.<domain>`); the website must count its subdomains. @default [] */
  subdomains?: readonly string[];
  /** Days of history before today. @default 400 */
  days?: number;
  /** Sessions on an average day. @default 14 */
  sessionsPerDay?: number;
  /** Sessions whose last hit is within the last five minutes. @default 3 */
  liveSessions?: number;
  seed?: number;
  now?: number;
  /** Each pageview also sends an engagement signal with scroll depth and web vitals. @default false */
  engagement?: boolean;
}

/** Counts every generated hit and writes them; returns how many were sent. */
export async function generateTraffic(tally: Tally, options: DemoOptions): Promise<number> {
  const next = random(options.seed ?? 7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const now = options.now ?? Date.now();
  const days = options.days ?? 400;
  const ip = () => {
    const octet = () => 1 + Math.floor(next() * 250);
    const hex = () => Math.floor(next() * 65_535).toString(16);
    return pick([
      () => `81.2.69.${octet()}`,
      () => `81.2.69.${octet()}`,
      () => `216.160.83.${56 + Math.floor(next() * 8)}`,
      () => `89.160.20.${112 + Math.floor(next() * 16)}`,
      () => `2001:218::${hex()}:${hex()}`,
      () => `2a01:4f8::${hex()}:${hex()}`,
      () => `198.18.${octet()}.${octet()}`,
    ])();
  };
  const hits: HitInput[] = [];

  function session(start: number): void {
    const visitor = { ip: ip(), userAgent: pick(AGENTS) };
    const screen = visitor.userAgent.includes("Mobile") ? pick(["390x844", "412x915"]) : pick(SCREENS);
    const language = pick(LANGUAGES);
    const tagged = next();
    const campaign = tagged < 0.12 ? `utm_campaign=${pick(CAMPAIGNS)}` : tagged < 0.2 ? pick(CLICK_IDS) : "";
    let time = start;
    let referrer = pick(REFERRERS);
    const subdomains = options.subdomains ?? [];
    const host = subdomains.length > 0 && next() < 0.25 ? `${pick(subdomains)}.${options.domain}` : options.domain;
    const views = 1 + Math.floor(next() * next() * 5);
    for (let view = 0; view < views && time <= now; view++) {
      const page = view === 0 ? pick(PAGES) : pick(PAGES.slice(3));
      const url = `https://${host}${page}${view === 0 && campaign ? `${page.includes("?") ? "&" : "?"}${campaign}` : ""}`;
      hits.push({ url, referrer, screen, language, ...visitor, timestamp: time });
      if (options.engagement) {
        // Some pages load fast, some slowly: every rating shows up.
        const speed = 0.3 + (page.length % 5) * 0.35;
        const vital = (scale: number) => Math.round(scale * speed * (0.6 + next() * 0.8) * 1000) / 1000;
        hits.push({
          url,
          engagedMs: 1_000 + Math.floor(next() * 120_000),
          scrollDepth: Math.floor(next() * 101),
          vitals: { lcp: vital(2000), inp: vital(150), cls: vital(0.08), fcp: vital(1500), ttfb: vital(600) },
          ...visitor,
          timestamp: time + 5_000,
        });
      }
      if (page === "/signup" && next() < 0.5)
        hits.push({ url, event: "Signup", props: { plan: pick(["free", "pro"]) }, ...visitor, timestamp: time + 20_000 });
      if (next() < 0.08)
        hits.push({ url, event: "Outbound Link: Click", props: { url: "https://github.com/" }, ...visitor, timestamp: time + 30_000 });
      referrer = url;
      time += 30_000 + Math.floor(next() * 240_000);
    }
  }

  for (let day = days; day >= 0; day--) {
    const growth = 0.45 + 0.55 * (1 - day / days);
    const weekday = new Date(now - day * DAY_MS).getUTCDay();
    const weekly = weekday === 0 || weekday === 6 ? 0.6 : 1;
    const sessions = Math.round((options.sessionsPerDay ?? 14) * growth * weekly * (0.7 + next() * 0.6));
    for (let s = 0; s < sessions; s++) {
      // Busier in the (European) afternoon; nothing closer to now than 10 minutes.
      const hour = Math.min(23.9, Math.max(0, 8 + next() * 8 + (next() - 0.5) * 10));
      const start = now - day * DAY_MS - Math.floor((24 - hour) * 3_600_000);
      if (start < now - 10 * 60_000) session(start);
    }
  }
  for (let s = 0; s < (options.liveSessions ?? 3); s++) {
    hits.push({
      url: `https://${options.domain}${pick(PAGES)}`,
      ip: `198.19.0.${s + 1}`,
      userAgent: pick(AGENTS),
      screen: "1920x1080",
      language: "en-US",
      timestamp: now - 60_000 * (s + 1),
    });
  }
  hits.sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
  for (const hit of hits) await tally.collect(hit);
  await tally.flush();
  return hits.length;
}
