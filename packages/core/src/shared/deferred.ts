type AsyncMethods<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never;
};

/**
 * An object whose async methods wait for `target` before running, so a Tally can be
 * handed to a framework synchronously while its store is still opening. `pick` finds
 * the object on the target at each call (and may refuse it, or load it first); `mapError` turns what a
 * call throws into what the caller sees.
 */
export function deferMethods<S, T extends object>(
  target: Promise<S>,
  pick: (resolved: S) => T | Promise<T>,
  mapError: (error: unknown) => unknown = (error) => error,
): AsyncMethods<T> {
  // A store that fails to open is reported by every call (and ready()), never as an unhandled rejection.
  target.catch(() => {});
  return new Proxy({} as AsyncMethods<T>, {
    get(_, key) {
      return async (...args: unknown[]) => {
        const resolved = await target;
        try {
          const methods = (await pick(resolved)) as Record<PropertyKey, (...a: unknown[]) => unknown>;
          return await methods[key]!(...args);
        } catch (error) {
          throw mapError(error);
        }
      };
    },
  });
}
