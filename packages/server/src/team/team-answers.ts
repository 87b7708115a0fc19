import { KEY_SCOPES, ROLES } from "@tally-analytics/core";
import * as z from "zod";
import { dataAnswer } from "../http/answers.js";

const timestamp = z.iso.datetime().meta({ example: "2026-11-21T10:00:00.000Z" });
const websites = z
  .array(z.int().positive())
  .nullable()
  .meta({ description: "Website ids the user is limited to; null for all.", example: null });

export const userSchema = z
  .object({
    id: z.int().positive(),
    email: z.string().meta({ example: "ada@example.com" }),
    role: z.enum(ROLES),
    websites,
    password: z.boolean().meta({ description: "Whether a password is set (single sign-on users may have none)." }),
    two_factor: z.boolean().meta({ description: "Whether two-factor sign-in is on." }),
    created_at: timestamp,
  })
  .meta({ id: "User", description: "A person of the account." });

export const meSchema = z
  .object({
    user: userSchema.nullable().meta({ description: "Null for an account-wide API key or the host's own sign-in." }),
    role: z.enum(ROLES),
    websites,
    scope: z.enum(KEY_SCOPES).nullable().meta({ description: "The API key's scope; null for a session or the host's sign-in." }),
    via: z.enum(["hook", "key", "session"]),
    must_set_up_two_factor: z
      .boolean()
      .meta({ description: "The account requires two-factor sign-in and this user has none yet: only its set-up is allowed." }),
    account_requires_two_factor: z.boolean(),
  })
  .meta({ id: "Me", description: "Who the request speaks for and what they may do." });

export const keyListingSchema = z
  .object({
    id: z.int().positive(),
    name: z.string(),
    prefix: z.string().meta({ example: "tly_AbCdEfGh" }),
    scope: z.enum(KEY_SCOPES),
    created_at: timestamp,
  })
  .meta({ id: "UserKeyListing" });

export const meAnswer = dataAnswer(meSchema, 200);
export const userAnswer = dataAnswer(userSchema, 200);
export const userListAnswer = dataAnswer(z.array(userSchema), 200);
export const userDeletedAnswer = z
  .object({ id: z.int().positive(), object: z.literal("user"), deleted: z.literal(true), status: z.literal(200) })
  .meta({ id: "UserDeleted" });
export const invitationAnswer = dataAnswer(
  z.object({
    email: z.string(),
    sent: z.boolean().meta({ description: "Whether the invitation was e-mailed." }),
    link: z.url().optional().meta({ description: "Without mail set up: the link to pass on yourself (it works once, within 7 days)." }),
  }),
  201,
);
export const invitationListingSchema = z
  .object({
    email: z.string().meta({ example: "ada@example.com" }),
    role: z.enum(ROLES),
    websites,
    invited_by: z
      .string()
      .nullable()
      .meta({ description: "The owner who sent it; null when an account-wide key, the CLI or the host's sign-in did." }),
    created_at: timestamp,
    expires_at: timestamp,
  })
  .meta({ id: "PendingInvitation", description: "An invitation not accepted yet: it ends with its sender's removal or demotion." });
export const invitationListAnswer = dataAnswer(z.array(invitationListingSchema), 200);
export const invitationRevokedAnswer = z
  .object({ email: z.string(), object: z.literal("invitation"), deleted: z.literal(true), status: z.literal(200) })
  .meta({ id: "InvitationRevoked" });
export const keyListAnswer = dataAnswer(z.array(keyListingSchema), 200);
export const keyCreatedAnswer = dataAnswer(
  keyListingSchema.extend({ key: z.string().meta({ description: "The key itself: shown this once, only its hash is kept." }) }),
  201,
);
export const keyRevokedAnswer = z
  .object({ id: z.int().positive(), object: z.literal("key"), deleted: z.literal(true), status: z.literal(200) })
  .meta({ id: "KeyRevoked" });
export const twoFactorSetupAnswer = dataAnswer(
  z.object({
    secret: z.string().meta({ description: "Base32, to type into an authenticator app." }),
    uri: z.string().meta({ description: "`otpauth://totp/…`, the same as a QR code." }),
  }),
  200,
);
export const recoveryCodesAnswer = dataAnswer(
  z.object({
    recovery_codes: z.array(z.string()).meta({ description: "Ten codes, each good once instead of an app's code. Shown this once." }),
  }),
  200,
);
export const twoFactorPolicyAnswer = dataAnswer(z.object({ required: z.boolean() }), 200);
