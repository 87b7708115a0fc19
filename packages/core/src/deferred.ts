type AsyncMethods<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never;
};

/**
 * An object whose async methods wait for `target` before running, so a Tally can be
 * handed to a framework synchronously while its store is still opening.
 */
export function deferMethods<T extends object>(target: Promise<T>): AsyncMethods<T> {
  // A store that fails to open is reported by every call (and ready()), never as an unhandled rejection.
  target.catch(() => {});
  return new Proxy({} as AsyncMethods<T>, {
    get(_, key) {
      return async (...args: unknown[]) => {
        const resolved = (await target) as Record<PropertyKey, (...a: unknown[]) => unknown>;
        return resolved[key]!(...args);
      };
    },
  });
}
