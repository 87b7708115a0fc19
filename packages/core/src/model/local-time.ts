/** Where a moment falls in a website's time zone. */
export interface LocalTime {
  /** `Y-m-d` */
  day: string;
  /** `00`…`23` */
  hour: string;
  /** Local wall-clock seconds: epoch seconds as if the zone were UTC. */
  seconds: number;
}

const QUARTER_HOUR_MS = 15 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
/** The zone websites have unless they say otherwise: its offset is always 0, found without ICU's locale data. */
export const UTC = "UTC";
/** Offsets per zone, and day names, kept at most (a long import walks many). */
const MAX_CACHED = 10_000;

const pad = (n: number) => String(n).padStart(2, "0");
const HOURS = Array.from({ length: 24 }, (_, hour) => pad(hour));

/**
 * Converts epoch milliseconds to local day and hour. Offsets are looked up with Intl
 * once per zone and quarter hour (every DST change in the tz database falls on one)
 * and cached by number, as are the day names, so the hot path is arithmetic and two
 * lookups: no key or date is built per call. UTC needs no lookup: a process whose
 * websites all count in UTC never loads ICU's date data (~6.5 MB of resident memory).
 */
export function createLocalClock(): (timeZone: string, epochMs: number) => LocalTime {
  const formatters = new Map<string, Intl.DateTimeFormat>();
  const offsets = new Map<string, Map<number, number>>();
  const dayNames = new Map<number, string>();

  function formatter(timeZone: string): Intl.DateTimeFormat {
    let format = formatters.get(timeZone);
    if (!format) {
      format = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
      });
      formatters.set(timeZone, format);
    }
    return format;
  }

  function offsetOf(timeZone: string, slot: number): number {
    if (timeZone === UTC) return 0;
    let zone = offsets.get(timeZone);
    if (!zone) offsets.set(timeZone, (zone = new Map()));
    let offset = zone.get(slot);
    if (offset === undefined) {
      const at = slot * QUARTER_HOUR_MS;
      const parts: Record<string, number> = {};
      for (const part of formatter(timeZone).formatToParts(at)) parts[part.type] = Number(part.value);
      const asUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
      offset = asUtc - at;
      if (zone.size >= MAX_CACHED) zone.clear();
      zone.set(slot, offset);
    }
    return offset;
  }

  function dayName(dayNumber: number): string {
    let name = dayNames.get(dayNumber);
    if (name === undefined) {
      name = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
      if (dayNames.size >= MAX_CACHED) dayNames.clear();
      dayNames.set(dayNumber, name);
    }
    return name;
  }

  return (timeZone, epochMs) => {
    const localMs = epochMs + offsetOf(timeZone, Math.floor(epochMs / QUARTER_HOUR_MS));
    const dayNumber = Math.floor(localMs / DAY_MS);
    return {
      day: dayName(dayNumber),
      hour: HOURS[Math.floor((localMs - dayNumber * DAY_MS) / HOUR_MS)]!,
      seconds: Math.floor(localMs / 1000),
    };
  };
}
