import type { Kysely } from "kysely";
import { ValidationError } from "../shared/errors.js";
import { formatWebsiteList, isRole, parseWebsiteList, type Role } from "./access.js";
import { hashPassword } from "./password-hash.js";
import { newSecretToken, tokenId } from "./secret-token.js";
import type { Database } from "../storage/schema.js";
import type { UserTokensTable } from "../storage/team-tables.js";
import { parsePassword } from "./user-input.js";
import type { Selectable } from "kysely";

export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
export const RESET_LIFETIME_MS = 60 * 60_000;

export const INVALID_LINK = "This link is invalid or has expired.";

export interface PendingInvitation {
  email: string;
  accountId: number;
  role: Role;
  websites: number[] | null;
}

export interface UserTokens {
  /** A new invitation (an older one to the same address is replaced); returns its token. 422 when the address already has a user. */
  invite(accountId: number, input: { email: string; role: Role; websites?: readonly number[] | null | undefined }): Promise<string>;
  /** What an unused, unexpired invitation offers; null otherwise. */
  invitation(token: string): Promise<PendingInvitation | null>;
  /** Uses an invitation once: creates the user with this password and returns their id. */
  accept(token: string, password: unknown): Promise<number>;
  /** A reset token for this user (older ones are voided). */
  reset(userId: number): Promise<string>;
  /** Whether a reset token can still be used (to show the form). */
  resetUsable(token: string): Promise<boolean>;
  /** Uses a reset token once: sets the password and returns the user's id. */
  completeReset(token: string, password: unknown): Promise<number>;
}

export function createUserTokens(db: Kysely<Database>): UserTokens {
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
    async invite(accountId, { email, role, websites }) {
      const taken = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst();
      if (taken) throw ValidationError.field("email", "This address already belongs to a user.");
      await db
        .deleteFrom("user_tokens")
        .where("kind", "=", "invite")
        .where("email", "=", email)
        .where("account_id", "=", accountId)
        .execute();
      return issue(
        { kind: "invite", account_id: accountId, user_id: null, email, role, websites: formatWebsiteList(websites) },
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

    async accept(token, password) {
      const checked = parsePassword(password);
      const row = await consume(token, "invite");
      const inserted = await db
        .insertInto("users")
        .values({
          account_id: Number(row.account_id),
          email: row.email,
          password_hash: await hashPassword(checked),
          role: row.role,
          websites: row.websites,
          totp_secret: null,
          totp_pending: null,
          created_at: now(),
        })
        .returning("id")
        .executeTakeFirst()
        .catch(() => undefined);
      // The address was given to someone else meanwhile (another invitation, the CLI).
      if (!inserted) throw ValidationError.field("token", "This address already belongs to a user.");
      return Number(inserted.id);
    },

    async reset(userId) {
      const user = await db.selectFrom("users").select(["account_id", "email", "role"]).where("id", "=", userId).executeTakeFirstOrThrow();
      await db.deleteFrom("user_tokens").where("kind", "=", "reset").where("user_id", "=", userId).execute();
      return issue(
        { kind: "reset", account_id: Number(user.account_id), user_id: userId, email: user.email, role: user.role, websites: null },
        RESET_LIFETIME_MS,
      );
    },

    resetUsable: async (token) => (await usable(token, "reset")) !== null,

    async completeReset(token, password) {
      const hash = await hashPassword(parsePassword(password));
      const row = await consume(token, "reset");
      const userId = Number(row.user_id);
      await db.updateTable("users").set({ password_hash: hash }).where("id", "=", userId).execute();
      return userId;
    },
  };
}
