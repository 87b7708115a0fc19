import type { Kysely } from "kysely";
import type { Database } from "../database/schema.js";
import type { WebsiteRow } from "../websites/websites.js";
import { toPlausibleName } from "./names.js";
import { byDay, dayRows, daySeries, type DayRow, type ExportRange } from "./rollup-rows.js";
import type { OutputFile } from "./zip-csv.js";

/**
 * The files Plausible's CSV import takes (the layout of Plausible's own export:
 * lib/plausible/exports.ex), from Tally's daily rollups. Tally counts fewer figures per
 * breakdown than Plausible's columns ask for: a column Tally has no count for gets the
 * nearest one it has (a page's visitors and visits are its pageviews; a referrer's
 * visitors its visits) or 0 (durations, bounces and pageviews of a breakdown).
 */
const VISITORS = ["visitors", "pageviews", "bounces", "visits", "visit_duration"] as const;
const SOURCES = [
  ["referrer", "referrer"],
  ["utm_source", "utm_source"],
  ["utm_medium", "utm_medium"],
  ["campaign", "utm_campaign"],
  ["utm_content", "utm_content"],
  ["utm_term", "utm_term"],
] as const;
const SOURCE_HEADER = ["date", "source", "referrer", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term", "pageviews", "visitors", "visits", "visit_duration", "bounces"];
const SESSION_COLUMNS = ["visitors", "visits", "visit_duration", "bounces", "pageviews"];

export const PLAUSIBLE_NAMES = [...VISITORS, "page", "landing_page", "exit_page", ...SOURCES.map(([name]) => name), "event", "country", "device", "browser", "os"];

function file(table: string, range: ExportRange, header: readonly string[], rows: () => AsyncIterable<readonly (string | number)[]>): OutputFile {
  const compact = (day: string) => day.replace(/-/g, "");
  return { name: `imported_${table}_${compact(range.from)}_${compact(range.to)}.csv`, header, rows };
}

async function* mapRows(rows: AsyncIterable<DayRow>, line: (row: DayRow) => readonly (string | number)[]) {
  for await (const row of rows) yield line(row);
}

/** A breakdown by a visitor dimension: visitors from Tally, visits taken as visitors, the rest 0. */
function visitorBreakdown(db: Kysely<Database>, id: number, range: ExportRange, table: string, name: "browser" | "os" | "device", columns: readonly string[]): OutputFile {
  return file(table, range, ["date", ...columns, ...SESSION_COLUMNS], () =>
    mapRows(dayRows(db, id, name, range), (row) => [row.day, toPlausibleName(name, row.value), ...columns.slice(1).map(() => ""), row.count, row.count, 0, 0, 0]),
  );
}

export function plausibleFiles(db: Kysely<Database>, website: WebsiteRow, range: ExportRange): OutputFile[] {
  const id = Number(website.id);
  return [
    file("visitors", range, ["date", ...VISITORS], async function* () {
      for (const [day, counts] of await daySeries(db, id, VISITORS, range)) yield [day, ...VISITORS.map((name) => counts.get(name) ?? 0)];
    }),
    file("pages", range, ["date", "hostname", "page", "visits", "visitors", "pageviews", "total_scroll_depth", "total_scroll_depth_visits"], () =>
      mapRows(dayRows(db, id, "page", range), (row) => [row.day, website.domain, row.value, row.count, row.count, row.count, 0, 0]),
    ),
    file("entry_pages", range, ["date", "entry_page", "visitors", "entrances", "visit_duration", "bounces", "pageviews"], () =>
      mapRows(dayRows(db, id, "landing_page", range), (row) => [row.day, row.value, row.count, row.count, 0, 0, 0]),
    ),
    file("exit_pages", range, ["date", "exit_page", "visitors", "visit_duration", "exits", "bounces", "pageviews"], () =>
      mapRows(dayRows(db, id, "exit_page", range), (row) => [row.day, row.value, row.count, 0, row.count, 0, 0]),
    ),
    file("sources", range, SOURCE_HEADER, async function* () {
      // One row per value of each field, the others empty: Tally counts them apart.
      for (const [name, column] of SOURCES) {
        const at = SOURCE_HEADER.indexOf(column);
        for await (const row of dayRows(db, id, name, range)) {
          const line: (string | number)[] = [row.day, name === "referrer" ? row.value : "", "", "", "", "", "", "", 0, row.count, row.count, 0, 0];
          line[at] = row.value;
          yield line;
        }
      }
    }),
    file("custom_events", range, ["date", "name", "link_url", "path", "visitors", "events"], async function* () {
      for await (const { day, rows } of byDay(dayRows(db, id, "event", range))) {
        const visitors = new Map<string, number>();
        for await (const row of dayRows(db, id, "event_visitors", { from: day, to: day })) visitors.set(row.value, row.count);
        for (const row of rows) yield [day, row.value, "", "", visitors.get(row.value) ?? 0, row.count];
      }
    }),
    file("locations", range, ["date", "country", "region", "city", ...SESSION_COLUMNS], () =>
      mapRows(dayRows(db, id, "country", range), (row) => [row.day, row.value.split(":", 1)[0] ?? "", "", 0, row.count, row.count, 0, 0, 0]),
    ),
    visitorBreakdown(db, id, range, "devices", "device", ["device"]),
    visitorBreakdown(db, id, range, "browsers", "browser", ["browser", "browser_version"]),
    visitorBreakdown(db, id, range, "operating_systems", "os", ["operating_system", "operating_system_version"]),
  ];
}
