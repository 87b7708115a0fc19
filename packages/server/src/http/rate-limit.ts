export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  limit: number;
  /** Length of one window, in milliseconds. */
  windowMs: number;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (for Retry-After). */
  retryAfter: number;
}

export interface RateLimiter {
  hit(key: string): RateLimitResult;
  /** How many keys are being counted (bounded by the keys seen in one window). */
  size(): number;
}

/**
 * A fixed-window counter per key, in memory. Windows that have ended are swept at
 * most once per window, so the map holds only keys seen in the current one.
 */
export function createRateLimiter({ limit, windowMs }: RateLimitOptions, now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let nextSweep = now() + windowMs;

  function sweep(time: number): void {
    if (time < nextSweep) return;
    for (const [key, window] of windows) if (window.resetAt <= time) windows.delete(key);
    nextSweep = time + windowMs;
  }

  return {
    hit(key) {
      const time = now();
      sweep(time);
      let window = windows.get(key);
      if (!window || window.resetAt <= time) {
        window = { count: 0, resetAt: time + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return {
        allowed: window.count <= limit,
        limit,
        remaining: Math.max(0, limit - window.count),
        retryAfter: Math.max(1, Math.ceil((window.resetAt - time) / 1000)),
      };
    },
    size: () => windows.size,
  };
}
