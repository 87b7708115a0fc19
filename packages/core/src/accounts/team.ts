import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import { NotFoundError, ValidationError } from "../shared/errors.js";
import type { Mailer } from "../shared/mailer.js";
import type { Access } from "./access.js";
import { createSessions, type SessionStage, type Sessions } from "./sessions.js";
import { invitationMail, resetMail } from "./team-mail.js";
import { createTwoFactor, type TwoFactor } from "./two-factor.js";
import { invitationSchema } from "./user-input.js";
import { createUserTokens, type UserTokens } from "./user-tokens.js";
import { accessOf, createUsers, type Users } from "./users.js";
import { validate } from "../shared/validation.js";

/** What a session cookie stands for. */
export interface SessionAccess {
  access: Access & { userId: number };
  stage: SessionStage;
  /** The account asks for two-factor sign-in and this user has none yet: only its set-up is allowed. */
  mustSetUpTwoFactor: boolean;
}

export interface InvitationSent {
  email: string;
  /** Whether it went out by e-mail; without mail configured, `link` is for the inviter to pass on. */
  sent: boolean;
  link?: string;
}

export interface Team {
  readonly users: Users;
  readonly sessions: Sessions;
  readonly tokens: UserTokens;
  readonly twoFactor: TwoFactor;
  /** Password sign-in: a session at the `second_factor` stage when the user has two-factor sign-in on. */
  signIn(email: string, password: string): Promise<{ token: string; stage: SessionStage }>;
  /** Completes a `second_factor` session with a code: a new token replaces it. Null when the code is refused. */
  completeSignIn(token: string, code: string): Promise<string | null>;
  sessionAccess(token: string): Promise<SessionAccess | null>;
  /** Invites someone by e-mail (or returns the link when no mail is set up). `linkBase` is the mount's public URL. */
  invite(accountId: number, input: unknown, linkBase: string): Promise<InvitationSent>;
  /** Mails a reset link when the address has a user; says nothing either way. */
  requestReset(email: string, linkBase: string): Promise<void>;
  /** Sets the password of a reset link and signs that user out everywhere. */
  completeReset(token: string, password: unknown): Promise<void>;
  requiresTwoFactor(accountId: number): Promise<boolean>;
  setRequireTwoFactor(accountId: number, required: boolean): Promise<void>;
  /** `tally users reset-2fa`: turns it off and signs the user out everywhere. */
  resetTwoFactor(email: string): Promise<void>;
}

/** The async methods of the Team, without its services. */
export type TeamFlows = Omit<Team, "users" | "sessions" | "tokens" | "twoFactor">;

/**
 * The Team a Tally hands out before its store is open: each service deferred on its own
 * (`defer` makes an object's methods wait for the store), the flows through one deferred
 * object set as the prototype, so `team.signIn` and `team.users.add` both wait.
 */
export function deferTeam(defer: <T extends object>(pick: (team: Team) => T) => T): Team {
  const services = {
    users: defer((t) => t.users),
    sessions: defer((t) => t.sessions),
    tokens: defer((t) => t.tokens),
    twoFactor: defer((t) => t.twoFactor),
  };
  return Object.assign(Object.create(defer((t): TeamFlows => t)) as TeamFlows, services);
}

export function createTeam(db: Kysely<Database>, mailer: Mailer | null): Team {
  const users = createUsers(db);
  const sessions = createSessions(db);
  const tokens = createUserTokens(db);
  const twoFactor = createTwoFactor(db);

  const send = async (message: Parameters<Mailer["send"]>[0]) => {
    if (!mailer) throw new Error("no mail transport configured");
    await mailer.send({ ...message, ...(mailer.from === undefined ? {} : { from: mailer.from }) });
  };

  async function requiresTwoFactor(accountId: number): Promise<boolean> {
    const row = await db.selectFrom("accounts").select("require_two_factor").where("id", "=", accountId).executeTakeFirst();
    return Number(row?.require_two_factor ?? 0) === 1;
  }

  return {
    users,
    sessions,
    tokens,
    twoFactor,

    async signIn(email, password) {
      const user = await users.checkPassword(email, password);
      const stage: SessionStage = user.totp_secret === null ? "full" : "second_factor";
      return { token: await sessions.start(Number(user.id), stage), stage };
    },

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
      const access = { ...accessOf(user), userId: Number(user.id) };
      const mustSetUpTwoFactor = user.totp_secret === null && (await requiresTwoFactor(access.accountId));
      return { access, stage: session.stage, mustSetUpTwoFactor };
    },

    async invite(accountId, input, linkBase) {
      const { email, role, websites } = validate(invitationSchema, input);
      const account = await db.selectFrom("accounts").select("name").where("id", "=", accountId).executeTakeFirst();
      if (!account) throw new NotFoundError();
      const token = await tokens.invite(accountId, { email, role, websites });
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
      const userId = await tokens.completeReset(token, password);
      await sessions.endAll(userId);
    },

    requiresTwoFactor,

    async setRequireTwoFactor(accountId, required) {
      await db
        .updateTable("accounts")
        .set({ require_two_factor: required ? 1 : 0 })
        .where("id", "=", accountId)
        .execute();
    },

    async resetTwoFactor(email) {
      const user = await users.findByEmail(email);
      if (!user) throw ValidationError.field("email", "No user has this address.");
      await twoFactor.disable(Number(user.id));
      await sessions.endAll(Number(user.id));
    },
  };
}
