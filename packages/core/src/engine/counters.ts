/** Increments to rollup rows, summed in memory before a flush writes them in one go. */
export interface CounterRow {
  websiteId: number;
  name: string;
  period: string;
  value: string;
  count: number;
}

const SEPARATOR = "\u0001";

export interface Counters {
  /** Adds to the day, month and year rows, so any range reads few rows. */
  add(websiteId: number, name: string, day: string, value: string): void;
  /** Adds to the day row only: for series whose value already is the day. */
  addDaily(websiteId: number, name: string, day: string, value: string): void;
  rows(): CounterRow[];
  readonly size: number;
}

export function createCounters(): Counters {
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  return {
    add(websiteId, name, day, value) {
      if (value === "") return;
      const prefix = websiteId + SEPARATOR + name + SEPARATOR;
      const suffix = SEPARATOR + value;
      bump(prefix + day + suffix);
      bump(prefix + day.slice(0, 7) + suffix);
      bump(prefix + day.slice(0, 4) + suffix);
    },
    addDaily(websiteId, name, day, value) {
      bump(websiteId + SEPARATOR + name + SEPARATOR + day + SEPARATOR + value);
    },
    rows() {
      const rows: CounterRow[] = [];
      for (const [key, count] of counts) {
        const [websiteId, name, period, ...value] = key.split(SEPARATOR);
        rows.push({ websiteId: Number(websiteId), name: name!, period: period!, value: value.join(SEPARATOR), count });
      }
      return rows;
    },
    get size() {
      return counts.size;
    },
  };
}
