/** A size-bounded map that forgets the least recently used entry first. */
export interface LruCache<K, V> {
  /** The cached value, now marked as most recently used; undefined on a miss. */
  get(key: K): V | undefined;
  /** Stores the value, evicting the least recently used entry when full. */
  set(key: K, value: V): void;
  clear(): void;
  readonly size: number;
  readonly max: number;
}

/**
 * A Map keeps insertion order, so re-inserting on every read makes its first key
 * the least recently used one: eviction is O(1) without a linked list.
 */
export function createLruCache<K, V>(max: number): LruCache<K, V> {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`LRU cache size must be a positive integer, got ${max}`);
  const entries = new Map<K, V>();
  return {
    get(key) {
      if (!entries.has(key)) return undefined;
      const value = entries.get(key) as V;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > max) entries.delete(entries.keys().next().value as K);
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
    max,
  };
}
