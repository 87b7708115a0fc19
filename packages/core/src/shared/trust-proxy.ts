import { parseIpRule } from "./exclusion-lists.js";

/**
 * Which proxies may name the client's IP (X-Forwarded-For, Forwarded): none (`false`),
 * the nearest N hops (`true` is one hop: the proxy in front of you), or the proxies at
 * these addresses and CIDRs, however many of them there are in a row.
 */
export type TrustProxy = boolean | number | string[];

/** Throws a TypeError naming what is wrong with a `trustProxy` option, so a bad value never starts. */
export function checkTrustProxy(value: unknown): void {
  if (value === undefined || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`trustProxy: a hop count must be a whole number ≥ 0, got ${value}`);
    return;
  }
  if (Array.isArray(value)) {
    const invalid = value.find((entry) => typeof entry !== "string" || parseIpRule(entry.trim()) === null);
    if (invalid !== undefined) {
      throw new TypeError(`trustProxy: ${JSON.stringify(invalid)} is not an IP address or CIDR (e.g. "10.0.0.0/8", "::1")`);
    }
    return;
  }
  throw new TypeError(`trustProxy must be true, false, a hop count or a list of IP addresses and CIDRs, got ${JSON.stringify(value)}`);
}
