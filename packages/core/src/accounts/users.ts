import type { Selectable } from "kysely";
import { NotFoundError, UnauthorizedError, ValidationError } from "../shared/errors.js";
import { formatWebsiteList, isRole, parseWebsiteList, type Access, type KeyScope, type Role } from "./access.js";
import { VISIBLE_PREFIX_LENGTH, digestsEqual, generateApiKey, hashApiKey } from "./api-key.js";
import type { Passwords } from "../shared/passwords.js";
import type { Database } from "../storage/schema.js";
import type { UsersTable } from "../storage/team-tables.js";
import { parsePassword, parseUserCreate, parseUserUpdate, type KeyCreate } from "./user-input.js";
import type { Kysely } from "kysely";

/** A person as the API shows them: never a hash or a secret. */
export interface User {
  id: number;
  account_id: number;
  email: string;
  role: Role;
  /** Website ids the user is limited to; null for all. */
  websites: number[] | null;
  /** Whether a password is set (someone invited through single sign-on may have none). */
  password: boolean;
  two_factor: boolean;
  created_at: string;
}

export type UserRow = Selectable<UsersTable>;

/** An API key as its owner sees it in a list: never the key itself. */
export interface KeyListing {
  id: number;
  name: string;
  prefix: string;
  scope: KeyScope;
  created_at: string;
}

export interface UserKey {
  key: string;
  prefix: string;
  id: number;
}

export const NO_MATCH = "These credentials do not match our records.";

export function toUser(row: UserRow): User {
  return {
    id: Number(row.id),
    account_id: Number(row.account_id),
    email: row.email,
    role: isRole(row.role) ? row.role : "viewer",
    websites: parseWebsiteList(row.websites),
    password: row.password_hash !== null,
    two_factor: row.totp_secret !== null,
    created_at: row.created_at,
  };
}

export const accessOf = (row: UserRow): Access => {
  const user = toUser(row);
  return { accountId: user.account_id, role: user.role, websites: user.websites, userId: user.id };
};

export interface Users {
  /** Adds a person to an account (a password is optional: an invitation or single sign-on may set it later). 422 when the account has a user with this e-mail. */
  add(accountId: number, input: unknown): Promise<User>;
  list(accountId: number): Promise<User[]>;
  get(accountId: number, userId: number): Promise<User>;
  /** The row behind an e-mail in this account, or (no account given) in the oldest account that has one; null when none. */
  findByEmail(email: string, accountId?: number): Promise<UserRow | null>;
  /** Every account's user with this e-mail (one person may belong to several accounts), oldest first. */
  listByEmail(email: string): Promise<UserRow[]>;
  findById(userId: number): Promise<UserRow | null>;
  /** Changes role and websites; an account always keeps one owner. An owner demoted takes back the invitations they sent. */
  update(accountId: number, userId: number, input: unknown): Promise<User>;
  /** Removes a person, their sessions and keys, and the invitations they sent (an account always keeps one owner). */
  remove(accountId: number, userId: number): Promise<void>;
  setPassword(userId: number, password: unknown): Promise<void>;
  /**
   * The users whose e-mail and password these are (several when the person belongs to several
   * accounts with this password), or UnauthorizedError: the same message and (near enough) the
   * same time whether or not the e-mail exists.
   */
  checkPassword(email: string, password: string): Promise<UserRow[]>;
  createKey(userId: number, input: KeyCreate): Promise<UserKey>;
  listKeys(userId: number): Promise<KeyListing[]>;
  /** Revokes one of the user's own keys; NotFoundError for anyone else's. */
  revokeKey(userId: number, keyId: number): Promise<void>;
  /** Revokes every key of the user's (signing out everywhere); answers how many. */
  revokeKeys(userId: number): Promise<number>;
  /** Who an API key speaks for; UnauthorizedError when unknown or revoked. Account-wide keys (no user) act as owner. */
  keyAccess(key: string): Promise<Access>;
}

export function createUsers(db: Kysely<Database>, passwords: Passwords): Users {
  const now = () => new Date().toISOString();

  async function row(accountId: number, userId: number): Promise<UserRow> {
    const found = await db.selectFrom("users").selectAll().where("id", "=", userId).where("account_id", "=", accountId).executeTakeFirst();
    if (!found) throw new NotFoundError();
    return found;
  }

  /** Refuses a change that would leave the account without an owner. */
  async function keepAnOwner(accountId: number, userId: number): Promise<void> {
    const owners = await db.selectFrom("users").select("id").where("account_id", "=", accountId).where("role", "=", "owner").execute();
    if (owners.length === 1 && Number(owners[0]?.id) === userId)
      throw ValidationError.field("role", "An account needs at least one owner.");
  }

  const users: Users = {
    async add(accountId, input) {
      const { email, password, role, websites } = parseUserCreate(input);
      if (await users.findByEmail(email, accountId)) throw ValidationError.field("email", "The email has already been taken.");
      const inserted = await db
        .insertInto("users")
        .values({
          account_id: accountId,
          email,
          password_hash: password === undefined ? null : await passwords.hash(password),
          role,
          websites: formatWebsiteList(websites),
          totp_secret: null,
          totp_pending: null,
          created_at: now(),
        })
        .returningAll()
        .executeTakeFirstOrThrow()
        .catch(async (error: unknown) => {
          // Two adds of one address at once: the unique index decides.
          if (await users.findByEmail(email, accountId)) throw ValidationError.field("email", "The email has already been taken.");
          throw error;
        });
      return toUser(inserted);
    },

    async list(accountId) {
      const rows = await db.selectFrom("users").selectAll().where("account_id", "=", accountId).orderBy("id").execute();
      return rows.map(toUser);
    },

    get: async (accountId, userId) => toUser(await row(accountId, userId)),

    async findByEmail(email, accountId) {
      let query = db.selectFrom("users").selectAll().where("email", "=", email.trim().toLowerCase());
      if (accountId !== undefined) query = query.where("account_id", "=", accountId);
      return (await query.orderBy("id").executeTakeFirst()) ?? null;
    },

    listByEmail: (email) => db.selectFrom("users").selectAll().where("email", "=", email.trim().toLowerCase()).orderBy("id").execute(),

    async findById(userId) {
      return (await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst()) ?? null;
    },

    async update(accountId, userId, input) {
      const changes = parseUserUpdate(input);
      const current = await row(accountId, userId);
      if (changes.role !== undefined && changes.role !== "owner" && current.role === "owner") await keepAnOwner(accountId, userId);
      const set = {
        ...(changes.role === undefined ? {} : { role: changes.role }),
        ...(changes.websites === undefined ? {} : { websites: formatWebsiteList(changes.websites) }),
      };
      if (Object.keys(set).length > 0)
        await db.transaction().execute(async (trx) => {
          await trx.updateTable("users").set(set).where("id", "=", userId).execute();
          // Only owners invite: an owner no longer one takes back the invitations they sent.
          if (current.role === "owner" && changes.role !== undefined && changes.role !== "owner")
            await trx.deleteFrom("user_tokens").where("invited_by", "=", userId).execute();
        });
      return users.get(accountId, userId);
    },

    async remove(accountId, userId) {
      const current = await row(accountId, userId);
      if (current.role === "owner") await keepAnOwner(accountId, userId);
      // Sessions, keys, tokens, recovery codes and personal segments go with the row (ON DELETE CASCADE); deleted
      // explicitly too, for SQLite connections opened without foreign keys.
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom("sessions").where("user_id", "=", userId).execute();
        await trx.deleteFrom("api_keys").where("user_id", "=", userId).execute();
        await trx
          .deleteFrom("user_tokens")
          .where((eb) => eb.or([eb("user_id", "=", userId), eb("invited_by", "=", userId)]))
          .execute();
        await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
        await trx.deleteFrom("saved_segments").where("user_id", "=", userId).execute();
        await trx.deleteFrom("users").where("id", "=", userId).execute();
      });
    },

    async setPassword(userId, password) {
      const hash = await passwords.hash(parsePassword(password));
      await db.updateTable("users").set({ password_hash: hash }).where("id", "=", userId).execute();
    },

    async checkPassword(email, password) {
      const found = await users.listByEmail(email);
      // verify checks a decoy hash when there is no user or no password: same cost either way.
      const matched: UserRow[] = [];
      for (const row of found.length === 0 ? [null] : found)
        if ((await passwords.verify(password, row?.password_hash ?? null)) && row) matched.push(row);
      if (matched.length === 0) throw new UnauthorizedError(NO_MATCH);
      return matched;
    },

    async createKey(userId, { name, scope }) {
      const user = await users.findById(userId);
      if (!user) throw new NotFoundError();
      const key = generateApiKey();
      const inserted = await db
        .insertInto("api_keys")
        .values({
          account_id: Number(user.account_id),
          user_id: userId,
          scope,
          name,
          prefix: key.slice(0, VISIBLE_PREFIX_LENGTH),
          hash: hashApiKey(key),
          created_at: now(),
          revoked_at: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      return { key, prefix: key.slice(0, VISIBLE_PREFIX_LENGTH), id: Number(inserted.id) };
    },

    async listKeys(userId) {
      const rows = await db
        .selectFrom("api_keys")
        .select(["id", "name", "prefix", "scope", "created_at"])
        .where("user_id", "=", userId)
        .where("revoked_at", "is", null)
        .orderBy("id")
        .execute();
      return rows.map((key) => ({
        id: Number(key.id),
        name: key.name,
        prefix: key.prefix,
        scope: key.scope === "read" ? "read" : "write",
        created_at: key.created_at,
      }));
    },

    async revokeKey(userId, keyId) {
      const result = await db
        .updateTable("api_keys")
        .set({ revoked_at: now() })
        .where("id", "=", keyId)
        .where("user_id", "=", userId)
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw new NotFoundError();
    },

    async revokeKeys(userId) {
      const result = await db
        .updateTable("api_keys")
        .set({ revoked_at: now() })
        .where("user_id", "=", userId)
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async keyAccess(key) {
      const digest = hashApiKey(key);
      const rows = await db
        .selectFrom("api_keys")
        .select(["account_id", "hash", "user_id", "scope"])
        .where("prefix", "=", key.slice(0, VISIBLE_PREFIX_LENGTH))
        .where("revoked_at", "is", null)
        .execute();
      const match = rows.find((candidate) => digestsEqual(candidate.hash, digest));
      if (!match) throw new UnauthorizedError();
      const scope: KeyScope = match.scope === "read" ? "read" : "write";
      if (match.user_id === null) return { accountId: Number(match.account_id), role: "owner", scope };
      const user = await users.findById(Number(match.user_id));
      if (!user) throw new UnauthorizedError();
      return { ...accessOf(user), scope };
    },
  };
  return users;
}
