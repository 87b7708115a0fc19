// The raw-events baseline (the Umami / GoatCounter approach): one row per hit, every
// statistic a GROUP BY at query time. Rows carry the local day and hour already, so
// the baseline pays no time zone math, and a visit-start flag from a simple
// sessionizer (same rules as docs/statistics.md) so landing pages, referrers and
// campaigns are one WHERE away.
import { isIP } from "node:net";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { ROOT, requireFromCore } from "./paths.mjs";

// A visit's named source and channel, by Tally's own rules: the raw rows carry them as
// columns (worked out once at insert), so the baseline is the GROUP BY, as for any column.
const { channelOf, clickIdOf, loadRegions, sourceOf } = await import(
  pathToFileURL(join(ROOT, "packages/core/dist/bundle/internal.js")).href
);
const { regionOfName } = await loadRegions();

export const RAW_COLUMNS = [
  "website_id",
  "ts",
  "day",
  "hour",
  "visitor",
  "visit",
  "page",
  "referrer",
  "campaign",
  "utm_source",
  "utm_medium",
  "utm_content",
  "utm_term",
  "browser",
  "os",
  "device",
  "country",
  "continent",
  "city",
  "resolution",
  "language",
  "event",
  "props",
  "is_visit_start",
  "browser_version",
  "os_version",
  "source",
  "channel",
  "region",
  "hostname",
];
const PG_TYPES = {
  website_id: "int",
  ts: "bigint",
  visitor: "bigint",
  visit: "bigint",
  is_visit_start: "smallint",
};
const VISIT_TIMEOUT_MS = 30 * 60 * 1000;

/** Local `Y-m-d` and `HH` of an instant, via Intl once per hour slot (the zone's offsets are whole hours). */
export function createLocalTime(timeZone) {
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
  });
  const slots = new Map();
  return (ms) => {
    const slot = Math.floor(ms / 3_600_000);
    let local = slots.get(slot);
    if (!local) {
      const parts = Object.fromEntries(format.formatToParts(slot * 3_600_000).map((p) => [p.type, p.value]));
      local = { day: `${parts.year}-${parts.month}-${parts.day}`, hour: parts.hour };
      slots.set(slot, local);
    }
    return local;
  };
}

/** Epoch ms of local midnight starting `day` in `timeZone`. */
export function localMidnight(day, timeZone) {
  const localTime = createLocalTime(timeZone);
  let guess = Date.parse(`${day}T00:00:00Z`);
  for (let i = 0; i < 3; i++) {
    const { day: d, hour } = localTime(guess);
    const asUtc = Date.parse(`${d}T${hour}:00:00Z`);
    guess -= asUtc - Date.parse(`${day}T00:00:00Z`);
  }
  return guess;
}

/** [start, end) of the local days from…to inclusive. */
export function rangeBounds(from, to, timeZone) {
  const next = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return [localMidnight(from, timeZone), localMidnight(next, timeZone)];
}

/** Country/continent/city/region values as Tally stores them, from the DB-IP city files (a region's name to its ISO code by Tally's own rule). */
export async function openRawGeo(paths) {
  if (!paths) return null;
  const maxmind = requireFromCore("maxmind");
  const { countries } = requireFromCore("countries-list");
  const names = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
  const continents = { AF: "Africa", AN: "Antarctica", AS: "Asia", EU: "Europe", NA: "North America", OC: "Oceania", SA: "South America" };
  const [v4, v6] = await Promise.all(paths.map((p) => maxmind.open(p)));
  const cache = new Map();
  return (ip) => {
    let place = cache.get(ip);
    if (place !== undefined) return place;
    const record = (isIP(ip) === 6 ? v6 : v4).get(ip);
    const code = record?.country_code && record.country_code !== "ZZ" ? record.country_code : "";
    if (!code) place = null;
    else {
      const continent = countries[code]?.continent ?? "";
      place = {
        country: `${code}:${names.of(code) ?? countries[code]?.name ?? code}`,
        continent: continents[continent] ? `${continent}:${continents[continent]}` : null,
        city: record.city ? `${code}:${record.city}` : null,
        region: regionOfName(code, record.state1 ?? "") || null,
      };
    }
    if (cache.size > 200_000) cache.clear();
    cache.set(ip, place);
    return place;
  };
}

/**
 * Turns generated hits into raw rows (arrays in RAW_COLUMNS order); bots give null,
 * as they would be filtered at ingest by any analytics tool.
 */
export function createRawRowMaker({ websiteId, domain, timeZone, visitors, geo }) {
  const UAParser = requireFromCore("ua-parser-js");
  const parser = new UAParser();
  const agents = new Map();
  const localTime = createLocalTime(timeZone);
  const dayIndex = new Map();
  // Sessionizer state per visitor (the generator's (IP, UA) index).
  const lastSeen = new Float64Array(visitors);
  const visitReferrer = new Array(visitors).fill(null);
  const visitCampaign = new Array(visitors).fill(null);
  const visitOf = new Float64Array(visitors);
  let visits = 0;
  const ownHost = domain.toLowerCase();

  function agent(ua) {
    let info = agents.get(ua);
    if (!info) {
      const r = parser.setUA(ua).getResult();
      const browser = r.browser.name === "Chrome Headless" ? "Chrome" : (r.browser.name ?? null);
      const os = r.os.name ?? null;
      const osVersion = r.os.version?.split(".").slice(0, 2).join(".");
      info = {
        browser,
        os,
        device: r.device.type ?? (browser || os ? "desktop" : null),
        browserVersion: browser && r.browser.major ? `${browser} ${r.browser.major}` : null,
        osVersion: os && osVersion ? `${os} ${osVersion}` : null,
      };
      agents.set(ua, info);
    }
    return info;
  }

  function externalHost(referrer) {
    if (!referrer) return null;
    const match = /^https?:\/\/([^/?#:]+)/i.exec(referrer);
    if (!match) return null;
    const host = match[1].toLowerCase().replace(/^www\./, "");
    return host === ownHost ? null : host;
  }

  function acquisitionOf(url, referrer, utmOf, campaign) {
    const utmSource = utmOf("source") ?? "";
    const source = sourceOf(referrer ?? "", utmSource);
    const input = { source, utmSource, utmMedium: utmOf("medium") ?? "", utmCampaign: campaign ?? "", clickId: clickIdOf(new URL(url)) };
    return { source: source === "" ? null : source, channel: channelOf(input) };
  }

  return function rawRow(hit) {
    if (hit.bot) return null;
    const { day, hour } = localTime(hit.timestamp);
    let d = dayIndex.get(day);
    if (d === undefined) dayIndex.set(day, (d = dayIndex.size));
    const pathStart = hit.url.indexOf("/", 8);
    const fullPage = pathStart < 0 ? "/" : hit.url.slice(pathStart);
    const utm = fullPage.search(/[?&]utm_source=/);
    const page = utm < 0 ? fullPage : fullPage.slice(0, utm);
    const utmOf = (field) => new RegExp(`[?&]utm_${field}=([^&#]*)`).exec(fullPage)?.[1] ?? null;
    const campaign = utmOf("campaign");
    const referrer = externalHost(hit.referrer);
    const v = hit.visitor;
    const last = lastSeen[v];
    const start =
      last === 0 ||
      hit.timestamp - last >= VISIT_TIMEOUT_MS ||
      (referrer !== null && referrer !== visitReferrer[v]) ||
      (campaign !== null && campaign !== visitCampaign[v]);
    if (start) {
      visitReferrer[v] = referrer;
      visitCampaign[v] = campaign;
      visitOf[v] = ++visits;
    }
    lastSeen[v] = Math.max(last, hit.timestamp);
    const ua = agent(hit.userAgent);
    const acquisition = start ? acquisitionOf(hit.url, referrer, utmOf, campaign) : null;
    const place = geo ? geo(hit.ip) : null;
    return [
      websiteId,
      hit.timestamp,
      day,
      hour,
      d * visitors + v, // one visitor per (IP, UA) and local day, like Tally's daily hash
      visitOf[v],
      page,
      start ? referrer : null,
      start ? campaign : null,
      start ? utmOf("source") : null,
      start ? utmOf("medium") : null,
      start ? utmOf("content") : null,
      start ? utmOf("term") : null,
      ua.browser,
      ua.os,
      ua.device,
      place?.country ?? null,
      place?.continent ?? null,
      place?.city ?? null,
      hit.screen ?? null,
      hit.language ? hit.language.split(/[-_]/)[0].toLowerCase() : null,
      hit.event ?? null,
      hit.event && hit.props ? JSON.stringify(hit.props) : null,
      start ? 1 : 0,
      ua.browserVersion,
      ua.osVersion,
      start ? acquisition.source : null,
      start ? acquisition.channel : null,
      place?.region ?? null,
      // The page's host, `www.` stripped (the bench's data is on one host: no visit moves to another).
      /^https?:\/\/([^/?#:]+)/i
        .exec(hit.url)?.[1]
        .toLowerCase()
        .replace(/^www\./, "") ?? null,
    ];
  };
}

const SQLITE_TYPES = {
  website_id: "integer not null",
  ts: "integer not null",
  day: "text not null",
  hour: "text not null",
  visitor: "integer not null",
  visit: "integer not null",
  page: "text not null",
  is_visit_start: "integer not null",
};
export const SQLITE_RAW_SCHEMA = `create table raw_events (${RAW_COLUMNS.map((c) => `${c} ${SQLITE_TYPES[c] ?? "text"}`).join(", ")})`;
export const RAW_INDEX = "create index raw_events_website_ts on raw_events (website_id, ts)";

export const PG_RAW_SCHEMA = `create table raw_events (${RAW_COLUMNS.map((c) => `${c} ${PG_TYPES[c] ?? "text"}`).join(", ")})`;

/** A multi-row insert through unnest: one round trip and one plan per batch. */
export const PG_RAW_INSERT = `insert into raw_events (${RAW_COLUMNS.join(", ")}) select * from unnest(${RAW_COLUMNS.map(
  (c, i) => `$${i + 1}::${PG_TYPES[c] ?? "text"}[]`,
).join(", ")})`;

/** Rows (arrays) → one array per column, for PG_RAW_INSERT. */
export function columnsOf(rows, width) {
  const columns = Array.from({ length: width }, () => new Array(rows.length));
  for (let r = 0; r < rows.length; r++) for (let c = 0; c < width; c++) columns[c][r] = rows[r][c];
  return columns;
}

const VISITOR_DIMENSIONS = {
  browser: "browser",
  os: "os",
  device: "device",
  resolution: "resolution",
  language: "language",
  country: "country",
  continent: "continent",
  city: "city",
  browser_version: "browser_version",
  os_version: "os_version",
  region: "region",
};
const VISIT_DIMENSIONS = {
  landing_page: "page",
  referrer: "referrer",
  campaign: "campaign",
  utm_source: "utm_source",
  utm_medium: "utm_medium",
  utm_content: "utm_content",
  utm_term: "utm_term",
  source: "source",
  channel: "channel",
};

/** Per visit, by the day it started: what the visit ratios divide. */
const PER_VISIT = (where, dialect) =>
  `select min(day) as day, sum(case when event is null then 1 else 0 end) as views, sum(case when event is null then 0 else 1 end) as events,
    ${dialect === "clickhouse" ? "intDiv(max(ts) - min(ts), 1000)" : "(max(ts) - min(ts)) / 1000"} as duration from raw_events where ${where} group by visit`;
/** Each visit ratio over its per-visit rows (docs/statistics.md's rounding). */
const RATIOS = {
  bounce_rate: "round(1000.0 * sum(case when views = 1 and events = 0 then 1 else 0 end) / count(*)) / 10",
  visit_duration: "round(1.0 * sum(duration) / count(*))",
  views_per_visit: "round(100.0 * sum(views) / count(*)) / 100",
};

/** A JSON property of the `props` column as text (null when the event has none). */
const property = (dialect, name) =>
  dialect === "postgres"
    ? `(props::jsonb ->> ${quote(name)})`
    : dialect === "clickhouse"
      ? `nullIf(JSONExtractString(props, ${quote(name)}), '')`
      : `json_extract(props, ${quote(`$."${name}"`)})`;

/** A statement's three parameters (website id, start ms, end ms) in a dialect. */
export const PLACEHOLDERS = {
  sqlite: ["?", "?", "?"],
  postgres: ["$1", "$2", "$3"],
  clickhouse: ["{website:Int64}", "{start:Int64}", "{end:Int64}"],
};
export const quote = (text) => `'${text.replace(/'/g, "''")}'`;

/**
 * The natural GROUP BY for each statistic: top 10 by count, ties by value, as
 * Tally's default query. Parameters: website id, start ms, end ms (exclusive).
 * `extra`: more conditions on the raw rows (the filtered queries), and for
 * `event_property` its event and property.
 */
export function baselineSql(name, dialect, { event = "", prop = "", extra = "" } = {}) {
  const p = PLACEHOLDERS[dialect];
  const where = `website_id = ${p[0]} and ts >= ${p[1]} and ts < ${p[2]}${extra ? ` and ${extra}` : ""}`;
  const tail = "group by value order by count desc, value limit 10";
  const count = (column, filter, agg = "count(*)") =>
    `select ${column} as value, ${agg} as count from raw_events where ${where}${filter ? ` and ${filter}` : ""} ${tail}`;
  if (VISITOR_DIMENSIONS[name]) return count(name, `${name} is not null`, "count(distinct visitor)");
  if (VISIT_DIMENSIONS[name]) return count(VISIT_DIMENSIONS[name], `is_visit_start = 1 and ${VISIT_DIMENSIONS[name]} is not null`);
  if (RATIOS[name]) return `select day as value, ${RATIOS[name]} as count from (${PER_VISIT(where, dialect)}) per_visit ${tail}`;
  switch (name) {
    case "pageviews":
      return count("day", "event is null");
    case "visitors":
      return count("day", "", "count(distinct visitor)");
    case "visits":
      return count("day", "is_visit_start = 1");
    case "pageviews_hours":
      return count("hour", "event is null");
    case "visitors_hours":
      // Each daily visitor counted at the hour of their first hit.
      if (dialect === "postgres")
        return `select hour as value, count(*) as count from (select distinct on (visitor) hour from raw_events where ${where} order by visitor, ts) first_hits ${tail}`;
      if (dialect === "clickhouse")
        return `select first_hour as value, count(*) as count from (select visitor, argMin(hour, ts) as first_hour from raw_events where ${where} group by visitor) first_hits ${tail}`;
      return `select hour as value, count(*) as count from (select visitor, hour, min(ts) from raw_events where ${where} group by visitor) first_hits ${tail}`;
    case "page":
      return count("page", "event is null");
    case "hostname":
      return count("hostname", "event is null and hostname is not null");
    case "exit_page":
      // The page of each visit's last pageview.
      return `select page as value, count(*) as count from (select page, row_number() over (partition by visit order by ts desc) as n
        from raw_events where ${where} and event is null) last_pages where n = 1 ${tail}`;
    case "event":
      return count("event", "event is not null");
    case "goals":
      return count("event", "event is not null", "count(distinct visitor)");
    case "event_property":
      return count(property(dialect, prop), `event = ${quote(event)} and ${property(dialect, prop)} is not null`);
    default:
      throw new Error(`no baseline for ${name}`);
  }
}

/** Raw conditions answering the same question as a Tally filter: visits with a pageview of `page` in the range. */
export const visitsViewing = (page, websiteId, [start, end]) =>
  `visit in (select visit from raw_events where website_id = ${Number(websiteId)} and ts >= ${Number(start)} and ts < ${Number(end)} and page = ${quote(page)} and event is null)`;
export const rawEquals = (column, value) => `${column} = ${quote(value)}`;
