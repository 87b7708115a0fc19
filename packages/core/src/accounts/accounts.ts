import type { Kysely, Selectable } from "kysely";
import type { AccountsTable, Database } from "../storage/schema.js";
import type { Account } from "./account-schema.js";
import { NotFoundError, UnauthorizedError, ValidationError } from "../shared/errors.js";
import { parseAccountInput, isReportPeriod, type AccountInput } from "./account-input.js";
import { VISIBLE_PREFIX_LENGTH, digestsEqual, generateApiKey, hashApiKey } from "./api-key.js";

export type { Account } from "./account-schema.js";

export interface CreatedKey {
  accountId: number;
  /** The key itself: shown to the caller once, never stored. */
  key: string;
  prefix: string;
}

export interface Accounts {
  /** Creates an account and its first API key. */
  create(options?: { name?: string }): Promise<CreatedKey>;
  /** Adds a key to an existing account. */
  createKey(accountId: number, options?: { name?: string }): Promise<CreatedKey>;
  /** Makes sure an account authenticated by exactly this key exists. */
  ensureKey(key: string, options?: { name?: string }): Promise<Account>;
  /** Revokes the keys whose visible prefix is `prefix`, or the one key `prefix` spells out in full. Returns how many. */
  revokeKey(prefix: string): Promise<number>;
  /** The account behind a key, or UnauthorizedError. */
  authenticate(key: string): Promise<Account>;
  get(accountId: number): Promise<Account>;
  /** Changes the report settings (`email`, `report_period`); ValidationError for a bad address. */
  update(accountId: number, input: AccountInput): Promise<Account>;
  list(): Promise<Account[]>;
  count(): Promise<number>;
}

/** Rolls back an ensureKey whose key another process inserted first. */
const KEY_TAKEN = new Error("api key inserted concurrently");

function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: Number(row.id),
    name: row.name,
    created_at: row.created_at,
    email: row.email,
    report_period: isReportPeriod(row.report_period) ? row.report_period : "week",
  };
}

export function createAccounts(db: Kysely<Database>): Accounts {
  const now = () => new Date().toISOString();

  async function insertAccount(executor: Kysely<Database>, name: string): Promise<number> {
    const row = await executor.insertInto("accounts").values({ name, created_at: now() }).returning("id").executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** False when the key is already stored (its hash is unique). */
  async function insertKey(executor: Kysely<Database>, accountId: number, key: string, name: string): Promise<boolean> {
    const inserted = await executor
      .insertInto("api_keys")
      .values({
        account_id: accountId,
        name,
        prefix: key.slice(0, VISIBLE_PREFIX_LENGTH),
        hash: hashApiKey(key),
        created_at: now(),
        revoked_at: null,
      })
      .onConflict((oc) => oc.column("hash").doNothing())
      .returning("id")
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async function activeKeyOwner(key: string): Promise<number | null> {
    const row = await db
      .selectFrom("api_keys")
      .select("account_id")
      .where("hash", "=", hashApiKey(key))
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return row ? Number(row.account_id) : null;
  }

  const created = (accountId: number, key: string): CreatedKey => ({ accountId, key, prefix: key.slice(0, VISIBLE_PREFIX_LENGTH) });

  const accounts: Accounts = {
    async create(options = {}) {
      const name = options.name ?? "default";
      const key = generateApiKey();
      const accountId = await db.transaction().execute(async (trx) => {
        const id = await insertAccount(trx, name);
        await insertKey(trx, id, key, name);
        return id;
      });
      return created(accountId, key);
    },

    async createKey(accountId, options = {}) {
      await accounts.get(accountId);
      const key = generateApiKey();
      await insertKey(db, accountId, key, options.name ?? "default");
      return created(accountId, key);
    },

    async ensureKey(key, options = {}) {
      if (key.length < 16) throw ValidationError.field("key", "The key must be at least 16 characters.");
      const owner = await activeKeyOwner(key);
      if (owner !== null) return accounts.get(owner);
      // Several processes may start at once with the same key (PostgreSQL): the unique
      // hash lets exactly one insert it; the others roll their account back and use its.
      const name = options.name ?? "default";
      await db
        .transaction()
        .execute(async (trx) => {
          if (!(await insertKey(trx, await insertAccount(trx, name), key, name))) throw KEY_TAKEN;
        })
        .catch((error: unknown) => {
          if (error !== KEY_TAKEN) throw error;
        });
      const winner = await activeKeyOwner(key);
      if (winner === null) throw ValidationError.field("key", "This key has been revoked.");
      return accounts.get(winner);
    },

    async revokeKey(prefix) {
      if (prefix.length < VISIBLE_PREFIX_LENGTH) {
        throw ValidationError.field("prefix", `Give at least the first ${VISIBLE_PREFIX_LENGTH} characters of the key.`);
      }
      // Only the visible prefix is stored in clear: anything longer must be the whole key.
      let query = db
        .selectFrom("api_keys")
        .select(["id", "prefix"])
        .where("prefix", "=", prefix.slice(0, VISIBLE_PREFIX_LENGTH))
        .where("revoked_at", "is", null);
      if (prefix.length > VISIBLE_PREFIX_LENGTH) query = query.where("hash", "=", hashApiKey(prefix));
      const candidates = await query.execute();
      const ids = candidates.map((row) => row.id);
      if (ids.length === 0) return 0;
      const result = await db.updateTable("api_keys").set({ revoked_at: now() }).where("id", "in", ids).executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async authenticate(key) {
      const digest = hashApiKey(key);
      // Looked up by prefix, then compared in constant time: the lookup itself
      // reveals nothing about the secret part.
      const rows = await db
        .selectFrom("api_keys")
        .select(["account_id", "hash"])
        .where("prefix", "=", key.slice(0, VISIBLE_PREFIX_LENGTH))
        .where("revoked_at", "is", null)
        .execute();
      const match = rows.find((row) => digestsEqual(row.hash, digest));
      if (!match) throw new UnauthorizedError();
      return accounts.get(Number(match.account_id));
    },

    async get(accountId) {
      const row = await db.selectFrom("accounts").selectAll().where("id", "=", accountId).executeTakeFirst();
      if (!row) throw new NotFoundError();
      return toAccount(row);
    },

    async update(accountId, input) {
      const changes = parseAccountInput(input);
      await accounts.get(accountId);
      if (Object.values(changes).some((value) => value !== undefined)) {
        await db.updateTable("accounts").set(changes).where("id", "=", accountId).execute();
      }
      return accounts.get(accountId);
    },

    async list() {
      const rows = await db.selectFrom("accounts").selectAll().orderBy("id").execute();
      return rows.map(toAccount);
    },

    async count() {
      const row = await db
        .selectFrom("accounts")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
  return accounts;
}
