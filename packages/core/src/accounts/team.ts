import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import { NotFoundError, ValidationError } from "../shared/errors.js";
import type { Keyring } from "../shared/keyring.js";
import type { Mailer } from "../shared/mailer.js";
import type { Passwords } from "../shared/passwords.js";
import type { Access } from "./access.js";
import { createAttempts, type Attempts } from "./attempts.js";
import { createSessions, type SessionStage, type Sessions } from "./sessions.js";
import { invitationMail, resetMail } from "./team-mail.js";
import { createTwoFactor, type TwoFactor } from "./two-factor.js";
import { invitationSchema } from "./user-input.js";
import { createUserTokens, type UserTokens } from "./user-tokens.js";
import { accessOf, createUsers, type UserRow, type Users } from "./users.js";
import { validate } from "../shared/validation.js";

/** What a session cookie, or a user's API key, stands for. */
export interface SessionAccess {
  access: Access & { userId: number };
  stage: SessionStage;
  /** The account asks for two-factor sign-in and this user has none yet: only its set-up is allowed. */
  mustSetUpTwoFactor: boolean;
}

/** What an API key stands for; a user's key is confined as their sessions are while the account requires two-factor sign-in. */
export interface KeyAccess {
  access: Access;
  mustSetUpTwoFactor: boolean;
}

export interface InvitationSent {
  email: string;
  /** Whether it went out by e-mail; without mail configured, `link` is for the inviter to pass on. */
  sent: boolean;
  link?: string;
}

/** One of the accounts a person may go on to after a password that several of their users share. */
export interface AccountChoice {
  userId: number;
  accountId: number;
  accountName: string;
  role: string;
}

export interface Team {
  readonly users: Users;
  readonly sessions: Sessions;
  readonly tokens: UserTokens;
  readonly twoFactor: TwoFactor;
  readonly attempts: Attempts;
  /**
   * Password sign-in: a session at the `second_factor` stage when the user has two-factor
   * sign-in on, at `choose` when the password is right for the person's users of several accounts.
   */
  signIn(email: string, password: string): Promise<{ token: string; stage: SessionStage }>;
  /** The accounts a `choose` session may go on to; null for any other session. */
  choices(token: string): Promise<AccountChoice[] | null>;
  /** Goes on as one of a `choose` session's users: a new session replaces it. Null when that user is not among its choices. */
  choose(token: string, userId: number): Promise<{ token: string; stage: SessionStage } | null>;
  /**
   * False while every password check is taken (running or waiting): a sign-in now would be
   * refused with a 503. Asking costs nothing, so a flood is turned away before any other work.
   */
  canCheckPassword(): Promise<boolean>;
  /** Completes a `second_factor` session with a code: a new token replaces it. Null when the code is refused. */
  completeSignIn(token: string, code: string): Promise<string | null>;
  sessionAccess(token: string): Promise<SessionAccess | null>;
  /** Who an API key speaks for; UnauthorizedError when unknown or revoked. */
  keyAccess(key: string): Promise<KeyAccess>;
  /**
   * Invites someone by e-mail (or returns the link when no mail is set up). `linkBase` is the
   * mount's public URL; `invitedBy`, the owner sending it (it ends with their removal or demotion).
   */
  invite(accountId: number, input: unknown, linkBase: string, invitedBy?: number | null): Promise<InvitationSent>;
  /** Mails a reset link when the address has a user; says nothing either way. */
  requestReset(email: string, linkBase: string): Promise<void>;
  /** Sets the password of a reset link and signs that address out everywhere (sessions and its users' own keys). */
  completeReset(token: string, password: unknown): Promise<void>;
  requiresTwoFactor(accountId: number): Promise<boolean>;
  setRequireTwoFactor(accountId: number, required: boolean): Promise<void>;
  /**
   * `tally users reset-2fa`: turns it off and signs the person out everywhere (sessions and
   * their own API keys), for this address in every account, or in `accountId`'s only.
   */
  resetTwoFactor(email: string, accountId?: number): Promise<void>;
  /** Ends every session of the user and revokes their own API keys (keys made from a stolen session go too). */
  signOutEverywhere(userId: number): Promise<void>;
}

export interface TeamOptions {
  db: Kysely<Database>;
  mailer: Mailer | null;
  passwords: Passwords;
  /** Keys derived from the server secret: two-factor secrets are sealed with it, limit counters keyed by it. */
  keyring: Keyring;
}

export function createTeam({ db, mailer, passwords, keyring }: TeamOptions): Team {
  const users = createUsers(db, passwords);
  const sessions = createSessions(db);
  const tokens = createUserTokens(db, passwords);
  const twoFactor = createTwoFactor(db, keyring);
  const attempts = createAttempts(db, keyring);

  const send = async (message: Parameters<Mailer["send"]>[0]) => {
    if (!mailer) throw new Error("no mail transport configured");
    await mailer.send({ ...message, ...(mailer.from === undefined ? {} : { from: mailer.from }) });
  };

  async function requiresTwoFactor(accountId: number): Promise<boolean> {
    const row = await db.selectFrom("accounts").select("require_two_factor").where("id", "=", accountId).executeTakeFirst();
    return Number(row?.require_two_factor ?? 0) === 1;
  }

  const mustSetUp = async (user: UserRow) => user.totp_secret === null && (await requiresTwoFactor(Number(user.account_id)));
  const stageOf = (user: UserRow): SessionStage => (user.totp_secret === null ? "full" : "second_factor");

  async function signOutEverywhere(userId: number): Promise<void> {
    await sessions.endAll(userId);
    await users.revokeKeys(userId);
  }

  return {
    users,
    sessions,
    tokens,
    twoFactor,
    attempts,

    async signIn(email, password) {
      const [first, ...others] = await users.checkPassword(email, password);
      if (others.length > 0)
        return {
          token: await sessions.start(
            Number(first!.id),
            "choose",
            others.map((user) => Number(user.id)),
          ),
          stage: "choose",
        };
      const stage = stageOf(first!);
      return { token: await sessions.start(Number(first!.id), stage), stage };
    },

    async choices(token) {
      const session = await sessions.find(token);
      if (!session || session.stage !== "choose") return null;
      const rows = await db
        .selectFrom("users")
        .innerJoin("accounts", "accounts.id", "users.account_id")
        .select(["users.id", "users.account_id", "users.role", "accounts.name"])
        .where("users.id", "in", session.choices)
        .orderBy("users.id")
        .execute();
      return rows.map((row) => ({ userId: Number(row.id), accountId: Number(row.account_id), accountName: row.name, role: row.role }));
    },

    async choose(token, userId) {
      const session = await sessions.find(token);
      if (!session || session.stage !== "choose" || !session.choices.includes(userId)) return null;
      const user = await users.findById(userId);
      if (!user) return null;
      await sessions.end(token);
      const stage = stageOf(user);
      return { token: await sessions.start(userId, stage), stage };
    },

    canCheckPassword: async () => passwords.available(),

    async completeSignIn(token, code) {
      const session = await sessions.find(token);
      if (!session || session.stage !== "second_factor") return null;
      if (!(await twoFactor.verify(session.userId, code))) return null;
      await sessions.end(token);
      return sessions.start(session.userId, "full");
    },

    async sessionAccess(token) {
      const session = await sessions.find(token);
      if (!session) return null;
      const user = await users.findById(session.userId);
      if (!user) return null;
      return { access: { ...accessOf(user), userId: Number(user.id) }, stage: session.stage, mustSetUpTwoFactor: await mustSetUp(user) };
    },

    async keyAccess(key) {
      const access = await users.keyAccess(key);
      if (access.userId === undefined) return { access, mustSetUpTwoFactor: false };
      const user = await users.findById(access.userId);
      return { access, mustSetUpTwoFactor: user !== null && (await mustSetUp(user)) };
    },

    async invite(accountId, input, linkBase, invitedBy = null) {
      const { email, role, websites } = validate(invitationSchema, input);
      const account = await db.selectFrom("accounts").select("name").where("id", "=", accountId).executeTakeFirst();
      if (!account) throw new NotFoundError();
      const token = await tokens.invite(accountId, { email, role, websites, invitedBy });
      const link = `${linkBase}/invite?token=${token}`;
      if (!mailer) return { email, sent: false, link };
      await send(invitationMail(email, link, account.name));
      return { email, sent: true };
    },

    async requestReset(email, linkBase) {
      const user = await users.findByEmail(email);
      if (!user) return;
      const token = await tokens.reset(Number(user.id));
      await send(resetMail(user.email, `${linkBase}/reset-password?token=${token}`));
    },

    async completeReset(token, password) {
      const email = await tokens.completeReset(token, password);
      for (const user of await users.listByEmail(email)) await signOutEverywhere(Number(user.id));
    },

    requiresTwoFactor,

    async setRequireTwoFactor(accountId, required) {
      await db
        .updateTable("accounts")
        .set({ require_two_factor: required ? 1 : 0 })
        .where("id", "=", accountId)
        .execute();
    },

    async resetTwoFactor(email, accountId) {
      const found = accountId === undefined ? await users.listByEmail(email) : [await users.findByEmail(email, accountId)];
      const rows = found.filter((row): row is UserRow => row !== null);
      if (rows.length === 0) throw ValidationError.field("email", "No user has this address.");
      for (const user of rows) {
        await twoFactor.disable(Number(user.id));
        await signOutEverywhere(Number(user.id));
      }
    },

    signOutEverywhere,
  };
}
