import { periodEnd, widerPeriods } from "./periods.js";
import { TRAILING_PERIOD, inTrailing } from "./trailing-period.js";

/** Increments to rollup rows, summed in memory before a flush writes them in one go. */
export interface CounterRow {
  websiteId: number;
  name: string;
  period: string;
  value: string;
  count: number;
}

export interface Counters {
  /** Adds `delta` (default 1; negative to move a count) to the day, and at `rows` to the closed periods containing it (model/periods.ts). */
  add(websiteId: number, name: string, day: string, value: string, delta?: number): void;
  /** Adds to the day row only: for series whose value already is the day. */
  addDaily(websiteId: number, name: string, day: string, value: string, delta?: number): void;
  /**
   * The rows to add: a row per day and value, and one per closed wider period containing
   * the day (ending on or before the website's `closedThrough` day; none without one), and
   * one for the trailing period when it holds the day (model/trailing-period.ts).
   */
  rows(closedThrough: ReadonlyMap<number, string>): CounterRow[];
  /** Per website, the first and last day counted. */
  days(): Map<number, { first: string; last: string }>;
}

interface Group {
  websiteId: number;
  name: string;
  day: string;
  /** Also roll up into the wider periods' rows. */
  rollUp: boolean;
  /** value → its count, in a box of its own: a bump is one lookup, not a lookup and a store. */
  values: Map<string, { count: number }>;
}

/** The wider periods of `day` that have closed (ending on or before `closedThrough`), and the trailing period when it holds the day. */
function closedPeriodsOf(day: string, closedThrough: string): string[] {
  if (closedThrough < day) return []; // the day's dekad ends on or after it
  const periods = widerPeriods(day).filter((period) => periodEnd(period) <= closedThrough);
  if (inTrailing(day, closedThrough)) periods.push(TRAILING_PERIOD);
  return periods;
}

/**
 * Hits only touch day-level counts (one Map lookup each); the wider periods' rows are
 * summed from them once, when the flush asks for rows.
 */
export function createCounters(): Counters {
  /** website → day → statistic name → its day group. */
  const byWebsite = new Map<number, Map<string, Map<string, Group>>>();
  // A hit bumps many statistics of one website and day in a row: keep that day's groups at hand.
  let lastWebsite = -1;
  let lastDay = "";
  let lastGroups: Map<string, Group> | undefined;

  function groupsOf(websiteId: number, day: string): Map<string, Group> {
    if (websiteId === lastWebsite && day === lastDay && lastGroups) return lastGroups;
    let days = byWebsite.get(websiteId);
    if (!days) byWebsite.set(websiteId, (days = new Map()));
    let groups = days.get(day);
    if (!groups) days.set(day, (groups = new Map()));
    lastWebsite = websiteId;
    lastDay = day;
    lastGroups = groups;
    return groups;
  }

  function bump(websiteId: number, name: string, day: string, value: string, rollUp: boolean, delta: number): void {
    const groups = groupsOf(websiteId, day);
    let group = groups.get(name);
    if (!group) groups.set(name, (group = { websiteId, name, day, rollUp, values: new Map() }));
    const counted = group.values.get(value);
    if (counted) counted.count += delta;
    else group.values.set(value, { count: delta });
  }

  function* allGroups(): Iterable<Group> {
    for (const days of byWebsite.values()) for (const groups of days.values()) yield* groups.values();
  }

  return {
    add(websiteId, name, day, value, delta = 1) {
      if (value !== "" && delta !== 0) bump(websiteId, name, day, value, true, delta);
    },
    addDaily(websiteId, name, day, value, delta = 1) {
      if (delta !== 0) bump(websiteId, name, day, value, false, delta);
    },
    days() {
      const days = new Map<number, { first: string; last: string }>();
      for (const [websiteId, groups] of byWebsite) {
        const sorted = [...groups.keys()].sort();
        days.set(websiteId, { first: sorted[0]!, last: sorted[sorted.length - 1]! });
      }
      return days;
    },
    rows(closedThrough) {
      const rows: CounterRow[] = [];
      /** `website|name|period` → value → count, summed over the days of each wider period. */
      const wider = new Map<string, { websiteId: number; name: string; period: string; values: Map<string, number> }>();
      for (const group of allGroups()) {
        const closed = closedThrough.get(group.websiteId) ?? "";
        const sums = group.rollUp
          ? closedPeriodsOf(group.day, closed).map((period) => {
              const key = `${group.websiteId}|${group.name}|${period}`;
              let sum = wider.get(key);
              if (!sum) wider.set(key, (sum = { websiteId: group.websiteId, name: group.name, period, values: new Map() }));
              return sum.values;
            })
          : [];
        for (const [value, { count }] of group.values) {
          if (count === 0) continue;
          rows.push({ websiteId: group.websiteId, name: group.name, period: group.day, value, count });
          for (const values of sums) values.set(value, (values.get(value) ?? 0) + count);
        }
      }
      for (const { websiteId, name, period, values } of wider.values()) {
        for (const [value, count] of values) if (count !== 0) rows.push({ websiteId, name, period, value, count });
      }
      return rows;
    },
  };
}
