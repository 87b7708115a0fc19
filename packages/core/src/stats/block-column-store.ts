import type { Column } from "./day-block-format.js";

/** Bytes of decoded day-block columns kept between requests unless told otherwise. */
export const DEFAULT_BLOCK_COLUMN_BYTES = 32 * 1024 * 1024;

/**
 * Decoded day-block columns kept between requests, by website, day, the day's version and
 * last hit, and column name: a block never changes once written (new hits make a new
 * version; a day removed and written again starts at version 1, hence its last hit too), so a
 * column read for one request answers the next that reads the same day (a dashboard's
 * panels under one filter, a v2 query's rows, a refresh) without reading and decoding it
 * again. The least recently used columns leave first once their bytes pass the budget.
 */
export interface BlockColumnStore {
  get(websiteId: number, day: BlockDay, name: string): Column | undefined;
  set(websiteId: number, day: BlockDay, name: string, column: Column, bytes: number): void;
}

/** A day as `day_versions` has it when its block is read. */
export interface BlockDay {
  day: number;
  version: number;
  lastHit: number;
}

export function createBlockColumnStore(budgetBytes = DEFAULT_BLOCK_COLUMN_BYTES): BlockColumnStore {
  const entries = new Map<string, { column: Column; bytes: number }>();
  let held = 0;
  const keyOf = (websiteId: number, { day, version, lastHit }: BlockDay, name: string) =>
    `${websiteId}:${day}:${version}:${lastHit}:${name}`;
  return {
    get(websiteId, day, name) {
      const key = keyOf(websiteId, day, name);
      const entry = entries.get(key);
      if (!entry) return undefined;
      // Most recently used last: the first entries leave first.
      entries.delete(key);
      entries.set(key, entry);
      return entry.column;
    },
    set(websiteId, day, name, column, bytes) {
      if (bytes > budgetBytes) return;
      const key = keyOf(websiteId, day, name);
      const old = entries.get(key);
      if (old) {
        held -= old.bytes;
        entries.delete(key);
      }
      entries.set(key, { column, bytes });
      held += bytes;
      for (const [first, entry] of entries) {
        if (held <= budgetBytes) break;
        entries.delete(first);
        held -= entry.bytes;
      }
    },
  };
}
