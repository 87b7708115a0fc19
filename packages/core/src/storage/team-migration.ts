import { sql, type Kysely, type Migration } from "kysely";
import type { SqlDialect } from "./dialect.js";

/** The users table, as first made (`emailUnique`: an address once across the server) and as made again with it unique per account. */
async function createUsersTable(db: Kysely<unknown>, dialect: SqlDialect, name: string, emailUnique: boolean): Promise<void> {
  await db.schema
    .createTable(name)
    .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
    .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("email", "text", (c) => (emailUnique ? c.notNull().unique() : c.notNull()))
    .addColumn("password_hash", "text")
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("websites", "text")
    .addColumn("totp_secret", "text")
    .addColumn("totp_pending", "text")
    .addColumn("totp_last_step", dialect.counterType, (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}

const indexUsersByAccount = (db: Kysely<unknown>) =>
  db.schema.createIndex("users_account_idx").on("users").columns(["account_id", "id"]).execute();

/**
 * Users, sessions, invitation/reset tokens and recovery codes. Existing API keys keep
 * working unchanged: `user_id` null means the key speaks for the account's owner, and
 * `scope` defaults to `write`.
 */
export const teamMigration = (dialect: SqlDialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await createUsersTable(db, dialect, "users", true);
    await indexUsersByAccount(db);
    await db.schema
      .createTable("sessions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("stage", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("expires_at", dialect.counterType, (c) => c.notNull())
      .execute();
    await db.schema.createIndex("sessions_user_idx").on("sessions").column("user_id").execute();
    await db.schema
      .createTable("user_tokens")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
      .addColumn("user_id", "integer", (c) => c.references("users.id").onDelete("cascade"))
      .addColumn("email", "text", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("websites", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("expires_at", dialect.counterType, (c) => c.notNull())
      .addColumn("used_at", "text")
      .execute();
    await db.schema
      .createTable("recovery_codes")
      .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
      .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("hash", "text", (c) => c.notNull())
      .addColumn("used_at", "text")
      .execute();
    await db.schema
      .alterTable("api_keys")
      .addColumn("user_id", "integer", (c) => c.references("users.id").onDelete("cascade"))
      .execute();
    await db.schema
      .alterTable("api_keys")
      .addColumn("scope", "text", (c) => c.notNull().defaultTo("write"))
      .execute();
    await db.schema
      .alterTable("accounts")
      .addColumn("require_two_factor", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  },
});

/**
 * The sign-in limits' windows, shared by every process on the database (an attempt is
 * reserved in one statement before it is checked), and the places people signed in from.
 * Both are keyed by digests made with the server secret: no client address is stored.
 */
export const signInLimitsMigration = (dialect: SqlDialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("attempts")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("count", "integer", (c) => c.notNull())
      .addColumn("window_ends", dialect.counterType, (c) => c.notNull())
      .addColumn("next_at", dialect.counterType, (c) => c.notNull())
      .execute();
    await db.schema.createIndex("attempts_window_idx").on("attempts").column("window_ends").execute();
    await db.schema
      .createTable("familiar_places")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("expires_at", dialect.counterType, (c) => c.notNull())
      .execute();
  },
});

/** The server secret made at first start when none is configured (what two-factor secrets are encrypted with). */
export const serverSecretMigration = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("server_secrets")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .execute();
  },
});

/** Who sent an invitation: their removal or demotion ends it. */
export const invitationInviterMigration = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("user_tokens")
      .addColumn("invited_by", "integer", (c) => c.references("users.id").onDelete("cascade"))
      .execute();
  },
});

const USER_COLUMNS = "id, account_id, email, password_hash, role, websites, totp_secret, totp_pending, totp_last_step, created_at";

/**
 * An address is unique within an account, no longer across the server: one person may be
 * a user of several accounts. SQLite cannot drop a column's UNIQUE, so its table is made
 * again (foreign keys off meanwhile: dropping the old one must not cascade to sessions and keys).
 * A session may wait for its person to choose among their accounts (`choices`).
 */
export const emailPerAccountMigration = (dialect: SqlDialect): Migration => ({
  async up(db: Kysely<unknown>) {
    if (dialect.name === "postgres") {
      await sql`alter table users drop constraint if exists users_email_key`.execute(db);
    } else {
      const enforced = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
      await sql`pragma foreign_keys = off`.execute(db);
      try {
        await createUsersTable(db, dialect, "users_rebuilt", false);
        await sql.raw(`insert into users_rebuilt (${USER_COLUMNS}) select ${USER_COLUMNS} from users`).execute(db);
        await sql`drop table users`.execute(db);
        await sql`alter table users_rebuilt rename to users`.execute(db);
        await indexUsersByAccount(db);
      } finally {
        if (Number(enforced.rows[0]?.foreign_keys ?? 0) === 1) await sql`pragma foreign_keys = on`.execute(db);
      }
    }
    await db.schema.createIndex("users_account_email_idx").on("users").columns(["account_id", "email"]).unique().execute();
    await db.schema.createIndex("users_email_idx").on("users").column("email").execute();
    await db.schema.alterTable("sessions").addColumn("choices", "text").execute();
  },
});
