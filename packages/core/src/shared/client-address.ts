import { isIP } from "node:net";

/** An IPv4 address written as IPv6 (`::ffff:1.2.3.4`), as IPv4. */
export const stripMapped = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");

/**
 * The key a client's attempts are counted under: an IPv4 address, or the /64 network of
 * an IPv6 one (one subscriber usually holds a whole /64, so counting exact addresses
 * would give each guesser 2^64 budgets).
 */
export function addressKey(ip: string | undefined): string {
  const address = ip ? stripMapped(ip.split("%", 1)[0]!) : "";
  if (isIP(address) !== 6) return address || "unknown";
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
