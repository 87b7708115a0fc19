import { BlockList, isIP } from "node:net";
import type { TrustProxy } from "@tally-analytics/core";

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

const stripMapped = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");

function cidrList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [network = "", bits] = entry.trim().split("/");
    const family = isIP(network);
    if (family === 0) continue;
    const type = family === 6 ? "ipv6" : "ipv4";
    const prefix = Number(bits);
    if (bits === undefined) list.addAddress(network, type);
    else if (Number.isInteger(prefix) && prefix >= 0 && prefix <= (family === 4 ? 32 : 128)) list.addSubnet(network, prefix, type);
  }
  return list;
}

/** `Forwarded: for=1.2.3.4, for="[2001:db8::1]:4711"` → addresses, nearest last. */
function forwardedFor(header: string): string[] {
  const addresses: string[] = [];
  for (const element of header.split(",")) {
    const match = /(?:^|;)\s*for=("?)([^";,]+)\1/i.exec(element.trim());
    if (!match?.[2]) continue;
    const value = match[2];
    const bracketed = /^\[([^\]]+)\]/.exec(value);
    addresses.push(bracketed?.[1] ?? (isIP(value) ? value : value.replace(/:\d+$/, "")));
  }
  return addresses;
}

function forwardingChain(header: HeaderReader): string[] {
  const xff = header("x-forwarded-for");
  if (xff) return xff.split(",").map((entry) => entry.trim()).filter(Boolean);
  const forwarded = header("forwarded");
  return forwarded ? forwardedFor(forwarded) : [];
}

function compile(trustProxy: TrustProxy | undefined): ProxyTrust {
  const list = Array.isArray(trustProxy) ? cidrList(trustProxy) : null;
  const trusts = (address: string | undefined) => {
    if (!address || isIP(stripMapped(address)) === 0) return false;
    if (list) return list.check(stripMapped(address), isIP(stripMapped(address)) === 6 ? "ipv6" : "ipv4");
    return trustProxy === true || (typeof trustProxy === "number" && trustProxy > 0);
  };
  return {
    trusts,
    clientIp(socketIp, header) {
      if (!trusts(socketIp)) return socketIp && stripMapped(socketIp);
      // The chain as seen from here: the client first, our peer last.
      const hops = [...forwardingChain(header), socketIp as string].map(stripMapped);
      let index = hops.length - 1;
      if (trustProxy === true) index = 0;
      else if (typeof trustProxy === "number") index = Math.max(0, hops.length - 1 - trustProxy);
      else while (index > 0 && trusts(hops[index])) index--;
      const candidate = hops[index];
      return candidate && isIP(candidate) ? candidate : stripMapped(socketIp as string);
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
