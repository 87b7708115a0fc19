import type { RE2JS } from "re2js";
import type * as Re2 from "re2js";
import { lazyRequire } from "./lazy-require.js";

/**
 * Regular expressions of the `matches` filters, in RE2's syntax (Plausible's, whose database
 * matches with RE2). RE2JS runs in time linear in the text whatever the pattern: no pattern can
 * make a query backtrack for ever, and RE2 has no backreferences or lookarounds to begin with.
 */

/** Longest pattern: as a filter value. */
export const MAX_PATTERN_LENGTH = 2048;

const re2 = lazyRequire<typeof Re2>("re2js");
const compiled = new Map<string, RE2JS>();
/** Compiled patterns kept: a query uses the same few for every dictionary value it tests. */
const CACHE_SIZE = 100;

/** The pattern compiled, or why it is not an RE2 regular expression. */
export function compilePattern(pattern: string): RE2JS | string {
  const cached = compiled.get(pattern);
  if (cached) return cached;
  if (pattern.length > MAX_PATTERN_LENGTH) return `A regular expression may be at most ${MAX_PATTERN_LENGTH} characters.`;
  try {
    const regex = re2().RE2JS.compile(pattern);
    if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, regex);
    return regex;
  } catch (error) {
    return `"${pattern.slice(0, 100)}" is not a regular expression (RE2 syntax): ${(error as Error).message}.`;
  }
}

/** Whether `value` has a match of `pattern` anywhere (anchor with `^` and `$`); an invalid pattern matches nothing. */
export function matchesPattern(pattern: string, value: string): boolean {
  const regex = compilePattern(pattern);
  return typeof regex !== "string" && regex.matcher(value).find();
}

/** The name of the SQLite function `tally_regexp(pattern, value)` (1 or 0) registered on Tally's connections. */
export const SQLITE_REGEXP_FUNCTION = "tally_regexp";

/** Registers `tally_regexp` on a better-sqlite3 connection: SQLite has no regular expressions of its own. */
export function registerSqliteRegexp(database: {
  function(name: string, options: { deterministic: boolean }, fn: (pattern: unknown, value: unknown) => number): unknown;
}): void {
  database.function(SQLITE_REGEXP_FUNCTION, { deterministic: true }, (pattern, value) =>
    typeof pattern === "string" && typeof value === "string" && matchesPattern(pattern, value) ? 1 : 0,
  );
}
