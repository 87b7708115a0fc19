import {
  NO_MATCH,
  PASSWORDS_BUSY,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
  type SessionStage,
  type Tally,
} from "@tally-analytics/core/internal";
import { readFields } from "../http/body.js";
import { refuseCrossSite } from "../http/cross-site.js";
import { defineRoute, type RequestContext, type Route, type RouteAnswer } from "../http/route.js";
import { clearSessionCookie, sessionCookieHeader, sessionToken } from "../http/session-cookie.js";
import { formPage, seeOther, type FormField, type FormPage } from "./sign-in-pages.js";
import {
  rememberPlace,
  reserveCode,
  reservePassword,
  reserveReset,
  reserveSignUp,
  underReservation,
  type Reserved,
} from "../http/attempt-limits.js";
import { ssoRoutes, ssoLink } from "./sso-routes.js";

type Context = RequestContext<Record<string, string>, undefined>;

const FORM_LIMIT = 16 * 1024;
const html = (description: string): RouteAnswer => ({ description, media: { "text/html": description } });
const seeOtherAnswer: RouteAnswer = {
  description: "Done: on to the next page.",
  headers: {
    Location: { description: "Relative to this page.", required: true },
    "Set-Cookie": { description: "The session cookie, when one starts or ends." },
  },
};
const formRoute = { auth: "public", rateLimited: true, tag: "Sign-in" } as const;

const EMAIL: FormField = { name: "email", label: "E-mail", type: "email", autocomplete: "username" };
const PASSWORD: FormField = { name: "password", label: "Password", type: "password", autocomplete: "current-password" };
const NEW_PASSWORDS: readonly FormField[] = [
  { name: "password", label: "New password", type: "password", autocomplete: "new-password", hint: "At least 10 characters." },
  { name: "password_confirmation", label: "Repeat it", type: "password", autocomplete: "new-password" },
];
const CODE: FormField = {
  name: "code",
  label: "Code",
  type: "text",
  autocomplete: "one-time-code",
  inputmode: "numeric",
  hint: "Six digits from your authenticator app, or one of your recovery codes.",
};

const tryAgain = (seconds: number) => `Too many attempts. Try again in ${Math.max(1, Math.ceil(seconds / 60))} minutes.`;
const cookieOptions = ({ url, basePath }: Context) => ({ basePath, secure: url.protocol === "https:" });

/** The form's fields as text; a POST from another site is refused first (login CSRF, forced sign-out). */
async function postedForm(context: Context): Promise<Record<string, string>> {
  refuseCrossSite(context.request, true);
  const fields = await readFields(context.request, FORM_LIMIT);
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, typeof value === "string" ? value : ""]));
}

/** A refusal page's status and headers: 429 with the wait, or 503 when the password checks are all taken. */
const limited = (wait: number) => ({ error: tryAgain(wait), status: 429, headers: { "retry-after": String(wait) } });
const busy = (error: UnavailableError) => ({
  error: error.message,
  status: 503,
  headers: { "retry-after": String(error.retryAfterSeconds) },
});

/** Runs a page's check under the reservation; a busy password queue becomes its 503 page (the attempt given back). */
async function reserved<T>(
  reservation: Reserved,
  refused: (extra: Partial<FormPage>) => Response | Promise<Response>,
  check: () => Promise<T>,
  passed: (answer: T) => boolean,
): Promise<T | Response> {
  if (typeof reservation === "number") return refused(limited(reservation));
  try {
    return await underReservation(reservation, check, passed);
  } catch (error) {
    if (error instanceof UnavailableError) return refused(busy(error));
    throw error;
  }
}

/** A refused password is an answer (counted), not an error. */
const refusedAsNull = (error: unknown): null => {
  if (error instanceof UnauthorizedError) return null;
  throw error;
};

/** The first message of a ValidationError, for a form page. */
const firstMessage = (error: ValidationError) => Object.values(error.errors)[0]?.[0] ?? error.message;

/** Ends the session the browser arrived with, if any: a sign-in never keeps a token it did not issue. */
async function endPresented(tally: Tally, request: Request): Promise<void> {
  const presented = sessionToken(request);
  if (presented !== null) await tally.team.sessions.end(presented);
}

async function signedInFully(context: Context): Promise<boolean> {
  const token = sessionToken(context.request);
  return token !== null && (await context.tally.team.sessionAccess(token))?.stage === "full";
}

const loginLinks = (context: Context): [string, string][] => [
  ["./forgot-password", "Forgot your password?"],
  ...(ssoLink(context) ? ([["./sso", "Sign in with single sign-on"]] as [string, string][]) : []),
  ["./signup", "First time here? Set up your user with the account's API key"],
  // The dashboard's own form for an API key (this tab only).
  ["./#/key", "Use an API key instead"],
];

const loginPage = (context: Context, extra: Partial<FormPage> = {}) =>
  formPage(context.request, {
    title: "Sign in to Tally",
    fields: [EMAIL, PASSWORD],
    button: "Sign in",
    links: loginLinks(context),
    ...extra,
  });

const NEXT_PAGE: Record<SessionStage, string> = { full: "./", second_factor: "./login-code", choose: "./login-account" };

/** On to the page a new session's stage asks for; a full one is a sign-in from this place, remembered. */
async function onward(context: Context, email: string, { token, stage }: { token: string; stage: SessionStage }): Promise<Response> {
  await endPresented(context.tally, context.request);
  if (stage === "full") await rememberPlace(context, email);
  return seeOther(NEXT_PAGE[stage], [sessionCookieHeader(token, cookieOptions(context))]);
}

async function login(context: Context): Promise<Response> {
  const { tally } = context;
  const form = await postedForm(context);
  // Every check taken: turned away before any other work, so a flood costs the host little.
  if (!(await tally.team.canCheckPassword())) return loginPage(context, busy(new UnavailableError(PASSWORDS_BUSY, 1)));
  const email = (form.email ?? "").trim().toLowerCase();
  const signedIn = await reserved(
    await reservePassword(context, email),
    (extra) => loginPage(context, extra),
    () => tally.team.signIn(email, form.password ?? "").catch(refusedAsNull),
    (answer) => answer !== null,
  );
  if (signedIn instanceof Response) return signedIn;
  if (signedIn === null) return loginPage(context, { error: NO_MATCH, status: 401 });
  return onward(context, email, signedIn);
}

const accountPage = (context: Context, extra: Partial<FormPage> = {}) =>
  formPage(context.request, {
    title: "Choose an account",
    intro: ["Your address belongs to several Tally accounts with this password. Which one do you want to open?"],
    links: [["./login", "Start again"]],
    ...extra,
  });

/** After a password several of the person's accounts share: the account to open. */
async function accountChoices(context: Context): Promise<Response> {
  const token = sessionToken(context.request);
  const choices = token === null ? null : await context.tally.team.choices(token);
  if (!choices) return seeOther("./login");
  return accountPage(context, {
    fields: [],
    choices: { name: "user", options: choices.map((choice) => [String(choice.userId), `${choice.accountName} (${choice.role})`]) },
  });
}

async function chooseAccount(context: Context): Promise<Response> {
  const form = await postedForm(context);
  const token = sessionToken(context.request);
  const chosen = token === null ? null : await context.tally.team.choose(token, Number(form.user));
  if (!chosen) return seeOther("./login");
  const user = await context.tally.team.users.findById(Number(form.user));
  return onward(context, user?.email ?? "", chosen);
}

const codePage = (context: Context, extra: Partial<FormPage> = {}) =>
  formPage(context.request, {
    title: "Two-factor sign-in",
    intro: ["Enter the code your authenticator app shows for Tally."],
    fields: [CODE],
    button: "Sign in",
    links: [["./login", "Start again"]],
    ...extra,
  });

async function pendingSession(context: Context): Promise<{ token: string; userId: number; email: string } | null> {
  const token = sessionToken(context.request);
  const found = token === null ? null : await context.tally.team.sessionAccess(token);
  if (token === null || found?.stage !== "second_factor") return null;
  const user = await context.tally.team.users.findById(found.access.userId);
  return user ? { token, userId: found.access.userId, email: user.email } : null;
}

async function loginCode(context: Context): Promise<Response> {
  const { tally } = context;
  const form = await postedForm(context);
  const pending = await pendingSession(context);
  if (!pending) return seeOther("./login");
  // Guessing codes: once refused, the password must be given again (and that is limited too).
  const refused = async (extra: Partial<FormPage>) => {
    if (extra.status !== 429) return codePage(context, extra);
    await tally.team.sessions.end(pending.token);
    return loginPage(context, { ...extra, headers: { ...extra.headers, "set-cookie": clearSessionCookie(cookieOptions(context)) } });
  };
  const token = await reserved(
    await reserveCode(context, { id: pending.userId, email: pending.email }),
    refused,
    () => tally.team.completeSignIn(pending.token, form.code ?? ""),
    (answer) => answer !== null,
  );
  if (token instanceof Response) return token;
  if (token === null) return codePage(context, { error: "The code is invalid.", status: 401 });
  return onward(context, pending.email, { token, stage: "full" });
}

const signupPage = (context: Context, extra: Partial<FormPage> = {}) =>
  formPage(context.request, {
    title: "Set up your user",
    intro: [
      "Give the account's API key (the one `tally serve` printed at first start, or TALLY_API_KEY) and choose how you will sign in from now on. You become an owner of the account.",
    ],
    fields: [
      { name: "key", label: "API key", type: "password", autocomplete: "off" },
      { ...EMAIL, autocomplete: "email" },
      ...NEW_PASSWORDS,
    ],
    button: "Create my user",
    links: [["./login", "Back to sign-in"]],
    ...extra,
  });

/** The first person of an account proves it with an account-wide key (not one of a user's), then becomes its owner. */
async function signup(context: Context): Promise<Response> {
  const { tally, request } = context;
  const form = await postedForm(context);
  const isAccountKey = (access: { userId?: number; scope?: string } | null) =>
    access !== null && access.userId === undefined && access.scope === "write";
  const access = await reserved(
    await reserveSignUp(context),
    (extra) => signupPage(context, extra),
    () => tally.team.users.keyAccess((form.key ?? "").trim()).catch(refusedAsNull),
    isAccountKey,
  );
  if (access instanceof Response) return access;
  if (!access || !isAccountKey(access)) return signupPage(context, { error: "This is not an account's API key.", status: 401 });
  if (form.password !== form.password_confirmation) return signupPage(context, { error: "The passwords do not match.", status: 422 });
  try {
    await tally.team.users.add(access.accountId, { email: form.email, password: form.password, role: "owner" });
  } catch (error) {
    if (error instanceof ValidationError) return signupPage(context, { error: firstMessage(error), status: 422 });
    throw error;
  }
  const user = await tally.team.users.findByEmail(form.email ?? "", access.accountId);
  await endPresented(tally, request);
  const token = await tally.team.sessions.start(Number(user!.id), "full");
  await rememberPlace(context, user!.email);
  return seeOther("./", [sessionCookieHeader(token, cookieOptions(context))]);
}

const RESET_SENT = "If this address belongs to a user, a link to choose a new password is on its way. It works once, within one hour.";
const resetAvailable = (tally: Tally) => Boolean(tally.options.publicUrl && tally.options.mail);
const forgotPage = (context: Context, extra: Partial<FormPage> = {}) =>
  resetAvailable(context.tally)
    ? formPage(context.request, {
        title: "Forgot your password?",
        intro: ["We will e-mail you a link to choose a new one."],
        fields: [{ ...EMAIL, autocomplete: "email" }],
        button: "Send the link",
        links: [["./login", "Back to sign-in"]],
        ...extra,
      })
    : formPage(context.request, {
        title: "Forgot your password?",
        intro: [
          "Password reset by e-mail is not set up on this server (it needs PUBLIC_URL and SMTP_URL). Ask an owner of your account to remove and invite you again.",
        ],
        links: [["./login", "Back to sign-in"]],
      });

/** Always the same answer, at once: whether a mail goes out happens after it, so neither words nor timing say if the address exists. */
async function forgot(context: Context): Promise<Response> {
  const { tally } = context;
  const form = await postedForm(context);
  if (!resetAvailable(tally)) return forgotPage(context);
  const email = (form.email ?? "").trim().toLowerCase();
  // Every request counts here (each may send a mail): the reservation is never given back.
  const wait = await reserveReset(context, email);
  if (typeof wait === "number") return forgotPage(context, limited(wait));
  const base = (tally.options.publicUrl ?? "").replace(/\/+$/, "");
  // The link's host is the configured one, never this request's Host header (a forged Host would mail the token elsewhere).
  void tally.team
    .requestReset(email, base)
    .catch((error: unknown) =>
      console.error(`[tally] password reset mail failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  return forgotPage(context, { notice: RESET_SENT, fields: [], links: [["./login", "Back to sign-in"]] });
}

const tokenField = (token: string): FormField => ({ name: "token", label: "", type: "hidden", value: token });
const invalidLink = (context: Context) =>
  formPage(context.request, {
    title: "This link does not work",
    intro: ["This link is invalid, has been used, or has expired."],
    links: [["./login", "Go to sign-in"]],
    status: 410,
  });

async function resetForm(context: Context, token: string, extra: Partial<FormPage> = {}): Promise<Response> {
  if (!(await context.tally.team.tokens.resetUsable(token))) return invalidLink(context);
  return formPage(context.request, {
    title: "Choose a new password",
    fields: [tokenField(token), ...NEW_PASSWORDS],
    button: "Save the password",
    ...extra,
  });
}

async function reset(context: Context): Promise<Response> {
  const form = await postedForm(context);
  const token = form.token ?? "";
  if (form.password !== form.password_confirmation) return resetForm(context, token, { error: "The passwords do not match.", status: 422 });
  try {
    await context.tally.team.completeReset(token, form.password);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    if (error.errors.token) return invalidLink(context);
    return resetForm(context, token, { error: firstMessage(error), status: 422 });
  }
  return loginPage(context, {
    notice: "Your password is changed: every sign-in ended and your API keys were revoked. Sign in with the new one.",
  });
}

async function invitationForm(context: Context, token: string, extra: Partial<FormPage> = {}): Promise<Response> {
  const invitation = await context.tally.team.tokens.invitation(token);
  if (!invitation) return invalidLink(context);
  return formPage(context.request, {
    title: "Join Tally",
    intro: [`You are invited as ${invitation.role} with the address ${invitation.email}. Choose a password to accept.`],
    fields: [tokenField(token), ...NEW_PASSWORDS],
    button: "Accept the invitation",
    ...extra,
  });
}

async function acceptInvitation(context: Context): Promise<Response> {
  const { tally, request } = context;
  const form = await postedForm(context);
  const token = form.token ?? "";
  if (form.password !== form.password_confirmation)
    return invitationForm(context, token, { error: "The passwords do not match.", status: 422 });
  let userId: number;
  try {
    userId = await tally.team.tokens.accept(token, form.password);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    if (error.errors.token) return invalidLink(context);
    return invitationForm(context, token, { error: firstMessage(error), status: 422 });
  }
  await endPresented(tally, request);
  const session = await tally.team.sessions.start(userId, "full");
  return seeOther("./", [sessionCookieHeader(session, cookieOptions(context))]);
}

async function logout(context: Context): Promise<Response> {
  await postedForm(context);
  await endPresented(context.tally, context.request);
  return seeOther("./login", [clearSessionCookie(cookieOptions(context))]);
}

const page = (path: string, summary: string, handle: (context: Context) => Promise<Response>): Route =>
  defineRoute({
    ...formRoute,
    method: "GET",
    path,
    summary,
    responses: { 200: html("The form."), 303: seeOtherAnswer, 410: html("An invalid, used or expired link.") },
    handle,
  });
const form = (path: string, summary: string, handle: (context: Context) => Promise<Response>): Route =>
  defineRoute({
    ...formRoute,
    method: "POST",
    path,
    summary,
    responses: {
      200: html("The next page."),
      303: seeOtherAnswer,
      401: html("Refused: the form again, with why."),
      403: "error",
      410: html("An invalid, used or expired link."),
      413: "error",
      415: "error",
      422: html("The form again, with what to fix."),
      429: html("Too many attempts: the form again, with how long to wait."),
      503: html("Too many password checks at once: the form again, to send in a moment (`Retry-After`)."),
    },
    handle,
  });

/**
 * The sign-in pages, plain HTML under the mount: `/login`, `/login-code`, `/logout`,
 * `/signup` (the first owner, with the account's key), `/forgot-password`,
 * `/reset-password` and `/invite` (links from e-mails), and single sign-on.
 */
export const signInRoutes: readonly Route[] = [
  page("/login", "The sign-in form", async (context) => ((await signedInFully(context)) ? seeOther("./") : loginPage(context))),
  form("/login", "Sign in with e-mail and password", login),
  page("/login-code", "The two-factor code form", async (context) =>
    (await pendingSession(context)) ? codePage(context) : seeOther("./login"),
  ),
  form("/login-code", "Complete a sign-in with a code", loginCode),
  page("/login-account", "The account choice, when a password opens several", accountChoices),
  form("/login-account", "Open one of the accounts the password opened", chooseAccount),
  form("/logout", "Sign out (this browser's session ends on the server)", logout),
  page("/signup", "Set up the first user with the account's API key", async (context) => signupPage(context)),
  form("/signup", "Create an owner with the account's API key", signup),
  page("/forgot-password", "Ask for a password reset link", async (context) => forgotPage(context)),
  form("/forgot-password", "Mail a password reset link", forgot),
  page("/reset-password", "The new password form of a reset link", async (context) =>
    resetForm(context, context.url.searchParams.get("token") ?? ""),
  ),
  form("/reset-password", "Set a new password with a reset link", reset),
  page("/invite", "The form of an invitation link", async (context) =>
    invitationForm(context, context.url.searchParams.get("token") ?? ""),
  ),
  form("/invite", "Accept an invitation", acceptInvitation),
  ...ssoRoutes,
];
