import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * A dependency loaded on its first use, from its CommonJS build (a synchronous caller can
 * wait for it): an embedded Tally that never matches a pattern, checks a two-factor code or
 * names a country does not hold their code and tables in its host's memory.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
