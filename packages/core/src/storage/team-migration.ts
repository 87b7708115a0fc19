import type { Kysely, Migration } from "kysely";
import type { SqlDialect } from "./dialect.js";

/**
 * Users, sessions, invitation/reset tokens and recovery codes. Existing API keys keep
 * working unchanged: `user_id` null means the key speaks for the account's owner, and
 * `scope` defaults to `write`.
 */
export const teamMigration = (dialect: SqlDialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("users")
      .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
      .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
      .addColumn("email", "text", (c) => c.notNull().unique())
      .addColumn("password_hash", "text")
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("websites", "text")
      .addColumn("totp_secret", "text")
      .addColumn("totp_pending", "text")
      .addColumn("totp_last_step", dialect.counterType, (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("users_account_idx").on("users").columns(["account_id", "id"]).execute();
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
