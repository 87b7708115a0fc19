import type { KnownValues } from "../model/hit-input.js";
import { createLruCache, type LruCache } from "../enrich/lru-cache.js";
import { openCsv, type CsvRecord } from "./csv-records.js";
import { pageUrl, parseTime, type ImportItem, type OpenReader } from "./import-items.js";
import type { ByteCounter } from "./input-files.js";
import { browserName, deviceOfSystem, systemName, withVersionOf } from "./names.js";

/** GoatCounter's CSV export, version 2 (tpl/help/export.md): the header starts `2Path`. */
export const GOATCOUNTER_COLUMNS = [
  "2Path",
  "Title",
  "Event",
  "UserAgent",
  "Browser",
  "System",
  "Session",
  "Bot",
  "Referrer",
  "Referrer scheme",
  "Screen size",
  "Location",
  "FirstVisit",
  "Date",
] as const;

/** Go's strconv.ParseBool, which GoatCounter's own import uses. */
function boolean(record: CsvRecord, column: string): boolean {
  const text = record.get(column).trim();
  if (/^(1|t|true)$/i.test(text)) return true;
  if (/^(0|f|false)$/i.test(text)) return false;
  return record.fail(column, `expected true/false or 1/0, got "${text.slice(0, 40)}"`);
}

/** `x,y,scale` (newer exports record the width only: `1280,0,1`); a screen size only when both are known. */
function screen(record: CsvRecord): string {
  const text = record.get("Screen size").trim();
  if (text === "") return "";
  const match = /^(\d+),(\d+)(?:,[\d.]+)?$/.exec(text);
  if (!match) return record.fail("Screen size", `expected "width,height,scale", got "${text.slice(0, 40)}"`);
  return match[1] !== "0" && match[2] !== "0" ? `${match[1]}x${match[2]}` : "";
}

/**
 * Scheme `h` is a host and path; `o` another URL (android-app://…, not a website); `g` a
 * generated name (`Email`, `Google`): the visit's named source; `c` (campaigns) names nothing.
 */
function referrer(record: CsvRecord): { url: string; source: string } {
  const text = record.get("Referrer").trim();
  const scheme = record.get("Referrer scheme").trim();
  if (scheme === "g") return { url: "", source: text };
  if (text === "" || scheme === "c") return { url: "", source: "" };
  if (scheme !== "" && scheme !== "h" && scheme !== "o")
    return record.fail("Referrer scheme", `expected h, g, c or o, got "${scheme.slice(0, 10)}"`);
  return { url: /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`, source: "" };
}

/** `US` or `US-TX`: the country and the region; with a user agent in the row, the rest comes from parsing it. */
function known(record: CsvRecord, hasUserAgent: boolean, source: string): KnownValues {
  const location = record.get("Location").trim();
  const country = location.split("-", 1)[0] ?? "";
  const region = location.includes("-") ? location : "";
  if (hasUserAgent) return { country, region, source };
  const os = systemName(record.get("System"));
  const browser = browserName(record.get("Browser"));
  return {
    browser,
    os,
    device: deviceOfSystem(os),
    country,
    region,
    source,
    browserVersion: withVersionOf(browser, record.get("Browser"), 1),
    osVersion: withVersionOf(os, record.get("System"), 2),
  };
}

function* rowItems(record: CsvRecord, domain: string, excludeBots: boolean, lastPages: LruCache<string, string>): Generator<ImportItem> {
  const path = record.get("2Path");
  if (path.trim() === "") record.fail("2Path", "the path is empty");
  const event = boolean(record, "Event");
  boolean(record, "FirstVisit");
  const botText = record.get("Bot").trim();
  if (!/^\d+$/.test(botText)) record.fail("Bot", `expected 0 or a bot kind number, got "${botText.slice(0, 20)}"`);
  const time = parseTime(record.get("Date"));
  if (Number.isNaN(time)) record.fail("Date", `expected an RFC 3339 time, got "${record.get("Date").slice(0, 40)}"`);
  const size = screen(record);
  const from = referrer(record);
  if (excludeBots && botText !== "0") {
    yield { kind: "skip", reason: "bot (GoatCounter's Bot column)" };
    return;
  }
  const session = record.get("Session").trim();
  // Without a session id a hit is a visitor of its own, as GoatCounter counts it.
  const visitorKey = session === "" || session === "0" ? `line:${record.line}` : session;
  const userAgent = record.get("UserAgent");
  // An event's path is its name; its page is the session's last page (or the home page).
  const page = event ? (lastPages.get(visitorKey) ?? "/") : path;
  if (!event) lastPages.set(visitorKey, path);
  yield {
    kind: "hit",
    time,
    hit: {
      url: pageUrl(domain, page),
      referrer: from.url,
      screen: size,
      event: event ? path : null,
      visitorKey,
      userAgent,
      known: known(record, userAgent.trim() !== "", from.source),
      timestamp: time,
    },
  };
}

export const openGoatCounter: OpenReader = async (input, website) => {
  const entry = input.entries[0]!;
  return {
    format: "goatcounter",
    kind: "replay",
    ignored: input.entries.slice(1).map((other) => other.name),
    async *items(counter: ByteCounter) {
      const csv = await openCsv(entry.name, await entry.open(counter), GOATCOUNTER_COLUMNS);
      const lastPages = createLruCache<string, string>(10_000);
      for await (const record of csv.records()) yield* rowItems(record, website.domain, website.excludeBots, lastPages);
    },
    close: async () => {},
  };
};
