import { NotFoundError, UnauthorizedError, type Tally } from "@tally-analytics/core";
import type { Authenticate } from "./options.js";

export function bearerToken(request: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1] ?? null;
}

/** An authenticated request: its account, and whether the host's hook (a cookie session, typically) or an API key vouched for it. */
export interface Authenticated {
  accountId: number;
  via: "hook" | "key";
}

/** The account behind a request: the host's hook first, then the Bearer key; UnauthorizedError otherwise. */
export async function authenticateRequest(tally: Tally, request: Request, hook?: Authenticate): Promise<Authenticated> {
  const hooked = hook ? await hook(request) : null;
  if (hooked !== null) {
    try {
      return { accountId: (await tally.accounts.get(hooked)).id, via: "hook" };
    } catch (error) {
      // The host named an account Tally does not have: as good as no credentials.
      throw error instanceof NotFoundError ? new UnauthorizedError() : error;
    }
  }
  const key = bearerToken(request);
  if (key === null) throw new UnauthorizedError();
  return { accountId: (await tally.accounts.authenticate(key)).id, via: "key" };
}
