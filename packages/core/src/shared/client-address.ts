import { isIP } from "node:net";

/**
 * Dotted IPv4 text read by hand: 4 when it is an address, 0 when digits and dots make none
 * (as node:net reads them: no leading zeros), null for anything else.
 */
function dottedQuad(text: string): 0 | 4 | null {
  let dots = 0;
  let digits = 0;
  let value = 0;
  let valid = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) {
      if (digits === 0) valid = false;
      dots++;
      digits = 0;
      value = 0;
    } else if (code >= 48 && code <= 57) {
      if (digits === 1 && value === 0) valid = false;
      value = value * 10 + code - 48;
      digits++;
      if (value > 255) valid = false;
    } else return null;
  }
  return valid && dots === 3 && digits > 0 ? 4 : 0;
}

/**
 * node:net's `isIP`, with dotted IPv4 (nearly every address a hit carries) read without
 * its regular expressions, which cost a hit more than the rest of reading its address.
 */
export function ipVersion(address: string): number {
  return dottedQuad(address) ?? isIP(address);
}

/** An IPv4 address written as IPv6 (`::ffff:1.2.3.4`), as IPv4. */
export const stripMapped = (address: string) =>
  address.startsWith("::") ? address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "") : address;

/**
 * The key a client's attempts are counted under: an IPv4 address, or the /64 network of
 * an IPv6 one (one subscriber usually holds a whole /64, so counting exact addresses
 * would give each guesser 2^64 budgets).
 */
export function addressKey(ip: string | undefined): string {
  const address = ip ? stripMapped(ip.split("%", 1)[0]!) : "";
  if (ipVersion(address) !== 6) return address || "unknown";
  const [head = "", tail] = address.toLowerCase().split("::");
  const groups = head === "" ? [] : head.split(":");
  // `::` stands for as many zero groups as are missing; only the first four groups matter.
  if (tail !== undefined) {
    const after = tail === "" ? [] : tail.split(":");
    const width = after.reduce((total, group) => total + (group.includes(".") ? 2 : 1), 0);
    groups.push(...Array<string>(8 - groups.length - width).fill("0"), ...after);
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
