import * as OTPAuth from "otpauth";
import { expect } from "vitest";
import type { Served } from "../support/transports.js";

/** The session cookie a response sets (its value), or null. */
export function sessionFrom(response: Response): string | null {
  for (const cookie of response.headers.getSetCookie()) {
    const match = /^tally_session=([^;]*)/.exec(cookie);
    if (match) return match[1] === "" ? null : match[1]!;
  }
  return null;
}

/** A form POST as a same-origin page sends it (the browser adds Origin), without following the redirect. */
export function postForm(served: Served, path: string, fields: Record<string, string>, cookie?: string): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", origin: new URL(served.base).origin };
  if (cookie !== undefined) headers.cookie = `tally_session=${cookie}`;
  return served.fetch(path, { method: "POST", body: new URLSearchParams(fields), headers, redirect: "manual" });
}

/** A JSON call of the API with a session cookie, as the dashboard makes it (same origin). */
export async function withSession(
  served: Served,
  cookie: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {
    cookie: `tally_session=${cookie}`,
    "sec-fetch-site": "same-origin",
    accept: "application/json",
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await served.fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function withKey(
  served: Served,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await served.fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Signs in with a password (no second factor) and returns the session token. */
export async function signIn(served: Served, email: string, password: string): Promise<string> {
  const response = await postForm(served, "/login", { email, password });
  expect(response.status).toBe(303);
  const token = sessionFrom(response);
  expect(token).not.toBeNull();
  return token!;
}

/** The current code of a base32 secret, or the one `offsetSteps` 30-second steps away. */
export const totpCode = (secret: string, offsetSteps = 0) =>
  OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: Date.now() + offsetSteps * 30_000 });

export const PASSWORD = "correct horse battery staple";

/**
 * A cheap scrypt cost for tests that check many passwords: a hash keeps the cost it was
 * made with, so users made with it verify at this cost wherever they are checked.
 */
export const CHEAP_PASSWORDS = { cost: { logN: 10, r: 8, p: 1 } } as const;

/** A sign-in form posted from the client address `ip` (the server trusts one proxy hop), without following the redirect. */
export function signInFrom(
  served: Served,
  ip: string,
  fields: Record<string, string>,
  cookie?: string,
  path = "/login",
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    origin: new URL(served.base).origin,
    "x-forwarded-for": ip,
  };
  if (cookie !== undefined) headers.cookie = `tally_session=${cookie}`;
  return served.fetch(path, { method: "POST", body: new URLSearchParams(fields), headers, redirect: "manual" });
}

/** How many of the answers had each status, e.g. `{ 401: 10, 429: 30 }`. */
export const statusCounts = (responses: readonly Response[]): Record<number, number> =>
  responses.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});
