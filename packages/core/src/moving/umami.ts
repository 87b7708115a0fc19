import type Database from "better-sqlite3";
import type { KnownValues } from "../model/hit-input.js";
import { LIMITS } from "../model/hit-input.js";
import { checkRevenue, type RevenueInput } from "../model/revenue.js";
import { openCsv, type CsvRecord } from "./csv-records.js";
import { ImportFileError } from "./csv-records.js";
import { pageUrl, parseTime, type ImportItem, type OpenReader, type TargetWebsite } from "./import-items.js";
import type { ByteCounter, InputEntry } from "./input-files.js";
import { systemName, UMAMI_BOT_BROWSERS, umamiBrowser, umamiDevice } from "./names.js";
import { batchedInsert, openScratch } from "./scratch.js";

/**
 * Umami's tables (prisma/schema.prisma; db/clickhouse/schema.sql): `website_event` with
 * `session` beside it as exported from PostgreSQL or MySQL, or ClickHouse's (Umami
 * Cloud's) `website_event` that carries the session's columns itself; `event_data`
 * gives events their properties.
 */
const EVENT_COLUMNS = ["session_id", "created_at", "url_path", "event_type"];
const SESSION_COLUMNS = ["session_id", "browser", "os", "device", "screen", "language", "country", "city"] as const;
/** Read where the export has them: the ISO 3166-2 region (`US-TX`), `subdivision1` in Umami 2, `region` in later versions. */
const OPTIONAL_SESSION_COLUMNS = ["subdivision1", "region"] as const;
const SESSION_FIELDS = [...SESSION_COLUMNS, ...OPTIONAL_SESSION_COLUMNS] as const;
const EVENT_TYPES = { pageView: 1, customEvent: 2, linkEvent: 3, pixelEvent: 4, performance: 5 } as const;

type Session = Record<(typeof SESSION_FIELDS)[number], string>;

const nullable = (text: string) => (text === "\\N" ? "" : text);

function sessionOf(record: CsvRecord): Session {
  return Object.fromEntries(SESSION_FIELDS.map((column) => [column, nullable(record.get(column)).trim()])) as Session;
}

/** Sessions and event properties in a scratch database, read once (their files are small beside the events). */
async function loadSide(scratch: Database.Database, sessions: InputEntry | undefined, data: InputEntry | undefined, counter: ByteCounter) {
  scratch.exec(`create table sessions (id text primary key, ${SESSION_FIELDS.slice(1).join(" text, ")} text) without rowid;
    create table props (event text not null, key text not null, value text not null)`);
  if (sessions) {
    const csv = await openCsv(sessions.name, await sessions.open(counter), SESSION_COLUMNS);
    const insert = batchedInsert(scratch, `insert or replace into sessions values (${SESSION_FIELDS.map(() => "?").join(", ")})`);
    for await (const record of csv.records()) {
      const session = sessionOf(record);
      if (session.session_id === "") record.fail("session_id", "the session id is empty");
      insert.add(SESSION_FIELDS.map((column) => session[column]));
    }
    insert.finish();
  }
  if (data) {
    const csv = await openCsv(data.name, await data.open(counter), ["data_key"]);
    const eventColumn = csv.has("website_event_id") ? "website_event_id" : "event_id";
    if (!csv.has(eventColumn)) throw new ImportFileError(data.name, 1, null, 'the header lacks "website_event_id" (or "event_id")');
    const insert = batchedInsert(scratch, "insert into props values (?, ?, ?)");
    for await (const record of csv.records()) {
      const value =
        [record.get("string_value"), numberText(record.get("number_value")), record.get("date_value")]
          .map(nullable)
          .find((text) => text !== "") ?? "";
      insert.add([record.get(eventColumn), record.get("data_key").slice(0, LIMITS.propKey), value.slice(0, LIMITS.propValue)]);
    }
    insert.finish();
    scratch.exec("create index props_event on props (event)");
  }
}

/** `19.0000` → `19`, `3.5000` → `3.5` (Umami stores numbers as decimals). */
function numberText(text: string): string {
  return /^-?\d+\.\d+$/.test(text) ? text.replace(/\.?0+$/, "") : text;
}

/**
 * An event's revenue, as Umami keeps it: the event data keys `revenue` and `currency` (Umami's
 * revenue report reads the same pair). A pair Tally would refuse (an unknown currency) stays
 * the event's properties only.
 */
function revenueOf(props: Record<string, string> | null, event: string): RevenueInput | null {
  if (!props?.revenue || !props.currency) return null;
  const revenue = { amount: props.revenue, currency: props.currency };
  try {
    checkRevenue(revenue, event);
    return revenue;
  } catch {
    return null;
  }
}

function referrerOf(record: CsvRecord): string {
  const domain = nullable(record.get("referrer_domain")).trim();
  if (domain === "") return "";
  const path = nullable(record.get("referrer_path"));
  const query = nullable(record.get("referrer_query")).replace(/^\?/, "");
  return `https://${domain}${path.startsWith("/") ? path : `/${path}`}${query === "" ? "" : `?${query}`}`;
}

function knownOf(session: Session | undefined): KnownValues {
  if (!session) return {};
  return {
    browser: umamiBrowser(session.browser),
    os: session.os === "" ? "" : systemName(session.os),
    device: umamiDevice(session.device),
    country: session.country,
    city: session.city,
    // `US-TX`, as GoatCounter's locations: the region's code (enrich/regions.ts names it).
    region: session.region || session.subdivision1,
  };
}

function eventItem(
  record: CsvRecord,
  website: TargetWebsite,
  session: Session | undefined,
  props: (id: string) => Record<string, string> | null,
): ImportItem {
  const type = record.get("event_type").trim();
  const time = parseTime(record.get("created_at"));
  if (Number.isNaN(time))
    record.fail("created_at", `expected a time such as 2024-03-15 10:00:00, got "${record.get("created_at").slice(0, 40)}"`);
  if (record.get("session_id").trim() === "") record.fail("session_id", "the session id is empty");
  if (!/^[1-5]$/.test(type)) record.fail("event_type", `expected 1 to 5, got "${type.slice(0, 10)}"`);
  const name = nullable(record.get("event_name")).trim();
  if (Number(type) === EVENT_TYPES.customEvent && name === "") record.fail("event_name", "a custom event (type 2) has no name");
  if (Number(type) === EVENT_TYPES.performance) return { kind: "skip", reason: "performance measurement (Umami event type 5)" };
  if (Number(type) !== EVENT_TYPES.pageView && Number(type) !== EVENT_TYPES.customEvent)
    return { kind: "skip", reason: "link or pixel event (Umami event type 3 or 4)" };
  if (website.excludeBots && session && UMAMI_BOT_BROWSERS.has(session.browser.toLowerCase()))
    return { kind: "skip", reason: "bot (Umami's browser)" };
  const event = Number(type) === EVENT_TYPES.customEvent;
  const eventProps = event ? props(record.get("event_id")) : null;
  return {
    kind: "hit",
    time,
    hit: {
      url: pageUrl(website.domain, nullable(record.get("url_path")), nullable(record.get("url_query"))),
      referrer: referrerOf(record),
      screen: session?.screen ?? "",
      language: session?.language ?? "",
      event: event ? name.slice(0, LIMITS.event) : null,
      props: eventProps,
      revenue: event ? revenueOf(eventProps, name) : null,
      visitorKey: record.get("session_id").trim(),
      userAgent: "",
      known: knownOf(session),
      timestamp: time,
    },
  };
}

const byName = (entries: readonly InputEntry[], name: string) => entries.find((entry) => entry.name === name);

export const openUmami: OpenReader = async (input, website, scratchDirectory) => {
  const events =
    byName(input.entries, "website_event.csv") ?? input.entries.find((entry) => !/^(session|event_data)\.csv$/.test(entry.name));
  if (!events) throw new ImportFileError(input.path, 1, null, "no website_event.csv in it");
  const sessions = byName(input.entries, "session.csv");
  const data = byName(input.entries, "event_data.csv");
  const used = new Set([events, sessions, data]);
  const scratch = openScratch(scratchDirectory, "umami");
  let loaded = false;
  const findSession = () => scratch.prepare("select * from sessions where id = ?");
  const findProps = () => scratch.prepare("select key, value from props where event = ? limit ?");
  const websiteIds = new Set<string>();
  return {
    format: "umami",
    kind: "replay",
    ignored: input.entries.filter((entry) => !used.has(entry)).map((entry) => entry.name),
    async *items(counter: ByteCounter) {
      if (!loaded) await loadSide(scratch, sessions, data, counter);
      else counter.bytes += (sessions?.size ?? 0) + (data?.size ?? 0);
      loaded = true;
      const csv = await openCsv(events.name, await events.open(counter), EVENT_COLUMNS);
      const inline = csv.has("browser");
      if (!inline && !sessions)
        throw new ImportFileError(
          events.name,
          1,
          null,
          "its rows carry no session columns (browser, os…) and no session.csv lies beside it",
        );
      const session = findSession();
      const prop = findProps();
      const props = (id: string) => {
        const rows = prop.all(id, LIMITS.props) as { key: string; value: string }[];
        return rows.length === 0 ? null : Object.fromEntries(rows.map((row) => [row.key, row.value]));
      };
      const hasWebsiteId = csv.has("website_id");
      for await (const record of csv.records()) {
        if (hasWebsiteId && record.get("website_id").trim() !== "") websiteIds.add(record.get("website_id").trim());
        const values = inline
          ? sessionOf(record)
          : (session.get(record.get("session_id").trim()) as (Session & { id: string }) | undefined);
        yield eventItem(record, website, values, props);
      }
    },
    aliases: () => [...websiteIds],
    close: async () => {
      scratch.close();
    },
  };
};
