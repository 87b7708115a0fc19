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
