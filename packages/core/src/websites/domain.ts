import { isIP } from "node:net";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Normalises what a user types as a website's domain into the host that hits are
 * routed by: lower-case, scheme/userinfo/port/path stripped, `www.` dropped, IDN as
 * punycode, IPv6 in brackets. Returns null when what is left is not a host name or IP.
 */
export function normalizeDomain(input: string): string | null {
  let text = input.trim().toLowerCase();
  if (text === "") return null;
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/^\/\//, "");
  text = text.split(/[/?#]/, 1)[0] ?? "";
  text = text.slice(text.lastIndexOf("@") + 1);
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(text);
  const bareIpv6 = bracketed ? (bracketed[1] ?? "") : text;
  if (isIP(bareIpv6) === 6) return `[${new URL(`http://[${bareIpv6}]`).hostname.slice(1, -1)}]`;
  const host = text.replace(/:\d*$/, "").replace(/\.$/, "");
  if (/^[\d.]+$/.test(host)) return isIP(host) === 4 ? host : null;
  let ascii: string;
  try {
    ascii = new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
  ascii = stripWww(ascii);
  return isHostName(ascii) ? ascii : null;
}

/** `www.example.com` and `example.com` are one website. */
export function stripWww(host: string): string {
  return host.startsWith("www.") && host.length > 4 ? host.slice(4) : host;
}

function isHostName(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split(".");
  if (!labels.every((label) => LABEL.test(label))) return false;
  // A top-level label is never all digits: "1.2.3" is a malformed IP, not a name.
  return !/^\d+$/.test(labels[labels.length - 1] ?? "");
}
