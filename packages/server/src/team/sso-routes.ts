import type { RequestContext, Route, RouteAnswer } from "../http/route.js";
import { defineRoute } from "../http/route.js";
import { sessionCookieHeader, sessionToken } from "../http/session-cookie.js";
import { linkBase } from "./links.js";
import { formPage, seeOther } from "./sign-in-pages.js";
import { clearFlowCookie, flowCookie, providerConfiguration, readFlow } from "./sso-flow.js";

type Context = RequestContext<Record<string, string>, undefined>;

/** Whether single sign-on is configured for this handler. */
export const ssoLink = (context: Pick<RequestContext<unknown, unknown>, "sso">): boolean => context.sso !== undefined;

const cookieOptions = ({ url, basePath }: Context) => ({ basePath, secure: url.protocol === "https:" });
const redirectUri = (context: Context) => `${linkBase(context.tally, context.url, context.basePath)}/sso/callback`;

function refused(context: Context, reason: string, status = 403): Response {
  return formPage(context.request, {
    title: "Single sign-on refused",
    intro: [reason],
    links: [["./login", "Back to sign-in"]],
    status,
    headers: { "set-cookie": clearFlowCookie(cookieOptions(context)) },
  });
}

/** `/sso`: off to the provider, with PKCE, a state and a nonce kept in a signed cookie. */
async function start(context: Context): Promise<Response> {
  const sso = context.sso;
  if (!sso)
    return formPage(context.request, { title: "Single sign-on is not set up", links: [["./login", "Back to sign-in"]], status: 404 });
  const { client, config } = await providerConfiguration(sso);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const target = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(context),
    scope: "openid email",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return new Response(null, {
    status: 303,
    headers: {
      location: target.href,
      "cache-control": "no-store",
      "set-cookie": flowCookie(sso, { state, nonce, verifier }, cookieOptions(context)),
    },
  });
}

/**
 * `/sso/callback`: the provider's answer. Its ID token must carry an e-mail the provider
 * says it verified; that address names the user (or, with `newUsers`, a new one joins).
 */
async function callback(context: Context): Promise<Response> {
  const { tally, request, sso } = context;
  if (!sso) return refused(context, "Single sign-on is not set up here.", 404);
  const flow = readFlow(sso, request);
  if (!flow) return refused(context, "This sign-in took too long or did not start here. Try again.", 400);
  const { client, config } = await providerConfiguration(sso);
  let claims: Record<string, unknown> | undefined;
  try {
    const answered = new URL(`${redirectUri(context)}${context.url.search}`);
    const tokens = await client.authorizationCodeGrant(config, answered, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
    // Many providers put `email` in the ID token only without an access token; else ask userinfo.
    if (claims && typeof claims.email !== "string" && tokens.access_token)
      claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
  } catch (error) {
    return refused(context, `The provider's answer was refused: ${error instanceof Error ? error.message : String(error)}`, 400);
  }
  const email = typeof claims?.email === "string" ? claims.email.trim().toLowerCase() : "";
  if (!email) return refused(context, "Your provider did not give an e-mail address.");
  if (claims?.email_verified !== true)
    return refused(context, `Your provider has not verified the address ${email}: Tally only trusts verified addresses.`);
  let users = await tally.team.users.listByEmail(email);
  if (users.length === 0 && sso.newUsers) {
    const accounts = sso.newUsers.accountId === undefined ? await tally.accounts.list() : [];
    const accountId = sso.newUsers.accountId ?? (accounts.length === 1 ? accounts[0]!.id : undefined);
    if (accountId === undefined)
      return refused(context, "Newcomers cannot join: there are several accounts and the settings do not say which one (OIDC_ACCOUNT).");
    await tally.team.users.add(accountId, { email, role: sso.newUsers.role });
    users = await tally.team.users.listByEmail(email);
  }
  const [user, ...others] = users;
  if (!user) return refused(context, `No Tally user has the address ${email}: ask an owner of your account to invite you.`);
  const presented = sessionToken(request);
  if (presented !== null) await tally.team.sessions.end(presented);
  // The provider did the authentication (and its own second factor, if any): a full session,
  // once the person has chosen among their accounts when the address has users in several.
  const stage = others.length === 0 ? "full" : "choose";
  const token = await tally.team.sessions.start(
    Number(user.id),
    stage,
    others.map((other) => Number(other.id)),
  );
  const next = stage === "choose" ? "../login-account" : "../";
  return seeOther(next, [sessionCookieHeader(token, cookieOptions(context)), clearFlowCookie(cookieOptions(context))]);
}

const html: RouteAnswer = { description: "Why the sign-in was refused.", media: { "text/html": "A page saying why." } };
const onward: RouteAnswer = {
  description: "On to the provider, or back to the dashboard signed in.",
  headers: { Location: { description: "Where to.", required: true } },
};

export const ssoRoutes: readonly Route[] = [
  defineRoute({
    method: "GET",
    path: "/sso",
    auth: "public",
    rateLimited: true,
    tag: "Sign-in",
    summary: "Start single sign-on (OpenID Connect)",
    responses: { 303: onward, 404: html },
    handle: start,
  }),
  defineRoute({
    method: "GET",
    path: "/sso/callback",
    auth: "public",
    rateLimited: true,
    tag: "Sign-in",
    summary: "The provider's answer",
    description: "Matches the user by the e-mail the provider verified; an unverified one is refused.",
    responses: { 303: onward, 400: html, 403: html, 404: html },
    handle: callback,
  }),
];
