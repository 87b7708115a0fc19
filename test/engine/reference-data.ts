/**
 * Deterministic generator of raw hits for the reference test. Everything comes from
 * one seeded PRNG (mulberry32), so a failure reproduces exactly.
 */
import { seededRandom } from "../support/random.js";

export interface SiteConfig {
  key: string;
  domain: string;
  timezone: string;
  exclude_bots: 0 | 1;
  exclude_ips: string;
  exclude_params: string;
  /** 1: hits on its subdomains (`hosts`) count for it too. */
  include_subdomains: 0 | 1;
  /** The hosts its pages are served on: the domain, and subdomains where it counts them. */
  hosts: readonly string[];
  /** Rough UTC offset in hours, only used to aim sessions at local midnight. */
  approxOffset: number;
}

export interface RawHit {
  site: string;
  url: string;
  referrer?: string;
  screen?: string;
  language?: string;
  event?: string;
  props?: Record<string, string | number | boolean>;
  /** A purchase's revenue (docs/revenue.md): its amount as a number or decimal text, and its currency as sent. */
  revenue?: { amount: number | string; currency: string };
  hash?: boolean;
  /** An engagement signal (docs/statistics.md): milliseconds the page was visible. */
  engagedMs?: number;
  /** With a signal: the deepest percentage of the page seen, and the pageview's web vitals. */
  scrollDepth?: number;
  vitals?: Record<string, number>;
  ip: string;
  userAgent: string;
  timestamp: number;
}

export const SITES: readonly SiteConfig[] = [
  {
    key: "utc",
    domain: "alpha.example",
    timezone: "UTC",
    exclude_bots: 0,
    exclude_ips: "203.0.113.0/24\n2001:db8:aa::/48",
    exclude_params: "fbclid\nsession",
    include_subdomains: 1,
    hosts: ["alpha.example", "blog.alpha.example", "docs.alpha.example", "eu.shop.alpha.example"],
    approxOffset: 0,
  },
  {
    key: "ny",
    domain: "shop.example.org",
    timezone: "America/New_York",
    exclude_bots: 1,
    exclude_ips: "46.4.0.0/16\n198.51.100.7\n2001:db8:bb::/48",
    exclude_params: "fbclid\ngclid",
    include_subdomains: 0,
    hosts: ["shop.example.org"],
    approxOffset: -5,
  },
  {
    key: "kolkata",
    domain: "news.example.in",
    timezone: "Asia/Kolkata",
    exclude_bots: 1,
    exclude_ips: "2a01:4f8::/32\n81.2.69.0/24",
    exclude_params: "utm_source\nutm_medium\nutm_campaign\nref\nsession",
    include_subdomains: 0,
    hosts: ["news.example.in"],
    approxOffset: 5.5,
  },
  {
    key: "lordhowe",
    domain: "lh.example.au",
    timezone: "Australia/Lord_Howe",
    exclude_bots: 1,
    exclude_ips: "",
    exclude_params: "&",
    include_subdomains: 0,
    hosts: ["lh.example.au"],
    approxOffset: 10.5,
  },
];

export const USER_AGENTS = {
  desktop: [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64; rv:124.0) Gecko/20100101 Firefox/124.0",
    "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 OPR/106.0.0.0",
    "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 YaBrowser/24.4.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0",
    "Mozilla/5.0 (Windows NT 6.1; Win64; x64; rv:115.0) Gecko/20100101 Firefox/115.0",
  ],
  mobile: [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/125.0 Mobile/15E148 Safari/605.1.15",
    "Mozilla/5.0 (Linux; Android 13; moto g(60)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Mobile Safari/537.36 EdgA/123.0.2420.102",
  ],
  tablet: [
    "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Linux; Android 11; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/123.3.1 like Chrome/123.0.6312.118 Safari/537.36",
  ],
  other: [
    "Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36",
    "Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15",
    "",
    "SomeUnknownClient/1.0",
  ],
  bot: [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "curl/8.4.0",
    "python-requests/2.31.0",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.118 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  ],
} as const;

/** Well-known public addresses (plus a few private ones, which have no geo). */
const FIXED_IPV4 = [
  "8.8.8.8",
  "8.8.4.4",
  "1.1.1.1",
  "1.0.0.1",
  "9.9.9.9",
  "46.4.0.1",
  "46.4.12.77",
  "81.2.69.1",
  "81.2.69.142",
  "81.2.70.5",
  "17.253.144.10",
  "23.45.67.89",
  "31.13.72.36",
  "77.88.8.8",
  "94.140.14.14",
  "104.16.132.229",
  "151.101.1.69",
  "185.199.108.153",
  "195.135.221.140",
  "200.160.2.3",
  "203.0.113.9",
  "203.0.113.200",
  "198.51.100.7",
  "198.51.100.8",
  "10.1.2.3",
  "192.168.1.20",
  "172.16.5.4",
  "41.63.160.1",
  "103.21.244.1",
  "49.44.75.1",
  "117.239.193.1",
  "139.130.4.5",
  "202.12.27.33",
  "133.11.0.1",
  "180.76.76.76",
  "5.255.255.5",
];
const FIXED_IPV6 = [
  "2001:4860:4860::8888",
  "2001:4860:4860::8844",
  "2606:4700:4700::1111",
  "2a00:1450:4001:80b::200e",
  "2a01:4f8:c17:1234::1",
  "2a01:4f8:1c1c:abcd::2",
  "2001:db8:aa::1",
  "2001:db8:aa:ff::9",
  "2001:db8:bb::5",
  "2001:db8:cc::1",
  "2400:cb00:2048:1::681b:9c22",
  "2620:fe::fe",
  "2a02:6b8::2:242",
  "2c0f:fb50:4003::",
];

function randomPublicIpv4(rand: () => number): string {
  for (;;) {
    const a = 1 + Math.floor(rand() * 222);
    if (a === 10 || a === 100 || a === 127 || a === 169 || a === 172 || a === 192 || a === 198 || a === 203) continue;
    return `${a}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${1 + Math.floor(rand() * 254)}`;
  }
}

function randomIpv6(rand: () => number): string {
  const hex = () => Math.floor(rand() * 0xffff).toString(16);
  const prefixes = ["2001:4860", "2a00:1450", "2606:4700", "2a01:4f8", "2400:cb00", "2a02:6b8", "2001:db8:aa", "2001:db8:bb"];
  const prefix = prefixes[Math.floor(rand() * prefixes.length)]!;
  return prefix.split(":").length === 3 ? `${prefix}:${hex()}::${hex()}` : `${prefix}:${hex()}:${hex()}::${hex()}`;
}

const SECTIONS = ["blog", "docs", "products", "help", "news", "shop", "guides", "careers"];
const TOP_PAGES = [
  "/",
  "/pricing",
  "/about",
  "/About",
  "/contact",
  "/features",
  "/login",
  "/signup",
  "/blog/",
  "/docs",
  "/caf%C3%A9",
  "/search",
  "/a|b",
];
const QUERIES = [
  "?page=2",
  "?q=shoes&fbclid=abc123",
  "?session=xyz&sort=price",
  "?a=1&b=2&fbclid=zz&c=3",
  "?fbclid=onlyThis",
  "?fbclid",
  "?gclid=g-1&q=hat",
  "?ref=hn&x=%20y",
  "?utm_source=newsletter&utm_medium=email",
  "?lang=de&session=s1&page=3",
  "?sort=asc&SESSION=upper",
];
const CAMPAIGNS = ["spring_sale", "launch", "Black+Friday", "%20padded%20", "newsletter-42", "retargeting", "q1_promo", "LAUNCH"];
const EXTERNAL_REFERRERS = [
  "https://www.google.com/",
  "https://google.com/search?q=tally",
  "https://www.google.de/",
  "https://news.ycombinator.com/item?id=1",
  "http://WWW.Bing.com/search?q=x",
  "https://duckduckgo.com/",
  "https://t.co/abcdef",
  "https://www.facebook.com/",
  "https://l.facebook.com/l.php?u=x",
  "https://m.facebook.com",
  "https://Example.NET:8443/some/page",
  "https://www.reddit.com/r/webdev/",
  "https://old.reddit.com/r/selfhosted",
  "https://github.com/tally/tally",
  "https://www.www.example.com/",
  "https://chatgpt.com/",
  "https://m.youtube.com/watch?v=1",
  "https://semalt.com/",
  "http://www.buttons-for-website.com/x",
  "https://forum.darodar.com/",
];
const GARBAGE_REFERRERS = [
  "not a url",
  "//duckduckgo.com/",
  "javascript:alert(1)",
  "https://",
  "android-app://com.google.android.gm/",
  "ftp://files.example.net/x",
  "mailto:someone@example.com",
  "file:///C:/Users/me/page.html",
  "about:blank",
  "www.google.com",
];
const VALID_SCREENS = [
  "1920x1080",
  "1366x768",
  "1536x864",
  "2560x1440",
  "1440x900",
  "390x844",
  "412x915",
  "375x667",
  "768x1024",
  "820x1180",
  "3840x2160",
];
const BAD_SCREENS = ["1920X1080", "abc", "1920x", "1920*1080", "x1080", "-5x10", "", "1920 x 1080"];
const VALID_LANGUAGES = [
  "en-US",
  "en",
  "en-GB",
  "EN-gb",
  "de",
  "de-DE",
  "pt-BR",
  "pt",
  "fr-FR",
  "es-419",
  "zh-Hant-TW",
  "ja",
  "hi-IN",
  "nl",
  "fil-PH",
  "en_US",
];
const BAD_LANGUAGES = ["english!", "1234", "e", "", "en--US", "*", "de-", "-en"];
const EVENTS = [
  "signup",
  "purchase",
  "Download PDF",
  "play_video",
  "newsletter_subscribe",
  "Outbound Link: Click",
  "Search",
  "🎉 Celebrate",
];
const PLANS = ["free", "pro", "Pro", "team", "Team Plus", "a|b\\c"];
/** utm_* values as written in URLs: encoded, padded, a control character, a pipe, one longer than 200 characters. */
const UTM_VALUES: Record<string, readonly string[]> = {
  utm_source: ["google", "newsletter", "Newsletter", "twitter", "%20facebook%20", "bing|ads", "caf%C3%A9"],
  utm_medium: ["cpc", "email", "social", "%01email", "%20%01%20email", "banner", "affiliate", "Paid_Social"],
  utm_content: ["hero-link", "footer", "textlink", "Variant+B"],
  utm_term: ["running+shoes", "analytics", "privacy%20first", "x".repeat(230)],
};

const AUTHORS = ["Jane", "Ünal Öz", "a|b", "  spaced  "];
/**
 * A pageview's properties (data-props): an author, some with a plan (a name events have
 * too). Drawn from the time, not the generator, so the rest of the data set stays as it was.
 */
function pageviewProps(time: number): Record<string, string> {
  const second = Math.floor(time / 1000);
  const author = AUTHORS[second % AUTHORS.length]!;
  return second % 3 === 0 ? { author, plan: PLANS[second % PLANS.length]! } : { author };
}

/** Properties of each event, as a tracker would send them (or none). */
function propsFor(event: string, rand: () => number): Record<string, string | number | boolean> | undefined {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  switch (event) {
    case "signup":
      return rand() < 0.8 ? { plan: pick(PLANS), method: pick(["google", "email"]) } : undefined;
    case "purchase":
      return { plan: pick(PLANS), amount: Math.floor(rand() * 500), currency: pick(["EUR", "USD"]), first: rand() < 0.5 };
    case "Download PDF":
      return { file: pick(["/files/report-2026.pdf", "/files/a|b.pdf", "C:\\temp\\x.pdf", "/files/Überblick.pdf"]) };
    case "play_video":
      return rand() < 0.7 ? { video: pick(["Intro – Überblick", "demo", "DEMO"]), position: pick([1.5, 30, 0]) } : undefined;
    case "Outbound Link: Click":
      return { url: pick(["https://github.com/tally/tally", `https://example.net/${"long/".repeat(50)}`]) };
    case "Search":
      return { query: pick(["shoes", "Shoes", "", "  spaced  "]), plan: pick(PLANS) };
    case "🎉 Celebrate":
      return { mood: pick(["😀 happy", "ok"]), "🎨": pick(["red", "blue"]) };
    default:
      return undefined;
  }
}

/**
 * A purchase's revenue from its properties: the amount with cents, sent as text or a number;
 * the currency sometimes in lower case, sometimes yen (no cents). Drawn from the time, not
 * the generator, so the rest of the data set stays as it was.
 */
function revenueFor(props: Record<string, string | number | boolean>, time: number): RawHit["revenue"] {
  const second = Math.floor(time / 1000);
  if (second % 11 === 0) return { amount: Number(props.amount) * 100, currency: "JPY" };
  const amount = `${String(props.amount)}.${String(second % 100).padStart(2, "0")}`;
  const currency = String(props.currency);
  return { amount: second % 2 === 0 ? amount : Number(amount), currency: second % 7 === 0 ? currency.toLowerCase() : currency };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The days sessions start on, and each block's share of the sessions. */
const BLOCKS = [
  { start: Date.UTC(2026, 1, 20), days: 50, share: 0.66 }, // 2026-02-20 … 04-10: the main block (NY's and Lord Howe's spring DST changes)
  { start: Date.UTC(2026, 9, 28), days: 8, share: 0.12 }, // 2026-10-28 … 11-04: NY's autumn change
  { start: Date.UTC(2025, 1, 20), days: 30, share: 0.16 }, // 2025-02-20 … 03-21: a year before the main block (compare=year)
  { start: Date.UTC(2027, 1, 27), days: 2, share: 0.03 }, // 2027-02-27 … 28, and
  { start: Date.UTC(2028, 1, 28), days: 2, share: 0.03 }, // 2028-02-28 … 29: a leap day compared with the year before
] as const;
/** NY DST changes (UTC), Lord Howe's April change (UTC). */
const DST_MOMENTS = [Date.UTC(2026, 2, 8, 7), Date.UTC(2026, 10, 1, 6), Date.UTC(2026, 3, 4, 15)];

interface Visitor {
  ip: string;
  userAgent: string;
  sites: SiteConfig[];
  screen: string | undefined;
  altScreen: string;
  language: string | undefined;
  sessions: number;
}

/** The UTC moment of local midnight starting `day` (`Y-m-d`) in a time zone (no DST change that night). */
function localMidnight(timeZone: string, day: string): number {
  const target = Date.parse(`${day}T00:00:00Z`);
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
  });
  const wall = (at: number) => {
    const parts: Record<string, number> = {};
    for (const part of format.formatToParts(at)) parts[part.type] = Number(part.value);
    return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  };
  return target - (wall(target) - target);
}

/**
 * Hand-made sequences at the edges of the rules, on every site, each by a person of its
 * own (100.64.x.x: no geo, never drawn at random).
 */
function edgeHits(): RawHit[] {
  const out: RawHit[] = [];
  const userAgent = USER_AGENTS.desktop[0];
  for (const [index, site] of SITES.entries()) {
    const midnight = localMidnight(site.timezone, `2026-03-0${3 + index}`);
    const at = (person: number, minutes: number, path: string, extra: Partial<RawHit> = {}) =>
      out.push({
        site: site.key,
        url: `https://${site.domain}${path}`,
        ip: `100.64.${index}.${person}`,
        userAgent,
        timestamp: midnight + minutes * MINUTE,
        ...extra,
      });
    // A signal keeps yesterday's visit going past midnight; the next hit, 25 minutes after it
    // but 45 after midnight, starts a visit all the same (yesterday is recognised for 30 minutes).
    at(1, -20, "/edge/left-open");
    at(1, 20, "/edge/left-open", { engagedMs: 30 * MINUTE });
    at(1, 45, "/edge/next-page");
    // The same within the first 30 minutes of the day: one visit of two pageviews, 35 minutes long.
    at(2, -10, "/edge/late-reader");
    at(2, 10, "/edge/late-reader", { engagedMs: 15 * MINUTE });
    at(2, 25, "/edge/late-reader-2");
    // One event fired twice in the same millisecond, once with properties and once without.
    at(3, 600, "/edge/checkout", { event: "purchase", props: { plan: "pro", amount: 42, currency: "EUR", first: true } });
    at(3, 600, "/edge/checkout", { event: "purchase" });
    // A signal the day after the visit, with no hit that day: it still belongs to the visit (the day before).
    at(4, 300, "/edge/tab");
    at(4, 24 * 60 + 200, "/edge/tab", { engagedMs: 1000 });
  }
  return out;
}

export function generateHits(seed: number, sessionsWanted: number): RawHit[] {
  const rand = seededRandom(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => rand() < p;
  // Scroll depths and web vitals from their own sequence: the hits stay those that `seed` alone gives.
  const figureRand = seededRandom(seed + 1);
  const figure = (n: number) => Math.floor(figureRand() * n);
  /** What a signal measured: a scroll depth (0 and 100 included) and some vitals around their thresholds, or nothing. */
  const engagementFigures = (): { scrollDepth?: number; vitals?: Record<string, number> } => {
    const measured: { scrollDepth?: number; vitals?: Record<string, number> } = {};
    if (figureRand() < 0.7) measured.scrollDepth = figureRand() < 0.1 ? 100 * figure(2) : figure(101);
    if (figureRand() < 0.6) {
      const ranges = { lcp: 6000, inp: 800, cls: 40, fcp: 4500, ttfb: 2500 };
      const vitals: Record<string, number> = {};
      for (const [vital, top] of Object.entries(ranges)) {
        if (figureRand() < 0.8) vitals[vital] = vital === "cls" ? figure(top) / 100 : figure(top);
      }
      measured.vitals = vitals;
    }
    return measured;
  };

  const pages: string[] = [...TOP_PAGES];
  for (const section of SECTIONS) {
    const count = 10 + int(30);
    for (let i = 0; i < count; i++) pages.push(`/${section}/${section.slice(0, 3)}-${i}${chance(0.1) ? "/" : ""}`);
  }

  const ipPool: string[] = [...FIXED_IPV4, ...FIXED_IPV6];
  while (ipPool.length < 900) ipPool.push(chance(0.85) ? randomPublicIpv4(rand) : randomIpv6(rand));
  for (let i = 0; i < 20; i++) ipPool.push(`46.4.${int(256)}.${1 + int(254)}`, `81.2.69.${1 + int(254)}`, `203.0.113.${1 + int(254)}`);

  const visitors: Visitor[] = [];
  for (let i = 0; i < 1500; i++) {
    const kind = rand();
    const userAgent =
      kind < 0.45
        ? pick(USER_AGENTS.desktop)
        : kind < 0.8
          ? pick(USER_AGENTS.mobile)
          : kind < 0.88
            ? pick(USER_AGENTS.tablet)
            : kind < 0.92
              ? pick(USER_AGENTS.other)
              : pick(USER_AGENTS.bot);
    const first = pick(SITES);
    const sites = [first];
    if (chance(0.15)) sites.push(pick(SITES));
    const screen = chance(0.08) ? (chance(0.5) ? undefined : pick(BAD_SCREENS)) : pick(VALID_SCREENS);
    const [w, h] = (screen && /^\d+x\d+$/.test(screen) ? screen : "390x844").split("x");
    visitors.push({
      ip: pick(ipPool),
      userAgent,
      sites,
      screen,
      altScreen: `${h}x${w}`,
      language: chance(0.1) ? (chance(0.3) ? undefined : pick(BAD_LANGUAGES)) : pick(VALID_LANGUAGES),
      sessions: 1 + Math.floor(-Math.log(1 - rand()) * 5),
    });
  }

  const hits: RawHit[] = edgeHits();
  let sessions = 0;
  while (sessions < sessionsWanted) {
    for (const visitor of visitors) {
      if (sessions >= sessionsWanted) break;
      if (int(visitor.sessions + 3) >= visitor.sessions) continue;
      sessions++;
      const site = pick(visitor.sites);
      hits.push(...session(visitor, site));
    }
  }
  return hits;

  function sessionStart(site: SiteConfig): number {
    let r0 = rand();
    const block = BLOCKS.find((candidate) => (r0 -= candidate.share) < 0) ?? BLOCKS[0];
    const day = block.start + int(block.days) * DAY;
    const r = rand();
    if (r < 0.3) {
      // Around local midnight (the offset is rough on purpose).
      return day - site.approxOffset * HOUR + Math.floor((rand() - 0.5) * 90 * MINUTE);
    }
    if (r < 0.36) return pick(DST_MOMENTS) + Math.floor((rand() - 0.5) * 4 * HOUR);
    return day + int(DAY);
  }

  /** The scheme and host of a page on `host` (one of the site's), written as browsers may send it. */
  function hostFor(host: string): string {
    const r = rand();
    if (r < 0.6) return `https://${host}`;
    if (r < 0.85) return `https://www.${host}`;
    if (r < 0.95) return `http://${host.toUpperCase()}`;
    return `http://${host}:8080`;
  }

  function internalReferrer(host: string): string {
    const r = rand();
    const written = r < 0.5 ? host : r < 0.8 ? `www.${host}` : `WWW.${host.toUpperCase()}`;
    return `https://${written}${pick(pages)}`;
  }

  function session(visitor: Visitor, site: SiteConfig): RawHit[] {
    const out: RawHit[] = [];
    let time = sessionStart(site);
    const length = 1 + Math.floor(-Math.log(1 - rand()) * 3.5);
    const campaign = chance(0.15) ? pick(CAMPAIGNS) : null;
    const hashSite = site.key === "utc" || site.key === "lordhowe";
    // A session stays on one of the site's hosts, now and then moving to another (a link across subdomains).
    let host = pick(site.hosts);
    for (let i = 0; i < length; i++) {
      const previousHost = host;
      if (i > 0 && site.hosts.length > 1 && chance(0.1)) host = pick(site.hosts);
      if (i > 0) {
        const g = rand();
        time +=
          g < 0.7
            ? 10_000 + int(8 * MINUTE)
            : g < 0.85
              ? 8 * MINUTE + int(21 * MINUTE)
              : g < 0.9
                ? 30 * MINUTE
                : g < 0.93
                  ? 30 * MINUTE - 1
                  : 31 * MINUTE + int(3 * HOUR);
      }
      let referrer: string | undefined;
      if (i === 0) {
        const r = rand();
        referrer =
          r < 0.35
            ? undefined
            : r < 0.4
              ? ""
              : r < 0.68
                ? pick(EXTERNAL_REFERRERS)
                : r < 0.88
                  ? internalReferrer(host)
                  : pick(GARBAGE_REFERRERS);
      } else {
        const r = rand();
        referrer =
          r < 0.78 ? internalReferrer(previousHost) : r < 0.88 ? "" : r < 0.97 ? pick(EXTERNAL_REFERRERS) : pick(GARBAGE_REFERRERS);
      }
      let path = pick(pages);
      let query = chance(0.25) ? pick(QUERIES) : "";
      const addParam = (param: string) => {
        query = query === "" ? `?${param}` : chance(0.5) ? `${query}&${param}` : `?${param}&${query.slice(1)}`;
      };
      const hitCampaign = i === 0 ? campaign : chance(0.05) ? pick(CAMPAIGNS) : chance(0.05) ? campaign : null;
      if (hitCampaign) addParam(`utm_campaign=${hitCampaign}`);
      // Other UTM fields: mostly on the first hit; on a later one they change nothing (no new visit).
      if (chance(i === 0 ? 0.3 : 0.03)) {
        for (const [name, values] of Object.entries(UTM_VALUES)) if (chance(0.6)) addParam(`${name}=${pick(values)}`);
      }
      let hash = false;
      let fragment = "";
      if (hashSite && chance(0.12)) {
        hash = true;
        path = "/app";
        fragment = pick(["#/settings", "#/users/42", "#/", "", "#/reports?tab=2", "#"]);
      } else if (chance(0.05)) {
        fragment = pick(["#section-2", "#top", "#/not-routed"]);
      }
      const hit: RawHit = {
        site: site.key,
        url: `${hostFor(host)}${path}${query}${fragment}`,
        ip: visitor.ip,
        userAgent: visitor.userAgent,
        timestamp: time,
      };
      if (referrer !== undefined) hit.referrer = referrer;
      if (hash) hit.hash = true;
      const s = rand();
      const screen = s < 0.9 ? visitor.screen : s < 0.95 ? visitor.altScreen : s < 0.98 ? pick(BAD_SCREENS) : undefined;
      if (screen !== undefined) hit.screen = screen;
      const l = rand();
      const language = l < 0.95 ? visitor.language : l < 0.98 ? pick(VALID_LANGUAGES) : pick(BAD_LANGUAGES);
      if (language !== undefined) hit.language = language;
      if (chance(0.15)) {
        hit.event = pick(EVENTS);
        const props = propsFor(hit.event, rand);
        if (props) hit.props = props;
        if (props && hit.event === "purchase") hit.revenue = revenueFor(props, time);
      } else if (chance(0.04)) hit.props = pageviewProps(time);
      out.push(hit);
      if (hit.event !== undefined && chance(0.05)) {
        // Fired twice (a double click): the same event within the same second or the next, other properties.
        const again: RawHit = { ...hit, timestamp: time + int(1500) };
        const props = propsFor(hit.event, rand);
        if (props) again.props = props;
        else delete again.props;
        if (props && hit.event === "purchase") again.revenue = revenueFor(props, again.timestamp);
        out.push(again);
      }
      if (chance(0.2)) {
        // The page was left or hidden: an engagement signal up to 40 minutes later.
        const { event: _event, props: _props, revenue: _revenue, ...page } = hit;
        out.push({ ...page, timestamp: time + 1000 + int(40 * MINUTE), engagedMs: int(10 * MINUTE), ...engagementFigures() });
      }
    }
    if (chance(0.02)) {
      // A signal days after the session (a tab left open): ignored unless the person came back the day before.
      out.push({
        site: site.key,
        url: `${hostFor(host)}/`,
        ip: visitor.ip,
        userAgent: visitor.userAgent,
        timestamp: time + 3 * DAY,
        engagedMs: 1000,
      });
    }
    return out;
  }
}
