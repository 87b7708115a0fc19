import { isTimeInDomain } from "../shared/calendar.js";
import type { HitInput } from "../model/hit-input.js";
import type { ByteCounter, ImportInput } from "./input-files.js";

/** The formats `tally import` reads. */
export type ImportFormat = "plausible" | "goatcounter" | "umami" | "tally";

/** One hit of another tool, replayed through the engine at its own time. */
export interface HitItem {
  kind: "hit";
  /** Epoch milliseconds. */
  time: number;
  hit: HitInput;
}

/** A day's counts (daily aggregates), added to the rollups as they are. */
export interface CountsItem {
  kind: "counts";
  /** Local `Y-m-d` of the website the figures come from. */
  day: string;
  counts: readonly CountDraft[];
}

/** A row that is read but not imported, and why. */
export interface SkipItem {
  kind: "skip";
  reason: string;
}

export type ImportItem = HitItem | CountsItem | SkipItem;

/** An increment of one statistic's rollup on a day: `name` as the rollups store it (`visits`, `page`, `event_property`…). */
export interface CountDraft {
  name: string;
  value: string;
  count: number;
}

/** What a format needs to know of the website it imports into. */
export interface TargetWebsite {
  id: number;
  domain: string;
  timezone: string;
  excludeBots: boolean;
}

/** Reads one input, row by row; every row becomes exactly one item. */
export interface FormatReader {
  readonly format: ImportFormat;
  /** Hits replayed through the engine, or daily counts added to the rollups. */
  readonly kind: "replay" | "counts";
  /** Files of the input this format does not read (named in the summary). */
  readonly ignored: readonly string[];
  items(counter: ByteCounter): AsyncGenerator<ImportItem>;
  /** The ids the other tool knew the website by, seen while reading (Umami's `website_id`): the website's aliases after the import. */
  aliases?(): readonly string[];
  /** Funnel definitions the input carries (Tally's own export): defined on the website after the import where it lacks them. */
  funnels?(): Promise<readonly FunnelDefinition[]>;
  close(): Promise<void>;
}

/** A funnel as an export carries it: its name and its steps (`page:/x`, `event:Name`). */
export interface FunnelDefinition {
  name: string;
  steps: readonly string[];
}

export type OpenReader = (input: ImportInput, website: TargetWebsite, scratchDirectory: string) => Promise<FormatReader>;

const TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** RFC 3339, ClickHouse (`2024-03-15 10:00:00`, UTC) and PostgreSQL (`2024-03-15 10:00:00.123+00`) times within Tally's dates; NaN otherwise. */
export function parseTime(text: string): number {
  const match = TIME.exec(text.trim());
  if (!match) return Number.NaN;
  const [, y, mo, d, h, mi, s, fraction = "", zone = "Z"] = match;
  const offset =
    zone.toUpperCase() === "Z"
      ? "Z"
      : zone.length === 3
        ? `${zone}:00`
        : zone.includes(":")
          ? zone
          : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const time = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${fraction.slice(0, 4)}${offset}`);
  // Date.parse rolls 2024-02-30 over; a real time reads back the same day.
  if (!Number.isFinite(time) || !isTimeInDomain(time)) return Number.NaN;
  return new Date(time + offsetMs(offset)).toISOString().slice(0, 10) === `${y}-${mo}-${d}` ? time : Number.NaN;
}

function offsetMs(offset: string): number {
  if (offset === "Z") return 0;
  const sign = offset.startsWith("-") ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6))) * 60_000;
}

/** The page URL of a path on the website: the path is always under the website's own host. */
export function pageUrl(domain: string, path: string, query = ""): string {
  const cleanPath = path.startsWith("/") ? path : `/${path}`;
  const cleanQuery = query.replace(/^\?/, "");
  return `https://${domain}${cleanPath}${cleanQuery === "" ? "" : `?${cleanQuery}`}`;
}
