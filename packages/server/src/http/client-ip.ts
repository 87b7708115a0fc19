import type { TrustProxy } from "@tally-analytics/core";
import { addressKey, compileIpRules, ipVersion, stripMapped } from "@tally-analytics/core/addresses";

export { addressKey };

/** A request header by lower-case name; null or undefined when absent. */
export type HeaderReader = (name: string) => string | null | undefined;

export interface ProxyTrust {
  /** Whether a peer at this address may speak for the client (X-Forwarded-*, Forwarded). */
  trusts(address: string | undefined): boolean;
  /** The client's IP: the socket's, or the nearest untrusted hop of the forwarding chain. */
  clientIp(socketIp: string | undefined, header: HeaderReader): string | undefined;
}

/** Compiled once per option value: lists by identity, the other forms by value. */
const compiledLists = new WeakMap<readonly string[], ProxyTrust>();
const compiledValues = new Map<boolean | number, ProxyTrust>();

/** `Forwarded: for=1.2.3.4, for="[2001:db8::1]:4711"` → addresses, nearest last. */
function forwardedFor(header: string): string[] {
  const addresses: string[] = [];
  for (const element of header.split(",")) {
    const match = /(?:^|;)\s*for=("?)([^";,]+)\1/i.exec(element.trim());
    if (!match?.[2]) continue;
    const value = match[2];
    const bracketed = /^\[([^\]]+)\]/.exec(value);
    addresses.push(bracketed?.[1] ?? (ipVersion(value) ? value : value.replace(/:\d+$/, "")));
  }
  return addresses;
}

/** The forwarded addresses, nearest last, as written (a mapped IPv4 address not yet read as IPv4). */
function forwardingChain(header: HeaderReader): string[] {
  const xff = header("x-forwarded-for");
  if (xff) {
    const chain: string[] = [];
    for (const entry of xff.split(",")) {
      const address = entry.trim();
      if (address !== "") chain.push(address);
    }
    return chain;
  }
  const forwarded = header("forwarded");
  return forwarded ? forwardedFor(forwarded) : [];
}

/**
 * Express's `trust proxy` convention, walked from the right: the socket's peer is hop 0,
 * the last forwarded address hop 1, and so on towards the client. Hops are skipped while
 * trusted (by count, or by being in the list); the first untrusted one is the client.
 * Entries to its left were written by the client itself and are never read.
 */
function compile(trustProxy: TrustProxy | undefined): ProxyTrust {
  const list = Array.isArray(trustProxy) ? compileIpRules(trustProxy.join("\n")) : null;
  const hops = trustProxy === true ? 1 : typeof trustProxy === "number" ? trustProxy : 0;
  const family = (address: string) => (ipVersion(address) === 6 ? "ipv6" : "ipv4");
  /** Whether hop `index` (0 = the socket's peer) at `address` may forward for the one before it. */
  const trustedHop = (address: string, index: number) =>
    Array.isArray(trustProxy) ? (list?.check(address, family(address)) ?? false) : index < hops;
  const trusts = (address: string | undefined) => {
    const plain = address && stripMapped(address);
    return !!plain && ipVersion(plain) !== 0 && trustedHop(plain, 0);
  };
  return {
    trusts,
    clientIp(socketIp, header) {
      const socket = socketIp && stripMapped(socketIp);
      if (!trusts(socket)) return socket;
      const chain = forwardingChain(header);
      for (let hop = chain.length - 1, index = 1; hop >= 0; hop--, index++) {
        const address = stripMapped(chain[hop]!);
        // A proxy we trust wrote something that is no address: the client is unknown, count the proxy.
        if (ipVersion(address) === 0) return socket;
        if (!trustedHop(address, index)) return address;
      }
      // Every hop trusted: the farthest one is as near the client as we can tell.
      return chain.length === 0 ? socket : stripMapped(chain[0]!);
    },
  };
}

/** The compiled trust rules for a `trustProxy` option (cached: the collect path calls this per hit). */
export function proxyTrust(trustProxy: TrustProxy | undefined): ProxyTrust {
  const option = trustProxy ?? false;
  if (Array.isArray(option)) {
    let trust = compiledLists.get(option);
    if (!trust) compiledLists.set(option, (trust = compile(option)));
    return trust;
  }
  let trust = compiledValues.get(option);
  if (!trust) compiledValues.set(option, (trust = compile(option)));
  return trust;
}
