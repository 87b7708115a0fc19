/**
 * A value made on its first use. For what costs memory to make and may never be used:
 * an `Intl.DisplayNames` of regions holds ~6 MB of locale data from the moment it exists.
 */
export function lazy<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}
