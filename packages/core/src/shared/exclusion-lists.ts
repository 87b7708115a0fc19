import { BlockList, isIP } from "node:net";

/** Entries are one per line; commas are accepted too. */
export function splitList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

/** An IPv4/IPv6 address or CIDR, normalised; null when invalid. */
export function parseIpRule(entry: string): { address: string; prefix: number | null; family: number } | null {
  const [address = "", prefixText, extra] = entry.split("/");
  if (extra !== undefined) return null;
  const family = isIP(address);
  if (family === 0) return null;
  if (prefixText === undefined) return { address, prefix: null, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (family === 4 ? 32 : 128)) return null;
  return { address, prefix, family };
}

/** Builds the matcher used per hit. Invalid entries are ignored (they were rejected on save). */
export function compileIpRules(text: string): BlockList | null {
  const entries = splitList(text);
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const rule = parseIpRule(entry);
    if (!rule) continue;
    const type = rule.family === 4 ? "ipv4" : "ipv6";
    if (rule.prefix === null) list.addAddress(rule.address, type);
    else list.addSubnet(rule.address, rule.prefix, type);
  }
  return list;
}

/** `&` alone means "drop every query parameter". */
export const DROP_ALL_PARAMS = "&";
/** With `&`: `!q` keeps the parameter `q` (every other one is dropped). */
export const KEEP_PREFIX = "!";
const PARAM_NAME = /^[^\s=&#]{1,200}$/;

export function isValidParamEntry(entry: string): boolean {
  return entry === DROP_ALL_PARAMS || PARAM_NAME.test(entry);
}
