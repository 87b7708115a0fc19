import type { Tally } from "@tally-analytics/core";

/**
 * Failed attempts allowed in a window, counted per key: per client address and per
 * e-mail address (the account being guessed at), as share passwords are limited. Counting
 * per e-mail stops a botnet trying one user's password from many addresses; per address
 * stops one client trying many users. Only failures count: a team behind one NAT signing
 * in all morning is never held back.
 */
export interface FailureLimit {
  limit: number;
  windowMs: number;
}

/** Per e-mail address: ten wrong passwords in 15 minutes, as for a share page's password. */
export const SIGN_IN_FAILURES: FailureLimit = { limit: 10, windowMs: 15 * 60_000 };
/** Per client address: more, since one office behind one address has many people who mistype. */
export const ADDRESS_FAILURES: FailureLimit = { limit: 30, windowMs: 15 * 60_000 };
/** Reset mails per address and per e-mail (each request counts): enough for a lost mail, not a mail bomb. */
export const RESET_REQUESTS: FailureLimit = { limit: 5, windowMs: 60 * 60_000 };
/** Wrong codes per pending sign-in's user and per address: then the password is asked again. */
export const CODE_FAILURES: FailureLimit = { limit: 5, windowMs: 15 * 60_000 };

export interface FailureCounter {
  // Keys are strings such as `email:ada@example.com` or `user:4`.
  /** Seconds to wait when any of these keys has used up its failures, else null. */
  blocked(keys: readonly string[]): number | null;
  fail(keys: readonly string[]): void;
}

export function createFailureCounter({ limit, windowMs }: FailureLimit, now: () => number = Date.now): FailureCounter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const current = (key: string, time: number) => {
    const window = windows.get(key);
    return window && window.resetAt > time ? window : null;
  };
  return {
    blocked(keys) {
      const time = now();
      const waits = keys.map((key) => current(key, time)).filter((window) => window !== null && window.count >= limit);
      return waits.length === 0 ? null : Math.max(...waits.map((window) => Math.ceil((window!.resetAt - time) / 1000)));
    },
    fail(keys) {
      const time = now();
      // Ended windows go on the way: the map holds only keys that failed lately.
      if (windows.size > 10_000) for (const [key, window] of windows) if (window.resetAt <= time) windows.delete(key);
      for (const key of keys) {
        const window = current(key, time);
        if (window) window.count++;
        else windows.set(key, { count: 1, resetAt: time + windowMs });
      }
    },
  };
}

export interface SignInLimits {
  /** Per client address, every kind of sign-in failure (passwords, codes, keys). */
  address: FailureCounter;
  signIn: FailureCounter;
  reset: FailureCounter;
  codes: FailureCounter;
}

const limits = new WeakMap<Tally, SignInLimits>();

/** One set per Tally, so every handler of one Tally shares the counts within a process. */
export function signInLimits(tally: Tally): SignInLimits {
  let found = limits.get(tally);
  if (!found) {
    found = {
      address: createFailureCounter(ADDRESS_FAILURES),
      signIn: createFailureCounter(SIGN_IN_FAILURES),
      reset: createFailureCounter(RESET_REQUESTS),
      codes: createFailureCounter(CODE_FAILURES),
    };
    limits.set(tally, found);
  }
  return found;
}
