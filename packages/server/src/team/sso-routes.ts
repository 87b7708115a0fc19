import type { RequestContext, Route } from "../route.js";

/** Whether single sign-on is configured for this handler. */
export const ssoLink = (context: Pick<RequestContext<unknown, unknown>, "sso">): boolean => context.sso !== undefined;

export const ssoRoutes: readonly Route[] = [];
