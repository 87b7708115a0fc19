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
const MAX_CACHED_OFFSETS = 10_000;

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Converts epoch milliseconds to local day and hour. Offsets are looked up with Intl
 * once per zone and quarter hour (every DST change in the tz database falls on one)
 * and cached, so the hot path is arithmetic.
 */
export function createLocalClock(): (timeZone: string, epochMs: number) => LocalTime {
  const formatters = new Map<string, Intl.DateTimeFormat>();
  const offsets = new Map<string, number>();

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

  function offsetMs(timeZone: string, epochMs: number): number {
    const slot = Math.floor(epochMs / QUARTER_HOUR_MS);
    const key = `${timeZone}|${slot}`;
    let offset = offsets.get(key);
    if (offset === undefined) {
      const at = slot * QUARTER_HOUR_MS;
      const parts: Record<string, number> = {};
      for (const part of formatter(timeZone).formatToParts(at)) parts[part.type] = Number(part.value);
      const asUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
      offset = asUtc - at;
      if (offsets.size >= MAX_CACHED_OFFSETS) offsets.clear();
      offsets.set(key, offset);
    }
    return offset;
  }

  return (timeZone, epochMs) => {
    const localMs = epochMs + offsetMs(timeZone, epochMs);
    const local = new Date(localMs);
    return {
      day: `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`,
      hour: pad(local.getUTCHours()),
      seconds: Math.floor(localMs / 1000),
    };
  };
}
