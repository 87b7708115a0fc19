import { NotFoundError, UnauthorizedError, type Tally } from "@tally-analytics/core";
import type { Authenticate } from "./options.js";

function bearerToken(request: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1] ?? null;
}

/** The account behind a request: the host's hook first, then the Bearer key; UnauthorizedError otherwise. */
export async function authenticateRequest(tally: Tally, request: Request, hook?: Authenticate): Promise<number> {
  const hooked = hook ? await hook(request) : null;
  if (hooked !== null) {
    try {
      return (await tally.accounts.get(hooked)).id;
    } catch (error) {
      // The host named an account Tally does not have: as good as no credentials.
      throw error instanceof NotFoundError ? new UnauthorizedError() : error;
    }
  }
  const key = bearerToken(request);
  if (key === null) throw new UnauthorizedError();
  return (await tally.accounts.authenticate(key)).id;
}
