import { canSeeWebsite, NotFoundError, normalizeDomain, stripWww, tallyInternals, type WebsiteRow } from "@tally-analytics/core/internal";
import { HttpError } from "../http/errors.js";
import type { RequestContext } from "../http/route.js";
import { hasValidShareCookie, shareLinkOf } from "./share-cookie.js";

/** Website privacy: 0 public, 1 private, 2 password. */
export const PRIVACY = { public: 0, private: 1, password: 2 } as const;

export const PASSWORD_REQUIRED = "This page is protected by a password.";

type ShareContext = Pick<RequestContext<unknown, unknown>, "tally" | "request" | "params" | "account">;

/** The website a share URL names; a domain no website has is a 404 like any other. */
export async function sharedWebsite({ tally, params }: Pick<ShareContext, "tally" | "params">): Promise<WebsiteRow> {
  const domain = normalizeDomain(params.domain ?? "");
  const row = domain === null ? null : await tallyInternals(tally).websites.findByDomain(stripWww(domain));
  if (!row) throw new NotFoundError();
  return row;
}

/**
 * Who may read a share page: anyone when public; the owner always (the host's hook or an
 * API key, or a member who may see it); others with a valid password cookie when privacy is 2. A private website
 * answers others exactly like a missing one.
 */
export async function readableWebsite(context: ShareContext): Promise<WebsiteRow> {
  const row = await sharedWebsite(context);
  const privacy = Number(row.privacy);
  if (privacy === PRIVACY.public) return row;
  // Credentials confined until their person sets up two-factor sign-in count as none here.
  const access = await context.account().catch((error: unknown) => {
    if (error instanceof HttpError && error.status === 403) return null;
    throw error;
  });
  if (access?.accountId === Number(row.account_id) && canSeeWebsite(access, Number(row.id))) return row;
  // A share link (its page's `?link=`, then the cookie that page set for the share API).
  const link = shareLinkOf(context.request);
  if (link && (await context.tally.shareLinks.opens(Number(row.id), link))) return row;
  if (privacy === PRIVACY.password) {
    if (hasValidShareCookie(context.request, row)) return row;
    throw new HttpError(401, PASSWORD_REQUIRED);
  }
  throw new NotFoundError();
}
