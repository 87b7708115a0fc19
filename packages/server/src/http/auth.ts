import { isRole, NotFoundError, UnauthorizedError, type Access, type SessionAccess, type Tally } from "@tally-analytics/core";
import type { Authenticate, HostAccess } from "./options.js";
import { sessionToken } from "./session-cookie.js";

export function bearerToken(request: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1] ?? null;
}

/**
 * An authenticated request: who it speaks for, and what vouched for it: the host's hook
 * (a cookie of the host's, typically), an API key, or Tally's own session cookie.
 */
export interface Authenticated {
  access: Access;
  via: "hook" | "key" | "session";
  /** Set for Tally's sessions. */
  session?: SessionAccess;
  /**
   * The account requires two-factor sign-in and this user (behind a session or one of their
   * keys) has none yet: a session may only set it up, a key may only ask who it is.
   */
  confined: boolean;
}

/** What the host's hook returned, as an Access: a bare account id is its owner. */
function hostAccess(hooked: number | HostAccess): Access {
  if (typeof hooked === "number") return { accountId: hooked, role: "owner" };
  if (!isRole(hooked.role))
    throw new TypeError(`authenticate() returned an unknown role "${String(hooked.role)}" (owner, admin or viewer)`);
  return { accountId: hooked.accountId, role: hooked.role, ...(hooked.websites === undefined ? {} : { websites: hooked.websites }) };
}

/**
 * Who a request speaks for: the host's hook first, then the Bearer key, then Tally's
 * session cookie (a signed-in person); UnauthorizedError otherwise. A session still
 * waiting for its second factor is not signed in.
 */
export async function authenticateRequest(tally: Tally, request: Request, hook?: Authenticate): Promise<Authenticated> {
  const hooked = hook ? await hook(request) : null;
  if (hooked !== null) {
    const access = hostAccess(hooked);
    try {
      await tally.accounts.get(access.accountId);
    } catch (error) {
      // The host named an account Tally does not have: as good as no credentials.
      throw error instanceof NotFoundError ? new UnauthorizedError() : error;
    }
    return { access, via: "hook", confined: false };
  }
  const key = bearerToken(request);
  if (key !== null) {
    const found = await tally.team.keyAccess(key);
    return { access: found.access, via: "key", confined: found.mustSetUpTwoFactor };
  }
  const token = sessionToken(request);
  const session = token === null ? null : await tally.team.sessionAccess(token);
  if (session === null || session.stage !== "full") throw new UnauthorizedError();
  return { access: session.access, via: "session", session, confined: session.mustSetUpTwoFactor };
}
