import { createHmac, timingSafeEqual } from "node:crypto";
import type * as OpenId from "openid-client";
import type { SsoOptions } from "../http/options.js";
import { cookieValues, mountCookiePath } from "../http/session-cookie.js";

export const SSO_COOKIE = "tally_sso";
/** Time to sign in at the provider. */
const FLOW_LIFETIME_S = 10 * 60;

/** What a sign-in at the provider must come back with: kept in the browser, signed by the server. */
export interface SsoFlow {
  state: string;
  nonce: string;
  verifier: string;
  expires: number;
}

/**
 * The flow travels in an HttpOnly cookie, MACed with a key derived from the client secret
 * (the same on every instance, never sent anywhere): any instance can finish a sign-in any
 * other began, and a cookie planted by someone else does not verify.
 */
const mac = (sso: SsoOptions, payload: string) =>
  createHmac("sha256", `tally-sso\n${sso.clientSecret}`).update(payload).digest("base64url");

export function flowCookie(sso: SsoOptions, flow: Omit<SsoFlow, "expires">, options: { basePath: string; secure: boolean }): string {
  const payload = Buffer.from(JSON.stringify({ ...flow, expires: Math.floor(Date.now() / 1000) + FLOW_LIFETIME_S })).toString("base64url");
  return `${SSO_COOKIE}=${payload}.${mac(sso, payload)}; Path=${mountCookiePath(options.basePath)}; Max-Age=${FLOW_LIFETIME_S}; HttpOnly; SameSite=Lax${options.secure ? "; Secure" : ""}`;
}

export const clearFlowCookie = (options: { basePath: string; secure: boolean }) =>
  `${SSO_COOKIE}=; Path=${mountCookiePath(options.basePath)}; Max-Age=0; HttpOnly; SameSite=Lax${options.secure ? "; Secure" : ""}`;

export function readFlow(sso: SsoOptions, request: Request): SsoFlow | null {
  for (const value of cookieValues(request, SSO_COOKIE)) {
    const [payload = "", signature = ""] = value.split(".", 2);
    const expected = Buffer.from(mac(sso, payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) continue;
    const flow = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as SsoFlow;
    if (flow.expires * 1000 > Date.now()) return flow;
  }
  return null;
}

const configurations = new WeakMap<SsoOptions, Promise<OpenId.Configuration>>();

/** The provider's configuration, discovered once per settings object (a failure is retried next time). */
export async function providerConfiguration(sso: SsoOptions): Promise<{ client: typeof OpenId; config: OpenId.Configuration }> {
  const client = await import("openid-client");
  let found = configurations.get(sso);
  if (!found) {
    const issuer = new URL(sso.issuer);
    // http:// only when the operator configured it so (a provider on the same host, a test): https otherwise.
    const options = issuer.protocol === "http:" ? { execute: [client.allowInsecureRequests] } : {};
    found = client.discovery(issuer, sso.clientId, sso.clientSecret, undefined, options);
    found.catch(() => configurations.delete(sso));
    configurations.set(sso, found);
  }
  return { client, config: await found };
}
