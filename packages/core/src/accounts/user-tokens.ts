import type { Kysely } from "kysely";
import { NotFoundError, ValidationError } from "../shared/errors.js";
import { formatWebsiteList, isRole, parseWebsiteList, type Role } from "./access.js";
import type { Passwords } from "../shared/passwords.js";
import { newSecretToken, tokenId } from "./secret-token.js";
import type { Database } from "../storage/schema.js";
import type { UserTokensTable } from "../storage/team-tables.js";
import { parsePassword } from "./user-input.js";
import type { Selectable } from "kysely";

export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
export const RESET_LIFETIME_MS = 60 * 60_000;

export const INVALID_LINK = "This link is invalid or has expired.";
const TAKEN = "This address already belongs to a user of this account.";

export interface PendingInvitation {
  email: string;
  accountId: number;
  role: Role;
  websites: number[] | null;
}

/** A pending invitation as an owner sees it in a list: never its token. */
export interface InvitationListing {
  email: string;
  role: Role;
  websites: number[] | null;
  /** The e-mail of the owner who sent it; null when an account-wide key, the CLI or the host's sign-in did. */
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

export interface InvitationInput {
  email: string;
  role: Role;
  websites?: readonly number[] | null | undefined;
  /** The user sending it: it ends when they are removed or stop being an owner. */
  invitedBy?: number | null | undefined;
}

export interface UserTokens {
  /** A new invitation (an older one to the same address is replaced); returns its token. 422 when the account has a user with this address. */
  invite(accountId: number, input: InvitationInput): Promise<string>;
  /** The account's invitations not used yet and not expired, oldest first. */
  invitations(accountId: number): Promise<InvitationListing[]>;
  /** Ends the account's pending invitation of this address; NotFoundError when there is none. */
  revokeInvitation(accountId: number, email: string): Promise<void>;
  /** What an unused, unexpired invitation offers; null otherwise. */
  invitation(token: string): Promise<PendingInvitation | null>;
  /** Uses an invitation once: creates the user with this password and returns their id. */
  accept(token: string, password: unknown): Promise<number>;
  /** A reset token for this user (older ones are voided). */
  reset(userId: number): Promise<string>;
  /** Whether a reset token can still be used (to show the form). */
  resetUsable(token: string): Promise<boolean>;
  /** Uses a reset token once: sets the password of its address, in every account that has it, and returns the address. */
  completeReset(token: string, password: unknown): Promise<string>;
}

export function createUserTokens(db: Kysely<Database>, passwords: Passwords): UserTokens {
  const now = () => new Date().toISOString();

  async function usable(token: string, kind: string): Promise<Selectable<UserTokensTable> | null> {
    if (token.length < 32 || token.length > 64) return null;
    const row = await db
      .selectFrom("user_tokens")
      .selectAll()
      .where("id", "=", tokenId(token))
      .where("kind", "=", kind)
      .where("used_at", "is", null)
      .executeTakeFirst();
    return row && Number(row.expires_at) > Date.now() ? row : null;
  }

  /** Marks a token used: only one of two concurrent uses gets the row (the `used_at is null` guard), the other is refused. */
  async function consume(token: string, kind: string): Promise<Selectable<UserTokensTable>> {
    const row = await usable(token, kind);
    if (!row) throw ValidationError.field("token", INVALID_LINK);
    const result = await db
      .updateTable("user_tokens")
      .set({ used_at: now() })
      .where("id", "=", row.id)
      .where("used_at", "is", null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw ValidationError.field("token", INVALID_LINK);
    return row;
  }

  async function issue(values: Omit<UserTokensTable, "id" | "created_at" | "expires_at" | "used_at">, lifetime: number): Promise<string> {
    const token = newSecretToken();
    await db
      .insertInto("user_tokens")
      .values({ ...values, id: tokenId(token), created_at: now(), expires_at: Date.now() + lifetime, used_at: null })
      .execute();
    return token;
  }

  return {
    async invite(accountId, { email, role, websites, invitedBy }) {
      // This account's users only: whether another account has the address is none of its business.
      const taken = await db
        .selectFrom("users")
        .select("id")
        .where("email", "=", email)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      if (taken) throw ValidationError.field("email", TAKEN);
      await db
        .deleteFrom("user_tokens")
        .where("kind", "=", "invite")
        .where("email", "=", email)
        .where("account_id", "=", accountId)
        .execute();
      return issue(
        {
          kind: "invite",
          account_id: accountId,
          user_id: null,
          email,
          role,
          websites: formatWebsiteList(websites),
          invited_by: invitedBy ?? null,
        },
        INVITATION_LIFETIME_MS,
      );
    },

    async invitation(token) {
      const row = await usable(token, "invite");
      if (!row) return null;
      return {
        email: row.email,
        accountId: Number(row.account_id),
        role: isRole(row.role) ? row.role : "viewer",
        websites: parseWebsiteList(row.websites),
      };
    },

    async invitations(accountId) {
      const rows = await db
        .selectFrom("user_tokens")
        .leftJoin("users", "users.id", "user_tokens.invited_by")
        .select([
          "user_tokens.email",
          "user_tokens.role",
          "user_tokens.websites",
          "user_tokens.created_at",
          "user_tokens.expires_at",
          "users.email as inviter",
        ])
        .where("user_tokens.kind", "=", "invite")
        .where("user_tokens.account_id", "=", accountId)
        .where("user_tokens.used_at", "is", null)
        .where("user_tokens.expires_at", ">", Date.now())
        .orderBy("user_tokens.created_at")
        .execute();
      return rows.map((row) => ({
        email: row.email,
        role: isRole(row.role) ? row.role : "viewer",
        websites: parseWebsiteList(row.websites),
        invited_by: row.inviter ?? null,
        created_at: row.created_at,
        expires_at: new Date(Number(row.expires_at)).toISOString(),
      }));
    },

    async revokeInvitation(accountId, email) {
      const result = await db
        .deleteFrom("user_tokens")
        .where("kind", "=", "invite")
        .where("account_id", "=", accountId)
        .where("email", "=", email.trim().toLowerCase())
        .where("used_at", "is", null)
        .where("expires_at", ">", Date.now())
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw new NotFoundError();
    },

    async accept(token, password) {
      // Hashed before the token is spent: a check refused (the server busy) leaves the invitation usable.
      const hash = await passwords.hash(parsePassword(password));
      const row = await consume(token, "invite");
      const inserted = await db
        .insertInto("users")
        .values({
          account_id: Number(row.account_id),
          email: row.email,
          password_hash: hash,
          role: row.role,
          websites: row.websites,
          totp_secret: null,
          totp_pending: null,
          created_at: now(),
        })
        .returning("id")
        .executeTakeFirst()
        .catch(() => undefined);
      // The address was given to someone of this account meanwhile (another invitation, the CLI).
      if (!inserted) throw ValidationError.field("token", TAKEN);
      return Number(inserted.id);
    },

    async reset(userId) {
      const user = await db.selectFrom("users").select(["account_id", "email", "role"]).where("id", "=", userId).executeTakeFirstOrThrow();
      await db.deleteFrom("user_tokens").where("kind", "=", "reset").where("user_id", "=", userId).execute();
      return issue(
        {
          kind: "reset",
          account_id: Number(user.account_id),
          user_id: userId,
          email: user.email,
          role: user.role,
          websites: null,
          invited_by: null,
        },
        RESET_LIFETIME_MS,
      );
    },

    resetUsable: async (token) => (await usable(token, "reset")) !== null,

    async completeReset(token, password) {
      const hash = await passwords.hash(parsePassword(password));
      const row = await consume(token, "reset");
      // The mailbox speaks for the address in every account it belongs to.
      await db.updateTable("users").set({ password_hash: hash }).where("email", "=", row.email).execute();
      return row.email;
    },
  };
}
