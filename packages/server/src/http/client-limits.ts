import type { Tally } from "@tally-analytics/core";
import { addressKey, proxyTrust } from "./client-ip.js";
import { tooManyAttempts } from "./errors.js";
import type { HandlerOptions } from "./options.js";
import { createRateLimiter, type RateLimitOptions, type RateLimitResult } from "./rate-limit.js";

/** Public reads per client address: a share page opens with about 20, so this is room for dozens of views a minute. */
export const DEFAULT_PUBLIC_RATE_LIMIT: RateLimitOptions = { limit: 600, windowMs: 60_000 };

/** Who a request's attempts are counted against: its client address (proxies resolved by `trustProxy`), an IPv6 client by its /64. */
export function clientKey(tally: Tally, request: Request, socketIp: string | undefined): string {
  return addressKey(proxyTrust(tally.options.trustProxy).clientIp(socketIp, (name) => request.headers.get(name)));
}

export interface ClientLimits {
  /** Counts one public read of the database by this client; throws 429 past `publicRateLimit`. */
  publicRead(client: string): RateLimitResult | undefined;
  /**
   * Counts refused credentials (a wrong API key, anywhere): against `rateLimit`, and, as
   * an anonymous request that read the database, against `publicRateLimit`; throws 429
   * once either is spent.
   */
  failedSignIn(client: string): void;
}

/** The per-address counters of one handler, in memory. */
export function createClientLimits(options: Pick<HandlerOptions, "rateLimit" | "publicRateLimit">): ClientLimits {
  const publicOption = options.publicRateLimit === undefined ? DEFAULT_PUBLIC_RATE_LIMIT : options.publicRateLimit;
  const reads = publicOption ? createRateLimiter(publicOption) : null;
  const failures = options.rateLimit ? createRateLimiter(options.rateLimit) : null;
  function publicRead(client: string): RateLimitResult | undefined {
    const result = reads?.hit(`address:${client}`);
    if (result && !result.allowed) throw tooManyAttempts(result.retryAfter);
    return result;
  }
  return {
    publicRead,
    failedSignIn(client) {
      const result = failures?.hit(`address:${client}`);
      if (result && !result.allowed) throw tooManyAttempts(result.retryAfter);
      publicRead(client);
    },
  };
}
