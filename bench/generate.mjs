// Deterministic traffic generator for the benchmarks: a seeded PRNG, Zipf-ish page
// popularity, visitors as (IP, user agent) pairs, chronological timestamps, sessions
// with internal navigation, external referrers, utm campaigns, screens, languages,
// custom events with properties and ~5% bot traffic.
//
// Every hit has the shape `tally.collect()` takes, plus two fields Tally ignores and
// the baselines use: `visitor` (index of the (IP, UA) pair) and `bot`.

import { USER_AGENTS } from "./user-agents.mjs";

/** Bump when the generated hits change: it keys the cached stats databases. */
export const GENERATOR_VERSION = 2;

/** The website the hits belong to (URLs use `www.`, which Tally strips). */
export const DOMAIN = "example-shop.com";
export const ORIGIN = `https://www.${DOMAIN}`;
export const TIMEZONE = "America/New_York";

const DAY_MS = 86_400_000;

export function mulberry32(seed) {
  let a = seed >>> 0;
  return function random() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stateless 32-bit integer hash: per-visitor attributes without storing a million objects. */
function mix(x, salt) {
  let h = (Math.imul(x ^ salt, 0x9e3779b1) ^ 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
const unit = (x, salt) => mix(x, salt) / 4294967296;

/** Picks from weighted items with one uniform number in [0, 1). */
function weighted(items, weightOf = (item) => item[1]) {
  const cdf = new Float64Array(items.length);
  let total = 0;
  items.forEach((item, i) => {
    total += weightOf(item);
    cdf[i] = total;
  });
  return (u) => {
    const target = u * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] > target) hi = mid;
      else lo = mid + 1;
    }
    return items[lo];
  };
}

const WORDS = (
  "analytics privacy cookie server node fast tiny simple guide intro setup deploy scale cache query index " +
  "report export import track event page visit referrer campaign browser mobile desktop tablet screen language " +
  "country city summer winter sale shoes jacket shirt lamp chair desk coffee tea garden kitchen travel camera " +
  "phone laptop watch bag hat book music movie game sport running yoga bike"
).split(" ");

function buildPages(count, random) {
  const fixed = [
    "/",
    "/pricing",
    "/about",
    "/contact",
    "/blog",
    "/docs",
    "/signup",
    "/login",
    "/features",
    "/changelog",
    "/cart",
    "/checkout",
  ];
  const pages = [...fixed];
  const seen = new Set(pages);
  const word = () => WORDS[Math.floor(random() * WORDS.length)];
  while (pages.length < count) {
    const r = random();
    let path;
    if (r < 0.4) path = `/blog/${word()}-${word()}-${word()}`;
    else if (r < 0.7) path = `/docs/${word()}/${word()}-${word()}`;
    else if (r < 0.95) path = `/products/${word()}-${Math.floor(random() * 100_000)}`;
    else path = `/search?q=${word()}+${word()}`;
    if (!seen.has(path)) {
      seen.add(path);
      pages.push(path);
    }
  }
  return pages;
}

const SEARCH = [
  "https://www.google.com/",
  "https://www.google.de/",
  "https://www.google.co.uk/",
  "https://www.bing.com/",
  "https://duckduckgo.com/",
  "https://search.yahoo.com/",
  "https://yandex.ru/",
  "https://www.ecosia.org/",
  "https://search.brave.com/",
];
const SOCIAL = [
  "https://t.co/",
  "https://www.facebook.com/",
  "https://l.facebook.com/",
  "https://www.reddit.com/r/webdev/",
  "https://news.ycombinator.com/item?id=",
  "https://www.linkedin.com/",
  "https://l.instagram.com/",
  "https://www.youtube.com/",
  "https://github.com/",
];
const CAMPAIGNS = Array.from(
  { length: 40 },
  (_, i) =>
    ["spring-sale", "newsletter", "launch", "retargeting", "black-friday", "webinar", "partner", "summer"][i % 8] +
    (i >= 8 ? `-${2020 + Math.floor(i / 8)}` : ""),
);
const LANGUAGES = [
  ["en-US", 35],
  ["en-GB", 8],
  ["de-DE", 8],
  ["fr-FR", 6],
  ["es-ES", 5],
  ["pt-BR", 5],
  ["ja-JP", 4],
  ["zh-CN", 4],
  ["ru-RU", 3],
  ["it-IT", 3],
  ["nl-NL", 2],
  ["pl-PL", 2],
  ["ko-KR", 2],
  ["sv-SE", 1],
  ["tr-TR", 1],
  ["en", 3],
  ["de", 1],
  ["uk-UA", 1],
  ["cs-CZ", 1],
];
const SCREENS = {
  desktop: [
    ["1920x1080", 30],
    ["1366x768", 10],
    ["1536x864", 10],
    ["2560x1440", 8],
    ["1440x900", 6],
    ["1280x720", 4],
    ["3840x2160", 3],
    ["1680x1050", 3],
  ],
  mobile: [
    ["390x844", 12],
    ["393x873", 8],
    ["412x915", 10],
    ["375x667", 5],
    ["414x896", 6],
    ["360x800", 9],
    ["430x932", 6],
    ["384x854", 3],
  ],
  tablet: [
    ["810x1080", 4],
    ["820x1180", 5],
    ["768x1024", 6],
    ["1024x1366", 2],
    ["800x1280", 3],
  ],
  other: [
    ["1920x1080", 1],
    ["1280x720", 1],
  ],
};
const EVENTS = [
  ["Signup", 5, (r) => ({ plan: ["free", "pro", "team"][Math.floor(r() * 3)] })],
  ["Add to cart", 10, (r) => ({ product: `sku-${Math.floor(r() * 500)}`, price: Math.floor(r() * 20000) / 100 })],
  ["Outbound Link: Click", 8, (r) => ({ url: `https://partner-${Math.floor(r() * 50)}.example.org/` })],
  ["Download", 4, (r) => ({ file: ["guide.pdf", "pricing.pdf", "app.dmg", "app.exe"][Math.floor(r() * 4)] })],
  ["Play video", 5, (r) => ({ id: `v${Math.floor(r() * 80)}`, autoplay: r() < 0.3 })],
  ["Newsletter", 2, () => ({})],
  ["Search", 6, (r) => ({ query: WORDS[Math.floor(r() * WORDS.length)] })],
  ["404", 1, () => null],
  ["Checkout", 2, (r) => ({ items: 1 + Math.floor(r() * 5), coupon: r() < 0.2 })],
  ...Array.from({ length: 20 }, (_, i) => [`Feature ${i + 1} used`, 0.5, () => null]),
];
// First octets of busy public IPv4 space on every continent (never private or reserved).
const V4_PREFIXES = [
  1, 2, 5, 8, 14, 23, 24, 27, 31, 36, 37, 39, 41, 42, 46, 49, 50, 58, 59, 60, 61, 62, 63, 64, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76,
  77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 101, 102, 103, 104, 105, 106, 107, 108, 109,
  110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 141, 151, 154, 173, 174, 175, 176, 177, 178, 179, 180,
  181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 193, 194, 195, 196, 197, 200, 201, 202, 203, 210, 211, 212, 213, 217, 218, 219,
  220, 221, 222,
];
const V6_PREFIXES = ["2a00", "2a01", "2a02", "2001:0db9", "2600", "2601", "2603", "2804", "2400", "2405", "2409", "2c0f"].filter(
  (p) => !p.startsWith("2001:0db"),
);

/**
 * The traffic model shared by every generator run with the same `seed` and sizes.
 * @param {{ seed?: number, pages?: number, visitors?: number }} options
 */
export function createModel({ seed = 42, pages = 3000, visitors = 50_000 } = {}) {
  const random = mulberry32(seed);
  const pageList = buildPages(pages, random);
  const pageCdf = new Float64Array(pageList.length);
  let total = 0;
  for (let r = 0; r < pageList.length; r++) pageCdf[r] = total += 1 / Math.pow(r + 1, 1.07);
  const humans = USER_AGENTS.filter(([kind]) => kind !== "bot");
  const bots = USER_AGENTS.filter(([kind]) => kind === "bot");
  const pickUa = weighted(humans);
  const pickLanguage = weighted(LANGUAGES);
  const pickScreen = Object.fromEntries(Object.entries(SCREENS).map(([kind, list]) => [kind, weighted(list)]));
  const pickEvent = weighted(EVENTS);

  /** Index of a page, Zipf-distributed: a few pages get most views. */
  function page(u) {
    const target = u * total;
    let lo = 0;
    let hi = pageCdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pageCdf[mid] > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  function ipOf(i, salt) {
    const h = mix(i, salt);
    if (unit(i, salt + 1) < 0.1) {
      const prefix = V6_PREFIXES[h % V6_PREFIXES.length];
      const g = (s) => (mix(i, salt + s) & 0xffff).toString(16);
      return `${prefix}:${g(2)}:${g(3)}:${g(4)}::${g(5)}`;
    }
    return `${V4_PREFIXES[h % V4_PREFIXES.length]}.${(h >>> 8) & 255}.${(h >>> 16) & 255}.${1 + ((h >>> 24) % 254)}`;
  }

  /** Visitor `i`: a stable (IP, UA) pair with a screen and a language. */
  function visitor(i) {
    const [kind, , userAgent] = pickUa(unit(i, 11));
    const screens = pickScreen[kind] ?? pickScreen.other;
    return {
      ip: ipOf(i, 101),
      userAgent,
      screen: screens(unit(i, 13))[0],
      language: pickLanguage(unit(i, 17))[0],
    };
  }

  function bot(i) {
    return { ip: ipOf(i, 7001), userAgent: bots[i % bots.length][2], screen: null, language: null };
  }

  return { pages: pageList, visitors, page, visitor, bot, pickEvent };
}

/**
 * Yields hits in time order.
 * @param {{ seed?: number, hits?: number, pageviews?: number, days?: number, endDay?: string,
 *   pages?: number, visitors?: number, botShare?: number }} options
 *   Stops after `hits` hits, or after `pageviews` pageviews (events and bots come on top).
 */
export function* generateHits(options = {}) {
  const { seed = 42, days = 30, endDay = "2025-06-15", botShare = 0.05 } = options;
  const limitHits = options.hits ?? Infinity;
  const limitPageviews = options.pageviews ?? Infinity;
  if (limitHits === Infinity && limitPageviews === Infinity) throw new Error("generateHits needs hits or pageviews");
  const model = createModel(options);
  const random = mulberry32(seed ^ 0x5bd1e995);
  const regulars = Math.max(1, Math.floor(model.visitors * 0.05));
  // Session-level bot probability giving ~botShare of hits (bot sessions are longer).
  const botSession = (botShare * 2.8) / ((1 - botShare) * 6 + botShare * 2.8);
  const start = Date.parse(`${endDay}T00:00:00Z`) - (days - 1) * DAY_MS;
  const hourWeights = Array.from({ length: 24 }, (_, h) => [h, 1.2 + Math.sin(((h - 9) / 24) * 2 * Math.PI)]);
  const pickHour = weighted(hourWeights);
  // Weekends are quieter, traffic grows over the period, days vary a little.
  const dayWeights = Array.from({ length: days }, (_, day) => {
    const weekday = new Date(start + day * DAY_MS).getUTCDay();
    return (weekday === 0 || weekday === 6 ? 0.8 : 1.08) * (0.85 + (0.3 * day) / days) * (0.9 + 0.2 * random());
  });
  let generatedHits = 0;
  let generatedPageviews = 0;
  const short = () => (limitHits !== Infinity ? limitHits - generatedHits : (limitPageviews - generatedPageviews) / 0.855); // human pageviews are ~85.5% of hits
  let emitted = 0;
  let pageviews = 0;
  let pending = [];

  for (let day = 0; day < days; day++) {
    const dayStart = start + day * DAY_MS;
    let weightLeft = 0;
    for (let d = day; d < days; d++) weightLeft += dayWeights[d];
    const target = (short() * dayWeights[day]) / weightLeft;
    for (let made = 0; made < target;) made += session(dayStart, pending);
    // The last day takes whatever is still missing, so the period ends on endDay.
    if (day === days - 1) while (short() > 0) session(dayStart, pending);
    pending.sort((a, b) => a.timestamp - b.timestamp);
    const dayEnd = dayStart + DAY_MS;
    let cut = 0;
    while (cut < pending.length && (pending[cut].timestamp < dayEnd || day === days - 1)) cut++;
    for (let i = 0; i < cut; i++) {
      const hit = pending[i];
      yield hit;
      emitted++;
      if (hit.event === null && !hit.bot) pageviews++;
      if (emitted >= limitHits || pageviews >= limitPageviews) return;
    }
    pending = pending.slice(cut);
  }

  function session(dayStart, out) {
    const isBot = random() < botSession;
    const index = isBot
      ? Math.floor(random() * 300)
      : random() < 0.35
        ? Math.floor(Math.pow(random(), 2) * regulars)
        : Math.floor(random() * model.visitors);
    const who = isBot ? model.bot(index) : model.visitor(index);
    let t = dayStart + pickHour(random())[0] * 3_600_000 + Math.floor(random() * 3_600_000);
    const views = isBot ? 1 + Math.floor(random() * 10) : 1 + Math.min(29, Math.floor(Math.log(1 - random()) / Math.log(0.55)));
    let referrer = null;
    let query = "";
    if (!isBot) {
      const r = random();
      if (r < 0.3) referrer = SEARCH[Math.floor(random() * SEARCH.length)];
      else if (r < 0.42) {
        const base = SOCIAL[Math.floor(random() * SOCIAL.length)];
        referrer = base.endsWith("=") ? base + Math.floor(random() * 4e7) : base;
      } else if (r < 0.5)
        referrer = `https://blog-${Math.floor(random() * 400)}.example.net/posts/${WORDS[Math.floor(random() * WORDS.length)]}`;
      if (random() < 0.07) {
        const campaign = CAMPAIGNS[Math.floor(Math.pow(random(), 1.5) * CAMPAIGNS.length)];
        query = `utm_source=${referrer ? "social" : "newsletter"}&utm_medium=${referrer ? "cpc" : "email"}&utm_campaign=${campaign}`;
      }
    }
    let made = 0;
    let previousUrl = referrer;
    for (let v = 0; v < views; v++) {
      const path = model.pages[model.page(random())];
      const url = v === 0 && query !== "" ? `${ORIGIN}${path}${path.includes("?") ? "&" : "?"}${query}` : `${ORIGIN}${path}`;
      out.push({
        url,
        referrer: previousUrl,
        screen: who.screen,
        language: who.language,
        event: null,
        props: null,
        ip: who.ip,
        userAgent: who.userAgent,
        timestamp: t,
        visitor: index,
        bot: isBot,
      });
      made++;
      generatedHits++;
      if (!isBot) generatedPageviews++;
      if (!isBot && random() < 0.11) {
        const [name, , propsOf] = model.pickEvent(random());
        t += 2000 + Math.floor(random() * 30_000);
        out.push({
          url,
          referrer: previousUrl,
          screen: who.screen,
          language: who.language,
          event: name,
          props: propsOf(random),
          ip: who.ip,
          userAgent: who.userAgent,
          timestamp: t,
          visitor: index,
          bot: false,
        });
        made++;
        generatedHits++;
      }
      previousUrl = url;
      t += 5000 + Math.floor(-Math.log(1 - random()) * (isBot ? 3000 : 55_000));
    }
    return made;
  }
}

/** The body the tracker would POST for a hit (SPEC §6). */
export function trackerBody(hit) {
  const body = { u: hit.url };
  if (hit.referrer) body.r = hit.referrer;
  if (hit.screen) body.s = hit.screen;
  if (hit.language) body.l = hit.language;
  if (hit.event) body.n = hit.event;
  if (hit.props) body.p = hit.props;
  return JSON.stringify(body);
}

/**
 * What the tracker would send for `count` realistic hits of one day (≈5% bots), as request
 * bodies and headers for a load generator (behind a proxy: X-Forwarded-For names the visitor).
 */
export function trackerRequests(count = 5000) {
  return [...generateHits({ hits: count, days: 1, pages: 3000, visitors: 50_000 })].map((hit) => ({
    body: trackerBody(hit),
    headers: {
      "content-type": "text/plain;charset=UTF-8",
      "user-agent": hit.userAgent,
      "x-forwarded-for": hit.ip,
      origin: "https://www.example-shop.com",
    },
  }));
}
