import { Migrator, type Kysely, type Migration } from "kysely";
import type { SqlDialect } from "../dialect/dialect.js";
import type { Database } from "./schema.js";

type MigrationFactory = (dialect: SqlDialect) => Migration;

/** Ordered by name; never edit one that has shipped, add a new one. */
const migrationFactories: Record<string, MigrationFactory> = {
  "0001_accounts_and_websites": (dialect) => ({
    async up(db) {
      await db.schema
        .createTable("accounts")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("api_keys")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("account_id", "integer", (c) =>
          c.notNull().references("accounts.id").onDelete("cascade"),
        )
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("prefix", "text", (c) => c.notNull())
        .addColumn("hash", "text", (c) => c.notNull().unique())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("revoked_at", "text")
        .execute();
      await db.schema.createIndex("api_keys_prefix_idx").on("api_keys").column("prefix").execute();
      await db.schema
        .createTable("websites")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("account_id", "integer", (c) =>
          c.notNull().references("accounts.id").onDelete("cascade"),
        )
        .addColumn("domain", "text", (c) => c.notNull().unique())
        .addColumn("privacy", "integer", (c) => c.notNull())
        .addColumn("password_hash", "text")
        .addColumn("email", "integer", (c) => c.notNull())
        .addColumn("exclude_bots", "integer", (c) => c.notNull())
        .addColumn("exclude_params", "text", (c) => c.notNull())
        .addColumn("exclude_ips", "text", (c) => c.notNull())
        .addColumn("timezone", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("websites_account_idx")
        .on("websites")
        .columns(["account_id", "id"])
        .execute();
    },
  }),
  "0002_engine": (dialect) => ({
    async up(db) {
      await db.schema
        .createTable("salts")
        .addColumn("day", "text", (c) => c.primaryKey())
        .addColumn("salt", "text", (c) => c.notNull())
        .execute();
      // One row per visitor and day: the state a visit needs, keyed by the salted hash.
      await db.schema
        .createTable("visitors")
        .addColumn("hash", "text", (c) => c.primaryKey())
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("last_seen", dialect.counterType, (c) => c.notNull())
        .addColumn("visit_referrer", "text", (c) => c.notNull())
        .addColumn("visit_campaign", "text", (c) => c.notNull())
        .addColumn("seen", "text", (c) => c.notNull())
        .modifyEnd(dialect.clusteredTableSuffix)
        .execute();
      await db.schema.createIndex("visitors_day_idx").on("visitors").columns(["day", "website_id"]).execute();
      // Counters per period: a day "2026-11-21", a month "2026-11" or a year "2026".
      await db.schema
        .createTable("rollups")
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("period", "text", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("count", dialect.counterType, (c) => c.notNull())
        .addPrimaryKeyConstraint("rollups_pk", ["website_id", "name", "period", "value"])
        .modifyEnd(dialect.clusteredTableSuffix)
        .execute();
    },
  }),
};

export async function migrateToLatest(db: Kysely<Database>, dialect: SqlDialect): Promise<void> {
  const migrations = Object.fromEntries(
    Object.entries(migrationFactories).map(([name, factory]) => [name, factory(dialect)]),
  );
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: "tally_migrations",
    migrationLockTableName: "tally_migrations_lock",
  });
  await dialect.withMigrationLock(db, async () => {
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;
  });
}
