/**
 * The fields of a raw hit as docs/statistics.md defines them (page, referrer, UTM
 * parameters, screen, language, properties, local day and hour), and the IP lists,
 * written from the document for the reference model, not taken from the engine.
 */
import { readFileSync } from "node:fs";
import type { SiteConfig } from "./reference-data.js";

// ---------- IP addresses and CIDR, by hand ----------

function ipv4ToBigInt(ip: string): bigint | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    n = (n << 8n) | BigInt(Number(part));
  }
  return n;
}

function ipv6ToBigInt(ip: string): bigint | null {
  const halves = ip.toLowerCase().split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let n = 0n;
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
    n = (n << 16n) | BigInt(parseInt(group, 16));
  }
  return n;
}

function parseAddress(ip: string): { family: 4 | 6; value: bigint } | null {
  const v4 = ipv4ToBigInt(ip);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = ipv6ToBigInt(ip);
  return v6 === null ? null : { family: 6, value: v6 };
}

export function ipMatchesList(ip: string, list: string): boolean {
  const address = parseAddress(ip);
  if (!address) return false;
  for (const line of list.split("\n")) {
    const entry = line.trim();
    if (entry === "") continue;
    const [base, prefixText] = entry.split("/");
    const network = parseAddress(base!);
    if (!network || network.family !== address.family) continue;
    const bits = address.family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    const shift = BigInt(bits - prefix);
    if (address.value >> shift === network.value >> shift) return true;
  }
  return false;
}

// ---------- time ----------

const formatters = new Map<string, Intl.DateTimeFormat>();
export function localDayHour(timeZone: string, epochMs: number): { day: string; hour: string } {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timeZone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(new Date(epochMs))) parts[part.type] = part.value;
  return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: parts.hour! };
}

// ---------- fields of a hit ----------

const withoutWww = (host: string) => (host.startsWith("www.") ? host.slice(4) : host);

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    return name;
  }
}

/** docs/statistics.md: the path reads decoded, except escapes of reserved characters. */
function decodePath(pathname: string): string {
  try {
    return decodeURI(pathname);
  } catch {
    return pathname;
  }
}

/** docs/statistics.md, "Page": never part of a page, whatever exclude_params says. */
const CLICK_IDS = [
  "gclid",
  "gbraid",
  "wbraid",
  "fbclid",
  "msclkid",
  "twclid",
  "ttclid",
  "li_fat_id",
  "mc_cid",
  "mc_eid",
  "_ga",
  "_gl",
  "yclid",
  "dclid",
];
const isTracking = (name: string) => name.startsWith("utm_") || CLICK_IDS.includes(name);

export function pageOf(url: URL, site: SiteConfig, hash: boolean): string {
  const excluded = site.exclude_params.split("\n").filter((line) => line !== "");
  let page = decodePath(url.pathname);
  if (!excluded.includes("&")) {
    const query = url.search.replace(/^\?/, "");
    const kept =
      query === ""
        ? []
        : query.split("&").filter((pair) => {
            const name = decodeName(pair.split("=")[0]!);
            return !excluded.includes(name) && !isTracking(name);
          });
    if (kept.length > 0) page += `?${kept.join("&")}`;
  }
  if (hash && url.hash !== "" && url.hash !== "#") page += url.hash;
  return page;
}

/** docs/statistics.md, "Hostname": the page's host, `www.` stripped. */
export const hostOf = (url: URL): string => withoutWww(url.hostname);

/** The referring host, "" when it is the site's own: its domain, or for a site counting its subdomains the page's own host. */
export function referrerHost(referrer: string | undefined, site: SiteConfig, page: URL): string {
  if (!referrer) return "";
  let url: URL;
  try {
    url = new URL(referrer);
  } catch {
    return "";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "";
  const host = withoutWww(url.hostname);
  return host === (site.include_subdomains === 1 ? hostOf(page) : site.domain) ? "" : host;
}

const SPAM = new Set(readFileSync(new URL("../../packages/core/lists/referrer-spam.txt", import.meta.url), "utf8").split("\n"));

/** docs/statistics.md, "A hit": the referring host or a parent domain of it is on the spam list. */
export const isReferrerSpam = (host: string): boolean =>
  host.split(".").some((_, i, labels) => i < labels.length - 1 && SPAM.has(labels.slice(i).join(".")));

export const UTM_FIELDS = ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"] as const;
export type UtmField = (typeof UTM_FIELDS)[number];

const CONTROL = /[\u0000-\u001f\u007f]/g;

/** A visit's UTM fields: the URL's parameters, control characters removed, then trimmed, then cut to 200 characters. */
export function utmOf(url: URL): Record<UtmField, string> {
  const utm = {} as Record<UtmField, string>;
  for (const field of UTM_FIELDS) utm[field] = (url.searchParams.get(field) ?? "").replace(CONTROL, "").trim().slice(0, 200);
  return utm;
}

/** An event's properties as stored: numbers and booleans as text, values cut to 200 characters. */
export function propsOf(props: Record<string, string | number | boolean> | undefined): Map<string, string> | null {
  if (props === undefined) return null;
  return new Map(Object.entries(props).map(([name, value]) => [name, String(value).slice(0, 200)]));
}

export function screenOf(screen: string | undefined): string {
  return screen !== undefined && /^\d+x\d+$/.test(screen) ? screen : "";
}

export function languageOf(language: string | undefined): string {
  if (language === undefined) return "";
  const subtags = language.split(/[-_]/);
  if (!/^[A-Za-z]{2,3}$/.test(subtags[0]!)) return "";
  if (!subtags.slice(1).every((tag) => /^[A-Za-z0-9]{1,8}$/.test(tag))) return "";
  return subtags[0]!.toLowerCase();
}

// ---------- source and channel (docs/statistics.md, "Source" and "Channel") ----------

/** The data source the engine reads too: name → [category, ...hosts]. */
const SOURCE_LIST = JSON.parse(readFileSync(new URL("../../packages/core/lists/sources.json", import.meta.url), "utf8")) as Record<
  string,
  string[]
>;
const nameOfHost = new Map(Object.entries(SOURCE_LIST).flatMap(([name, [, ...hosts]]) => hosts.map((host) => [host, name] as const)));
const listNames = Object.keys(SOURCE_LIST);

export function sourceOf(referrer: string, utmSource: string): string {
  if (referrer === "") return listNames.find((name) => name.toLowerCase() === utmSource.toLowerCase()) ?? utmSource;
  const labels = referrer.split(".");
  const domains = labels.slice(0, -1).map((_, i) => labels.slice(i).join("."));
  return domains.map((domain) => nameOfHost.get(domain)).find((name) => name !== undefined) ?? referrer;
}

interface Arrival {
  source: string;
  category: string;
  medium: string;
  campaign: string;
  tagged: string;
  clickId: string;
}

const paidMedium = (a: Arrival) => /^(.*cp.*|ppc|retargeting|paid.*)$/.test(a.medium);
const paidTag = (a: Arrival) => a.tagged === "adwords" || /(^|[^a-z])ads?$/.test(a.tagged);
const shopping = (a: Arrival) => a.category === "shopping" || /(([^a-df-z]|^)shop|shopping)/.test(a.campaign);
const paidIn = (category: string) => (a: Arrival) => a.category === category && (paidMedium(a) || paidTag(a));
const mentionsEmail = (text: string) => ["email", "e-mail", "e_mail", "e mail", "newsletter"].some((tag) => text.includes(tag));

/** The document's rules in its order; the first that holds names the channel. */
const CHANNEL_RULES: readonly (readonly [string, (a: Arrival) => boolean])[] = [
  ["Cross-network", (a) => a.campaign.includes("cross-network")],
  ["Paid Shopping", (a) => shopping(a) && paidMedium(a)],
  [
    "Paid Search",
    (a) => paidIn("search")(a) || (a.source === "google" && a.clickId === "gclid") || (a.source === "bing" && a.clickId === "msclkid"),
  ],
  ["Paid Social", paidIn("social")],
  ["Paid Video", paidIn("video")],
  ["Display", (a) => ["display", "banner", "expandable", "interstitial", "cpm"].includes(a.medium)],
  ["Paid Other", paidMedium],
  ["Organic Shopping", shopping],
  [
    "Organic Social",
    (a) =>
      a.category === "social" || ["social", "social-network", "social-media", "sm", "social network", "social media"].includes(a.medium),
  ],
  ["Organic Video", (a) => a.category === "video" || a.medium.includes("video")],
  ["AI Assistants", (a) => a.category === "ai"],
  ["Organic Search", (a) => a.category === "search"],
  ["Email", (a) => a.category === "email" || mentionsEmail(a.tagged) || mentionsEmail(a.medium)],
  ["Affiliates", (a) => a.medium === "affiliate"],
  ["Audio", (a) => a.medium === "audio"],
  ["SMS", (a) => a.tagged === "sms" || a.medium === "sms"],
  ["Mobile Push Notifications", (a) => /push$|mobile|notification/.test(a.medium) || a.source === "firebase"],
  ["Referral", (a) => ["referral", "app", "link"].includes(a.medium) || a.source !== ""],
];

export function channelOf(source: string, utm: Record<UtmField, string>, url: URL): string {
  const name = listNames.find((listed) => listed.toLowerCase() === source.toLowerCase());
  const arrival: Arrival = {
    source: source.toLowerCase(),
    category: name === undefined ? "" : SOURCE_LIST[name]![0]!,
    medium: utm.utm_medium.toLowerCase(),
    campaign: utm.utm_campaign.toLowerCase(),
    tagged: utm.utm_source.toLowerCase(),
    clickId: url.searchParams.has("gclid") ? "gclid" : url.searchParams.has("msclkid") ? "msclkid" : "",
  };
  return CHANNEL_RULES.find(([, holds]) => holds(arrival))?.[0] ?? "Direct";
}
