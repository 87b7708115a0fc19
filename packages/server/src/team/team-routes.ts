import {
  INVALID_CODE,
  invitationSchema,
  keyCreateSchema,
  NotFoundError,
  userUpdateSchema,
  ValidationError,
  type Access,
  type Tally,
  type User,
} from "@tally-analytics/core/internal";
import * as z from "zod";
import { messageAnswer, send } from "../http/answers.js";
import { reserveCode, underReservation } from "../http/attempt-limits.js";
import { HttpError, tooManyAttempts } from "../http/errors.js";
import { defineRoute, type RequestContext, type Route } from "../http/route.js";
import {
  invitationAnswer,
  invitationListAnswer,
  invitationRevokedAnswer,
  keyCreatedAnswer,
  keyListAnswer,
  keyRevokedAnswer,
  meAnswer,
  recoveryCodesAnswer,
  twoFactorPolicyAnswer,
  twoFactorSetupAnswer,
  userAnswer,
  userDeletedAnswer,
  userListAnswer,
} from "./team-answers.js";
import { linkBase } from "./links.js";

const idParams = z.object({ id: z.string().meta({ description: "The id.", example: "2" }) });
const idOf = (params: Record<string, string>): number => {
  const id = Number(params.id);
  if (!/^\d+$/.test(params.id ?? "") || !Number.isSafeInteger(id) || id < 1) throw new NotFoundError();
  return id;
};
const codeBody = z.object({
  code: z
    .string({ error: "The code field is required." })
    .min(1, "The code field is required.")
    .max(32)
    .meta({ description: "Six digits from the app, or a recovery code." }),
});
const currentCodeBody = z.object({
  code: z
    .string()
    .max(32)
    .optional()
    .meta({ description: "With two-factor sign-in on: a code from the current app, or a recovery code (a new set-up replaces both)." }),
});
const emailParams = z.object({ email: z.string().meta({ description: "The invited address.", example: "ada@example.com" }) });
const policyBody = z.object({
  required: z.preprocess(
    (value) =>
      value === "1" || value === 1 || value === "true" ? true : value === "0" || value === 0 || value === "false" ? false : value,
    z.boolean({ error: "The required field must be true or false." }),
  ),
});

const notFound = { 404: "error" } as const;
const userOf = (user: User) => ({
  id: user.id,
  email: user.email,
  role: user.role,
  websites: user.websites,
  password: user.password,
  two_factor: user.two_factor,
  created_at: user.created_at,
});
const selfId = (access: Access): number => access.userId ?? 0;

/** The invitation is in the database; only the mail failed: say so, the owner can send it again. */
async function inviteOrExplain(tally: Tally, accountId: number, body: unknown, base: string, invitedBy: number | null) {
  try {
    return await tally.team.invite(accountId, body, base, invitedBy);
  } catch (error) {
    if (error instanceof ValidationError || error instanceof NotFoundError) throw error;
    throw new HttpError(502, "The invitation could not be e-mailed; check the mail settings and try again.");
  }
}

/**
 * Runs a check of one of the caller's codes under the code limits (reserved first, given
 * back when it passes): 429 once they are spent, the check's own 422 when the code is wrong.
 */
async function codeChecked<T>(
  context: Pick<RequestContext<unknown, unknown>, "tally" | "request" | "ip">,
  userId: number,
  check: () => Promise<T>,
) {
  const user = await context.tally.team.users.findById(userId);
  if (!user) throw new NotFoundError();
  const reservation = await reserveCode(context, { id: userId, email: user.email });
  if (typeof reservation === "number") throw tooManyAttempts(reservation);
  const wrongCode = (error: unknown) => error instanceof ValidationError && error.errors.code !== undefined;
  const outcome = await underReservation(
    reservation,
    () =>
      check().then(
        (value) => ({ value }),
        (error: unknown) => (wrongCode(error) ? { refused: error } : Promise.reject(error)),
      ),
    (answer) => "value" in answer,
  );
  if ("refused" in outcome) throw outcome.refused;
  return outcome.value;
}

/** `/api/v1/me…` (the caller's own sign-in) and `/api/v1/users…` (an owner's team). */
export const teamRoutes: readonly Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/me",
    auth: "account",
    permission: "anyone",
    summary: "Who the credentials speak for",
    tag: "Team",
    description: "The user (if any), role, website limits and key scope; also answers an account-wide key (user null).",
    responses: { 200: { description: "The caller.", schema: meAnswer } },
    async handle({ tally, access, via }) {
      const row = access.userId === undefined ? null : await tally.team.users.get(access.accountId, access.userId);
      const required = await tally.team.requiresTwoFactor(access.accountId);
      return send(meAnswer, {
        data: {
          user: row && userOf(row),
          role: access.role,
          websites: access.websites == null ? null : [...access.websites],
          scope: access.scope ?? null,
          via,
          must_set_up_two_factor: required && row !== null && !row.two_factor,
          account_requires_two_factor: required,
        },
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/users",
    auth: "account",
    permission: "owner",
    summary: "The account's users",
    tag: "Team",
    responses: { 200: { description: "Every user, oldest first.", schema: userListAnswer } },
    handle: async ({ tally, accountId }) => send(userListAnswer, { data: (await tally.team.users.list(accountId)).map(userOf) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/users/invitations",
    auth: "account",
    permission: "owner",
    body: invitationSchema,
    summary: "Invite someone by e-mail",
    tag: "Team",
    description:
      "Mails a link (single use, 7 days) to choose a password and join with this role. Without mail set up, the answer carries the link instead.",
    responses: {
      201: { description: "Invited.", schema: invitationAnswer },
      502: { description: "The mail server refused the message.", schema: messageAnswer(502) },
    },
    async handle({ tally, accountId, access, body, url, basePath }) {
      const sent = await inviteOrExplain(tally, accountId, body, linkBase(tally, url, basePath), access.userId ?? null);
      return send(invitationAnswer, { data: sent });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/users/invitations",
    auth: "account",
    permission: "owner",
    summary: "Pending invitations",
    tag: "Team",
    description: "Invitations not accepted yet and not expired, oldest first, with the owner who sent each.",
    responses: { 200: { description: "The invitations (never their links).", schema: invitationListAnswer } },
    handle: async ({ tally, accountId }) => send(invitationListAnswer, { data: await tally.team.tokens.invitations(accountId) }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/users/invitations/{email}",
    auth: "account",
    permission: "owner",
    params: emailParams,
    summary: "Revoke an invitation",
    tag: "Team",
    description: "Its link stops working at once.",
    responses: { 200: { description: "Revoked.", schema: invitationRevokedAnswer }, ...notFound },
    async handle({ tally, accountId, params }) {
      const email = (params.email ?? "").trim().toLowerCase();
      await tally.team.tokens.revokeInvitation(accountId, email);
      return send(invitationRevokedAnswer, { email, object: "invitation", deleted: true });
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/users/{id}",
    auth: "account",
    permission: "owner",
    params: idParams,
    body: userUpdateSchema,
    summary: "Change a user's role or websites",
    tag: "Team",
    description: "An account keeps at least one owner (422 otherwise). Takes effect on the user's next request.",
    responses: { 200: { description: "The user, changed.", schema: userAnswer }, ...notFound },
    handle: async ({ tally, accountId, params, body }) =>
      send(userAnswer, { data: userOf(await tally.team.users.update(accountId, idOf(params), body)) }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/users/{id}",
    auth: "account",
    permission: "owner",
    params: idParams,
    summary: "Remove a user",
    tag: "Team",
    description: "Their sessions and API keys end at once. An account keeps at least one owner (422 otherwise).",
    responses: { 200: { description: "Removed.", schema: userDeletedAnswer }, ...notFound, 422: "error" },
    async handle({ tally, accountId, params }) {
      const id = idOf(params);
      await tally.team.users.remove(accountId, id);
      return send(userDeletedAnswer, { id, object: "user", deleted: true });
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/account/two-factor",
    auth: "account",
    permission: "owner",
    body: policyBody,
    summary: "Require two-factor sign-in for everyone",
    tag: "Team",
    description: "With `required` true, users without two-factor sign-in may only set it up until they have.",
    responses: { 200: { description: "The policy.", schema: twoFactorPolicyAnswer } },
    async handle({ tally, accountId, body }) {
      await tally.team.setRequireTwoFactor(accountId, body.required);
      return send(twoFactorPolicyAnswer, { data: { required: body.required } });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/me/keys",
    auth: "account",
    permission: "self",
    summary: "Your API keys",
    tag: "Team",
    responses: { 200: { description: "Keys not revoked (never the keys themselves).", schema: keyListAnswer } },
    handle: async ({ tally, access }) => send(keyListAnswer, { data: await tally.team.users.listKeys(selfId(access)) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/me/keys",
    auth: "account",
    permission: "self",
    body: keyCreateSchema,
    summary: "Create one of your API keys",
    tag: "Team",
    description: "`scope` `read` (the default) changes nothing; `write` does what your role allows. The key is in this answer only.",
    responses: { 201: { description: "The key.", schema: keyCreatedAnswer } },
    async handle({ tally, access, body }) {
      const created = await tally.team.users.createKey(selfId(access), body);
      const listing = (await tally.team.users.listKeys(selfId(access))).find((key) => key.id === created.id);
      if (!listing) throw new NotFoundError();
      return send(keyCreatedAnswer, { data: { ...listing, key: created.key } });
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/me/keys/{id}",
    auth: "account",
    permission: "self",
    params: idParams,
    summary: "Revoke one of your API keys",
    tag: "Team",
    responses: { 200: { description: "Revoked.", schema: keyRevokedAnswer }, ...notFound },
    async handle({ tally, access, params }) {
      const id = idOf(params);
      await tally.team.users.revokeKey(selfId(access), id);
      return send(keyRevokedAnswer, { id, object: "key", deleted: true });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/me/two-factor",
    auth: "account",
    permission: "two-factor",
    body: currentCodeBody,
    summary: "Start setting up two-factor sign-in",
    tag: "Team",
    description:
      "A new secret for an authenticator app; sign-in asks for codes only once `confirm` has checked one. With two-factor sign-in on already, `code` (from the current app, or a recovery code) is required: a new set-up replaces the secret and the recovery codes.",
    responses: { 200: { description: "The secret.", schema: twoFactorSetupAnswer }, 404: "error", 429: "error" },
    async handle(context) {
      const { tally, access, body } = context;
      const user = await tally.team.users.get(access.accountId, selfId(access));
      const begin = () => tally.team.twoFactor.begin(user.id, body.code);
      return send(twoFactorSetupAnswer, { data: user.two_factor ? await codeChecked(context, user.id, begin) : await begin() });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/me/two-factor/confirm",
    auth: "account",
    permission: "two-factor",
    body: codeBody,
    summary: "Turn two-factor sign-in on",
    tag: "Team",
    description: "With a code from the new secret. Answers ten recovery codes, this once.",
    responses: { 200: { description: "On.", schema: recoveryCodesAnswer }, 429: "error" },
    async handle(context) {
      const { tally, access, body } = context;
      const codes = await codeChecked(context, selfId(access), () => tally.team.twoFactor.confirm(selfId(access), body.code));
      return send(recoveryCodesAnswer, { data: { recovery_codes: codes } });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/me/two-factor/disable",
    auth: "account",
    permission: "two-factor",
    body: codeBody,
    summary: "Turn two-factor sign-in off",
    tag: "Team",
    description: "With a current code (or a recovery code). Refused while the account requires it.",
    responses: { 200: { description: "Off.", schema: messageAnswer(200, "Two-factor sign-in is off.") }, 429: "error" },
    async handle(context) {
      const { tally, access, body } = context;
      if (await tally.team.requiresTwoFactor(access.accountId))
        throw ValidationError.field("code", "This account requires two-factor sign-in.");
      await codeChecked(context, selfId(access), async () => {
        if (!(await tally.team.twoFactor.verify(selfId(access), body.code))) throw ValidationError.field("code", INVALID_CODE);
      });
      await tally.team.twoFactor.disable(selfId(access));
      return send(messageAnswer(200), { message: "Two-factor sign-in is off." });
    },
  }),
];
