import { isInDomain } from "../shared/calendar.js";
import { ARRIVAL_COLUMNS, PROPERTY_SEPARATOR } from "../model/dimensions.js";
import { loadRegions, locationOf } from "../enrich/geo.js";
import { stripWww } from "../websites/domain.js";
import { countField, openCsv, type CsvRecord } from "./csv-records.js";
import type { CountDraft, ImportItem, OpenReader } from "./import-items.js";
import type { ByteCounter, InputEntry } from "./input-files.js";
import { fromPlausibleName } from "./names.js";

const FILE_NAME =
  /^(imported_)?(visitors|sources|pages|entry_pages|exit_pages|custom_events|locations|devices|browsers|operating_systems)(_\d{8}_\d{8})?\.csv$/;

/** The table of a Plausible export file: `imported_pages_20240101_20241231.csv` (the prefix or the dates may be left out, not both). */
export function plausibleTable(name: string): string | null {
  const match = FILE_NAME.exec(name);
  return match && (match[1] !== undefined || match[3] !== undefined) ? match[2]! : null;
}

interface PlausibleTable {
  /** Columns every version of the layout has (read by name: their order changed between versions). */
  required: readonly string[];
  counts(record: CsvRecord, has: (column: string) => boolean): CountDraft[];
}

const count = (record: CsvRecord, column: string) => countField(record, column, { empty: true });
const daySeries = (record: CsvRecord, pairs: readonly [string, string][]) =>
  pairs.map(([name, column]) => ({ name, value: record.get("date").trim(), count: count(record, column) }));

/** Plausible's `referrer` is a host and path (`news.ycombinator.com/item?id=1`), its `hostname` a host: Tally counts the host, `www.` stripped. */
function referrerHost(text: string): string {
  const value = text.trim();
  if (value === "") return "";
  try {
    return stripWww(new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`).hostname);
  } catch {
    return "";
  }
}

/** A version column's statistic and how many of its numbers Tally keeps (`Chrome 120`, `iOS 17.2`). */
interface VersionColumn {
  column: string;
  name: string;
  parts: number;
}

const dimension = (name: string, kind: "browser" | "os" | "device", column: string, version?: VersionColumn): PlausibleTable => ({
  required: ["date", column, "visitors"],
  counts(record, has) {
    const value = fromPlausibleName(kind, record.get(column).trim());
    const visitors = count(record, "visitors");
    const drafts: CountDraft[] = [{ name, value, count: visitors }];
    const numbers = version && has(version.column) ? /^\d+(?:\.\d+)*/.exec(record.get(version.column).trim())?.[0] : undefined;
    if (version && numbers && value !== "")
      drafts.push({ name: version.name, value: `${value} ${numbers.split(".").slice(0, version.parts).join(".")}`, count: visitors });
    return drafts;
  },
});

const TABLES: Readonly<Record<string, PlausibleTable>> = {
  visitors: {
    required: ["date", "visitors", "pageviews", "bounces", "visits", "visit_duration"],
    counts: (record) =>
      daySeries(record, [
        ["visitors", "visitors"],
        ["pageviews", "pageviews"],
        // Pageviews of the visits started that day: the day's pageviews are the closest figure.
        ["visit_pageviews", "pageviews"],
        ["visits", "visits"],
        ["bounces", "bounces"],
        ["visit_duration", "visit_duration"],
      ]),
  },
  pages: {
    required: ["date", "page", "pageviews"],
    // A row per host and page: the host's pageviews are the sum of its rows (Tally's own export
    // writes the hosts of a website that counts its subdomains apart, the page empty).
    counts: (record, has) => [
      { name: "page", value: record.get("page"), count: count(record, "pageviews") },
      { name: "hostname", value: has("hostname") ? referrerHost(record.get("hostname")) : "", count: count(record, "pageviews") },
    ],
  },
  entry_pages: {
    required: ["date", "entry_page", "entrances"],
    counts: (record) => [{ name: "landing_page", value: record.get("entry_page"), count: count(record, "entrances") }],
  },
  exit_pages: {
    required: ["date", "exit_page", "exits"],
    counts: (record) => [{ name: "exit_page", value: record.get("exit_page"), count: count(record, "exits") }],
  },
  sources: {
    required: ["date", "source", "visits"],
    counts(record, has) {
      const visits = count(record, "visits");
      // Older layouts have no `referrer` column: the source's name is all there is.
      const referrer = has("referrer") ? referrerHost(record.get("referrer")) : record.get("source").trim();
      const drafts: CountDraft[] = [];
      for (const { statistic: name, column, arrival } of ARRIVAL_COLUMNS) {
        if (arrival === "referrer") drafts.push({ name, value: referrer, count: visits });
        else if (has(column)) drafts.push({ name, value: record.get(column).trim(), count: visits });
      }
      // The named source (`Google`), and the channel where a layout has it.
      drafts.push({ name: "source", value: record.get("source").trim(), count: visits });
      if (has("channel")) drafts.push({ name: "channel", value: record.get("channel").trim(), count: visits });
      return drafts;
    },
  },
  custom_events: {
    required: ["date", "name", "visitors", "events"],
    counts(record, has) {
      const name = record.get("name").trim();
      const events = count(record, "events");
      const drafts: CountDraft[] = [
        { name: "event", value: name, count: events },
        { name: "event_visitors", value: name, count: count(record, "visitors") },
      ];
      // The URL of an outbound link or file download, the path of a 404: the goal's property.
      for (const [property, column] of [
        ["url", "link_url"],
        ["path", "path"],
      ] as const) {
        const value = has(column) ? record.get(column).trim() : "";
        if (value !== "" && name !== "")
          drafts.push({ name: "event_property", value: [name, property, value].join(PROPERTY_SEPARATOR), count: events });
      }
      return drafts;
    },
  },
  locations: {
    required: ["date", "country", "visitors"],
    counts(record, has) {
      // Cities are GeoNames ids, which Tally cannot name without GeoNames' data: left out.
      // A row of Tally's own export names a region alone, its country empty (counted apart).
      const region = has("region") ? record.get("region").trim() : "";
      const place = locationOf(record.get("country").trim() || (region.split("-", 1)[0] ?? ""), "", region);
      const visitors = count(record, "visitors");
      if (!place) return [];
      const drafts: CountDraft[] = [];
      if (record.get("country").trim() !== "")
        drafts.push(
          { name: "country", value: place.country, count: visitors },
          { name: "continent", value: place.continent, count: visitors },
        );
      if (place.region !== "") drafts.push({ name: "region", value: place.region, count: visitors });
      return drafts;
    },
  },
  devices: dimension("device", "device", "device"),
  browsers: dimension("browser", "browser", "browser", { column: "browser_version", name: "browser_version", parts: 1 }),
  operating_systems: dimension("os", "os", "operating_system", {
    column: "operating_system_version",
    name: "os_version",
    parts: 2,
  }),
};

function dayOf(record: CsvRecord): string {
  const day = record.get("date").trim();
  if (!isInDomain(day)) record.fail("date", `expected a date such as 2024-01-31, got "${day.slice(0, 40)}"`);
  return day;
}

async function* entryItems(entry: InputEntry, table: PlausibleTable, counter: ByteCounter): AsyncGenerator<ImportItem> {
  const csv = await openCsv(entry.name, await entry.open(counter), table.required);
  for await (const record of csv.records()) {
    const day = dayOf(record);
    yield { kind: "counts", day, counts: table.counts(record, csv.has) };
  }
}

/** Plausible's CSV export (Settings → Imports & Exports): daily aggregates, one file per table. */
export const openPlausible: OpenReader = async (input) => {
  const tableOf = (entry: InputEntry) => TABLES[plausibleTable(entry.name) ?? ""];
  if (input.entries.some((entry) => plausibleTable(entry.name) === "locations")) await loadRegions(); // names the regions of `locations`
  return {
    format: "plausible",
    kind: "counts",
    ignored: input.entries.filter((entry) => !tableOf(entry)).map((entry) => entry.name),
    async *items(counter) {
      for (const entry of input.entries) {
        const table = tableOf(entry);
        if (table) yield* entryItems(entry, table, counter);
        else counter.bytes += entry.size;
      }
    },
    close: async () => {},
  };
};
