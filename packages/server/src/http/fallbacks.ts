import { queryObject } from "./validation.js";

/** The list parameters whose unknown values mean their default (docs/api.md, "Lenient list parameters"). */
const LENIENT_PARAMETERS = ["search_by", "sort_by", "sort", "per_page"] as const;

/** A parameter the request gave a value Tally does not know, and the value used instead. */
export interface Fallback {
  given: string;
  used: string;
}

export type Fallbacks = Record<string, Fallback>;

/** The lenient parameters whose parsed value is not the one the request gave. */
export function fallbacksOf(url: URL, query: Readonly<Record<string, unknown>>): Fallbacks {
  const fallbacks: Fallbacks = {};
  const raw = queryObject(url);
  for (const name of LENIENT_PARAMETERS) {
    const given = raw[name];
    const used = query[name];
    if (typeof given === "string" && used !== undefined && given !== String(used)) fallbacks[name] = { given, used: String(used) };
  }
  return fallbacks;
}

/**
 * `Warning: 299 - "…"` (RFC 7234) naming each fallback, and the first day answered when the
 * range began before the website's first data; no header when there is neither.
 */
export function fallbackHeaders(fallbacks: Fallbacks, startsAt?: string): Record<string, string> {
  const notes = Object.entries(fallbacks).map(
    ([name, { given, used }]) => `299 - "${name}=${encodeURIComponent(given)} is not supported; ${name}=${used} was used"`,
  );
  if (startsAt !== undefined) notes.push(`299 - "The range begins before the website's first data; answered from ${startsAt}"`);
  return notes.length === 0 ? {} : { warning: notes.join(", ") };
}
