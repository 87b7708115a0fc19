import { randomUUID } from "node:crypto";
import { Migrator, sql, type ColumnDefinitionBuilder, type Kysely, type Migration, type RawBuilder } from "kysely";
import { VITALS } from "../model/hit-input.js";
import type { SqlDialect } from "./dialect.js";
import type { Database } from "./schema.js";
import { backfillDimensions, backfillVisits } from "./segments-backfill.js";
import { kyselyRunner } from "./kysely-runner.js";
import { shiftTrailing } from "./trailing-rollup.js";
import { TRAILING_PERIOD } from "../model/trailing-period.js";
import { runAsync } from "../shared/steps.js";
import {
  emailPerAccountMigration,
  invitationInviterMigration,
  serverSecretMigration,
  signInLimitsMigration,
  teamMigration,
} from "./team-migration.js";

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
        .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
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
        .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
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
      await db.schema.createIndex("websites_account_idx").on("websites").columns(["account_id", "id"]).execute();
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
  "0003_segments": (dialect) => ({
    async up(db) {
      await db.schema
        .createTable("dimensions")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("kind", "integer", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("search", "text", (c) => c.notNull())
        .addColumn("created_day", "integer", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("dimensions_value_idx").on("dimensions").columns(["website_id", "kind", "value"]).unique().execute();
      let visits = db.schema.createTable("visits").addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c));
      for (const column of ["website_id", "visitor"]) visits = visits.addColumn(column, "integer", (c) => c.notNull());
      visits = visits.addColumn("start", dialect.counterType, (c) => c.notNull());
      for (const column of VISIT_COLUMNS) visits = visits.addColumn(column, "integer", (c) => c.notNull().defaultTo(0));
      await visits.execute();
      await db.schema.createIndex("visits_range_idx").on("visits").columns(["website_id", "start"]).execute();
      await db.schema
        .createTable("hits")
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("visit_id", "integer", (c) => c.notNull())
        .addColumn("time", dialect.counterType, (c) => c.notNull())
        .addColumn("page", "integer", (c) => c.notNull())
        .addColumn("event", "integer", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("hits_range_idx").on("hits").columns(["website_id", "time"]).execute();
      await db.schema.createIndex("hits_visit_idx").on("hits").column("visit_id").execute();
      await db.schema
        .createTable("event_props")
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("visit_id", "integer", (c) => c.notNull())
        .addColumn("time", dialect.counterType, (c) => c.notNull())
        .addColumn("event", "integer", (c) => c.notNull())
        .addColumn("name", "integer", (c) => c.notNull())
        .addColumn("value", "integer", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("event_props_range_idx").on("event_props").columns(["website_id", "event", "name", "time"]).execute();
      await db.schema.createIndex("event_props_visit_idx").on("event_props").column("visit_id").execute();
      await db.schema
        .alterTable("websites")
        .addColumn("retention_days", "integer", (c) => c.notNull().defaultTo(730))
        .execute();
      const visitorColumns: [string, "integer" | "bigint" | "text"][] = [
        ["visitor", "integer"],
        ["visit", "integer"],
        ["visit_start", dialect.counterType],
        ["visit_day", "text"],
        ["visit_pageviews", "integer"],
        ["visit_events", "integer"],
        ["visit_exit", "text"],
      ];
      for (const [column, type] of visitorColumns) {
        await db.schema
          .alterTable("visitors")
          .addColumn(column, type, (c) => c.notNull().defaultTo(type === "text" ? "" : 0))
          .execute();
      }
      await backfillDimensions(db);
      await backfillVisits(db);
    },
  }),
  "0004_email_reports": (dialect) => ({
    async up(db) {
      await db.schema.alterTable("accounts").addColumn("email", "text").execute();
      await db.schema
        .alterTable("accounts")
        .addColumn("report_period", "text", (c) => c.notNull().defaultTo("week"))
        .execute();
      // One row per account and report period: the unique pair is what makes a report go out once.
      await db.schema
        .createTable("report_runs")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
        .addColumn("period", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("next_attempt_at", dialect.counterType, (c) => c.notNull())
        .addColumn("last_error", "text")
        .addColumn("sent_at", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("report_runs_account_period", ["account_id", "period"])
        .execute();
      await db.schema.createIndex("report_runs_due_idx").on("report_runs").columns(["status", "next_attempt_at"]).execute();
      await db.schema
        .createTable("report_secrets")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .execute();
    },
  }),
  "0005_imports": (dialect) => ({
    async up(db) {
      let imports = db.schema
        .createTable("imports")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("website_id", "integer", (c) => c.notNull().references("websites.id").onDelete("cascade"));
      for (const column of ["source", "file_name", "content_hash", "first_day", "last_day"])
        imports = imports.addColumn(column, "text", (c) => c.notNull());
      for (const column of ["rows_read", "rows_imported", "rows_skipped"])
        imports = imports.addColumn(column, dialect.counterType, (c) => c.notNull());
      await imports
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("message", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("finished_at", "text")
        .execute();
      await db.schema.createIndex("imports_website_idx").on("imports").columns(["website_id", "content_hash"]).execute();
    },
  }),
  // A property belongs to its event by (visit, time, event, seq): without `seq`, two events of one
  // name in the same second of a visit (a double click) each had the other's properties too.
  "0006_hit_sequence": () => ({
    async up(db) {
      for (const table of ["hits", "event_props"] as const) {
        await db.schema
          .alterTable(table)
          .addColumn("seq", "integer", (c) => c.notNull().defaultTo(0))
          .execute();
      }
    },
  }),
  // Dekads and quarters between days, months and years (stats/periods.ts), summed from the
  // rows already there: dekads from the days (the series kept at day level only get none),
  // quarters from the months.
  "0008_rollup_periods": () => ({
    async up(db) {
      const dayOfMonth = sql`substr(period, 9, 2)`;
      const dekad = sql`substr(period, 1, 7) || '/' || case when ${dayOfMonth} <= '10' then '1' when ${dayOfMonth} <= '20' then '2' else '3' end`;
      const month = sql`substr(period, 6, 2)`;
      const quarter = sql`substr(period, 1, 4) || '-Q' || case when ${month} <= '03' then '1' when ${month} <= '06' then '2' when ${month} <= '09' then '3' else '4' end`;
      const dayOnly = sql`name in ('pageviews', 'visitors', 'visits', 'bounces', 'visit_duration', 'visit_pageviews')`;
      await sumRollupsInto(db, dekad, sql`length(period) = 10 and not ${dayOnly}`);
      await sumRollupsInto(db, quarter, sql`length(period) = 7`);
    },
  }),
  // Day blocks: the store's visits, hits and properties of a past day, column by column,
  // read by filtered statistics instead of the rows (stats/day-blocks.ts).
  "0009_day_blocks": (dialect) => ({
    async up(db) {
      await db.schema
        .createTable("day_versions")
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("day", "integer", (c) => c.notNull())
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("last_hit", dialect.counterType, (c) => c.notNull())
        .addPrimaryKeyConstraint("day_versions_pk", ["website_id", "day"])
        .execute();
      await db.schema
        .createTable("day_blocks")
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("day", "integer", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("data", dialect.blobType, (c) => c.notNull())
        .addPrimaryKeyConstraint("day_blocks_pk", ["website_id", "day", "name"])
        .execute();
      await sql`insert into day_versions (website_id, day, version, last_hit)
        select v.website_id, v.start / 86400, 1, max(h.time) from visits v join hits h on h.visit_id = v.id
        group by v.website_id, v.start / 86400`.execute(db);
    },
  }),
  "0010_write_safety": (dialect) => ({
    async up(db) {
      // `database_id` names this database in the files of hits kept at shutdown (they go back to it alone).
      await db.schema
        .createTable("tally_meta")
        .addColumn("key", "text", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .execute();
      await db.insertInto("tally_meta").values({ key: "database_id", value: randomUUID() }).execute();
      // The ids of the batches of hits written lately: a batch retried after a lost answer is written once.
      await db.schema
        .createTable("written_batches")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("written_at", dialect.counterType, (c) => c.notNull())
        .execute();
    },
  }),
  "0011_users": teamMigration,
  "0012_block_run_starts": () => ({
    async up(db) {
      // The day blocks' flags where a visitor-day's run of visits starts: named for what they are.
      await sql`update day_blocks set name = 'v.run_start' where name = 'v.visitor'`.execute(db);
    },
  }),
  "0013_page_names": () => ({
    async up(db) {
      // How pages are named: `path` (the URL's path and kept query) or `route` (the app's route template).
      await db.schema
        .alterTable("websites")
        .addColumn("page_names", "text", (c) => c.notNull().defaultTo("path"))
        .execute();
    },
  }),
  "0014_outbox": (dialect) => ({
    async up(db) {
      await db.schema
        .createTable("tally_outbox")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("hit", "text", (c) => c.notNull())
        .execute();
    },
  }),
  "0015_website_aliases": () => ({
    async up(db) {
      // Other names hits may name the website by (Umami's website id), one a line.
      await db.schema
        .alterTable("websites")
        .addColumn("aliases", "text", (c) => c.notNull().defaultTo(""))
        .execute();
    },
  }),
  "0016_channels_and_sources": () => ({ up: (db) => addVisitColumns(db, ["source", "channel"]) }),
  "0017_versions": () => ({ up: (db) => addVisitColumns(db, ["browser_version", "os_version"]) }),
  "0020_funnels": (dialect) => ({
    async up(db) {
      await db.schema
        .createTable("funnels")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("website_id", "integer", (c) => c.notNull().references("websites.id").onDelete("cascade"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("steps", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("funnels_website_idx").on("funnels").columns(["website_id", "id"]).execute();
    },
  }),
  "0021_rollup_watermarks": () => ({
    async up(db) {
      // From here on a flush writes day rows only; wider periods are summed when they close.
      await db.schema
        .createTable("rollup_watermarks")
        .addColumn("website_id", "integer", (c) => c.primaryKey())
        .addColumn("closed_through", "text", (c) => c.notNull())
        .execute();
      // Until now every period's rows were kept whole: those that ended two days ago (any
      // time zone's yesterday or before) are closed; later ones are summed again when they close.
      const closed = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
      await sql`insert into rollup_watermarks (website_id, closed_through) select id, ${closed} from websites`.execute(db);
    },
  }),
  "0022_regions": () => ({ up: (db) => addVisitColumns(db, ["region"]) }),
  "0024_page_engagement": (dialect) => ({
    async up(db) {
      // One row per engagement signal (docs/statistics.md, "Engagement"): the page it was
      // sent from, its engaged time, and what it measured (null: not sent).
      let table = db.schema
        .createTable("page_engagement")
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("visit_id", "integer", (c) => c.notNull())
        .addColumn("time", dialect.counterType, (c) => c.notNull())
        .addColumn("page", "integer", (c) => c.notNull())
        .addColumn("engaged_ms", "integer", (c) => c.notNull())
        .addColumn("scroll_depth", "integer");
      for (const vital of VITALS) table = table.addColumn(vital, vital === "cls" ? "double precision" : "integer");
      await table.execute();
      await db.schema.createIndex("page_engagement_range_idx").on("page_engagement").columns(["website_id", "time"]).execute();
      await db.schema.createIndex("page_engagement_visit_idx").on("page_engagement").column("visit_id").execute();
    },
  }),
  // Day blocks keep a visit's hits in the order they came (`seq`, as funnels and journeys read
  // them) instead of by time: the blocks built before go, and buildDayBlocks writes them again.
  "0025_block_hit_order": () => ({
    async up(db) {
      await sql`delete from day_blocks`.execute(db);
    },
  }),
  // The hostname statistic: the visit's host (a visit is on one host), the visitor's visit
  // under way remembers it, and a website may count its subdomains.
  "0026_hostname": () => ({
    async up(db) {
      await addVisitColumns(db, ["hostname"]);
      await db.schema
        .alterTable("visitors")
        .addColumn("visit_hostname", "text", (c) => c.notNull().defaultTo(""))
        .execute();
      await db.schema
        .alterTable("websites")
        .addColumn("include_subdomains", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  }),
  // Alerts (docs/alerts.md): each website's rules, and one row per firing and way it is sent
  // (the unique triple is what makes a firing go out once), which is also the delivery log.
  "0060_alerts": (dialect) => ({
    async up(db) {
      await db.schema
        .createTable("alert_rules")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("website_id", "integer", (c) => c.notNull().references("websites.id").onDelete("cascade"))
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("threshold", "double precision", (c) => c.notNull())
        .addColumn("goal", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("email", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("webhook_url", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("webhook_format", "text", (c) => c.notNull().defaultTo("json"))
        .addColumn("webhook_secret", "text", (c) => c.notNull())
        .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("state", "text", (c) => c.notNull().defaultTo("ok"))
        .addColumn("firings", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("evaluated_at", dialect.counterType, (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("alert_rules_website_idx").on("alert_rules").columns(["website_id", "id"]).execute();
      await db.schema
        .createTable("alert_deliveries")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("rule_id", "integer", (c) => c.notNull().references("alert_rules.id").onDelete("cascade"))
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("firing", "integer", (c) => c.notNull())
        .addColumn("channel", "text", (c) => c.notNull())
        .addColumn("target", "text", (c) => c.notNull())
        .addColumn("uid", "text", (c) => c.notNull())
        .addColumn("payload", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("next_attempt_at", dialect.counterType, (c) => c.notNull())
        .addColumn("last_error", "text")
        .addColumn("sent_at", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("alert_deliveries_firing", ["rule_id", "firing", "channel"])
        .execute();
      await db.schema.createIndex("alert_deliveries_due_idx").on("alert_deliveries").columns(["status", "next_attempt_at"]).execute();
      await db.schema.createIndex("alert_deliveries_website_idx").on("alert_deliveries").columns(["website_id", "id"]).execute();
    },
  }),
  // Revenue of events (docs/revenue.md): beside the event's hit, as its properties are; amounts
  // in ten-thousandths of their currency, so that sums are exact.
  "0061_event_revenue": (dialect) => ({
    async up(db) {
      await db.schema
        .createTable("event_revenue")
        .addColumn("website_id", "integer", (c) => c.notNull())
        .addColumn("visit_id", "integer", (c) => c.notNull())
        .addColumn("time", dialect.counterType, (c) => c.notNull())
        .addColumn("event", "integer", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("amount", dialect.counterType, (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("event_revenue_range_idx").on("event_revenue").columns(["website_id", "event", "time"]).execute();
      await db.schema.createIndex("event_revenue_visit_idx").on("event_revenue").column("visit_id").execute();
    },
  }),
  // A conversion's row names the batch it is sent in when ClickHouse holds the events (no
  // transaction spans both): a batch whose answer was lost is sent again under its id, and kept once.
  "0070_outbox_batch": () => ({
    async up(db) {
      await db.schema.alterTable("tally_outbox").addColumn("batch", "text").execute();
    },
  }),
  // What a team shares per website beside its funnels: goals (page patterns and events),
  // notes on dates of the charts, and saved filter sets (personal to a user, or shared).
  "0050_goals_annotations_saved_segments": (dialect) => ({
    async up(db) {
      const website = (c: ColumnDefinitionBuilder) => c.notNull().references("websites.id").onDelete("cascade");
      await db.schema
        .createTable("goals")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("website_id", "integer", website)
        .addColumn("goal_type", "text", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("display_name", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("goals_website_idx").on("goals").columns(["website_id", "goal_type", "value"]).unique().execute();
      await db.schema
        .createTable("annotations")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("website_id", "integer", website)
        .addColumn("date", "text", (c) => c.notNull())
        .addColumn("text", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("annotations_website_idx").on("annotations").columns(["website_id", "date"]).execute();
      await db.schema
        .createTable("saved_segments")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("website_id", "integer", website)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("filters", "text", (c) => c.notNull())
        // null: shared with everyone who sees the website; else the user it is personal to.
        .addColumn("user_id", "integer", (c) => c.references("users.id").onDelete("cascade"))
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("saved_segments_website_idx").on("saved_segments").columns(["website_id", "id"]).execute();
    },
  }),
  // Several share links per website, each named and revoked on its own (the link's token opens the share page).
  "0051_share_links": (dialect) => ({
    async up(db) {
      await db.schema
        .createTable("share_links")
        .addColumn("id", dialect.idColumnType, (c) => dialect.idColumn(c))
        .addColumn("website_id", "integer", (c) => c.notNull().references("websites.id").onDelete("cascade"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("token", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("share_links_token_idx").on("share_links").columns(["token"]).unique().execute();
      await db.schema.createIndex("share_links_website_idx").on("share_links").columns(["website_id", "id"]).execute();
    },
  }),
  "0030_sign_in_limits": signInLimitsMigration,
  "0031_server_secret": serverSecretMigration,
  "0032_invitation_inviter": invitationInviterMigration,
  "0033_email_per_account": emailPerAccountMigration,
  // Who created each value (a client, the app's server, an import): each has a daily budget of its own.
  "0034_value_sources": () => ({
    async up(db) {
      await db.schema
        .alterTable("dimensions")
        .addColumn("created_by", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  }),
  // SQLite: visitor rows in the order their visitor-days began (a rowid table, the hash a
  // unique index) instead of in hash order. A flush rewrites the rows of the visitors active
  // now, which began lately and so share the last pages; in hash order each sat on a page of
  // its own, and a flush wrote most of the table again to the WAL (docs/performance.md).
  "0040_visitors_in_arrival_order": (dialect) => ({
    async up(db) {
      if (dialect.name !== "sqlite") return;
      await sql`create table visitors_by_arrival (
        hash text not null, website_id integer not null, day text not null, last_seen integer not null,
        visit_referrer text not null, visit_campaign text not null, seen text not null,
        visitor integer default 0 not null, visit integer default 0 not null, visit_start integer default 0 not null,
        visit_day text default '' not null, visit_pageviews integer default 0 not null,
        visit_events integer default 0 not null, visit_exit text default '' not null, visit_hostname text default '' not null
      )`.execute(db);
      const columns = sql.raw(VISITOR_COLUMNS.join(", "));
      await sql`insert into visitors_by_arrival (${columns}) select ${columns} from visitors order by day, visit_start`.execute(db);
      await sql`drop table visitors`.execute(db);
      await sql`alter table visitors_by_arrival rename to visitors`.execute(db);
      await db.schema.createIndex("visitors_hash_idx").on("visitors").column("hash").unique().execute();
      await db.schema.createIndex("visitors_day_idx").on("visitors").columns(["day", "website_id"]).execute();
    },
  }),
  // The values of a kind a website created on a day, by source class (the daily budget of new
  // values): counted once per day and kind at a flush, through every value of the kind before.
  "0041_new_value_counts": () => ({
    async up(db) {
      await db.schema
        .createIndex("dimensions_created_idx")
        .on("dimensions")
        .columns(["website_id", "kind", "created_day", "created_by"])
        .execute();
    },
  }),
  // SQLite: visitor rows are found by the rowids the writer keeps (ingest/visitor-rows.ts), not
  // through an index on their hash: each new visitor's random hash changed a page of that index
  // of its own, and every flush wrote most of it to the WAL again (docs/performance.md).
  "0042_visitors_without_hash_index": (dialect) => ({
    async up(db) {
      if (dialect.name === "sqlite") await sql`drop index if exists visitors_hash_idx`.execute(db);
    },
  }),
  // The trailing rollup rows (model/trailing-period.ts) of every website with a watermark, from
  // its day rows; indexed by count, so a page of the last year is its top rows (stats/trailing-page.ts).
  "0045_trailing_rollups": (dialect) => ({
    async up(db) {
      await sql`create index rollups_trailing_idx on rollups (website_id, name, count) where period = ${sql.lit(TRAILING_PERIOD)}`.execute(
        db,
      );
      const runner = kyselyRunner(db as Kysely<Database>, dialect);
      const watermarks = await sql<{
        website_id: number;
        closed_through: string;
      }>`select website_id, closed_through from rollup_watermarks`.execute(db);
      for (const row of watermarks.rows) {
        if (row.closed_through !== "") await runAsync(shiftTrailing(runner, Number(row.website_id), "", row.closed_through));
      }
    },
  }),
  // PostgreSQL: the trailing rows' counts in a column of their own (null on every other row), and
  // the index that pages a year by count on it: a day row's count, changed at every flush, is
  // then in no index, so its update stays on its page (a heap-only tuple) instead of adding
  // an entry to the primary key each time. Room left on each page for those updates, in the
  // visitor rows too (rewritten at each flush of their visitor). docs/performance.md.
  "0048_postgres_heap_only_updates": (dialect) => ({
    async up(db) {
      if (dialect.name !== "postgres") return;
      await sql`alter table rollups add column trailing_count bigint
        generated always as (case when period = ${sql.lit(TRAILING_PERIOD)} then count end) stored`.execute(db);
      await sql`create index rollups_trailing_count_idx on rollups (website_id, name, trailing_count)
        where period = ${sql.lit(TRAILING_PERIOD)}`.execute(db);
      await sql`drop index rollups_trailing_idx`.execute(db);
      await sql`alter table rollups set (fillfactor = ${sql.lit(ROLLUPS_FILLFACTOR)})`.execute(db);
      await sql`alter table visitors set (fillfactor = ${sql.lit(VISITORS_FILLFACTOR)})`.execute(db);
    },
  }),
};

/** Percent of a page PostgreSQL fills with new rollup rows: the rest takes their updates. */
const ROLLUPS_FILLFACTOR = 80;
/** The same for visitor rows, each rewritten at every flush of its visitor, its `seen` growing. */
const VISITORS_FILLFACTOR = 60;

/** The columns of `visitors`. */
const VISITOR_COLUMNS = [
  "hash",
  "website_id",
  "day",
  "last_seen",
  "visit_referrer",
  "visit_campaign",
  "seen",
  "visitor",
  "visit",
  "visit_start",
  "visit_day",
  "visit_pageviews",
  "visit_events",
  "visit_exit",
  "visit_hostname",
] as const;

/**
 * A new dimension's `visits` columns (id 0, no value, in the rows written before). The day
 * blocks go: they lack the columns, and buildDayBlocks writes them again with them.
 */
async function addVisitColumns(db: Kysely<unknown>, columns: readonly string[]): Promise<void> {
  for (const column of columns)
    await db.schema
      .alterTable("visits")
      .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  await sql`delete from day_blocks`.execute(db);
}

/** Counts and dimension ids of a visit row, all integers defaulting to 0. */
const VISIT_COLUMNS = [
  "duration",
  "pageviews",
  "events",
  "engaged",
  "entry_page",
  "exit_page",
  "referrer",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_term",
  "browser",
  "os",
  "device",
  "country",
  "continent",
  "city",
  "language",
  "resolution",
] as const;

/** Adds rollup rows of a wider period (`period`, an expression of the source row's) summed from the rows `where` selects. */
async function sumRollupsInto(db: Kysely<unknown>, period: RawBuilder<unknown>, where: RawBuilder<unknown>): Promise<void> {
  await sql`insert into rollups (website_id, name, period, value, count)
    select website_id, name, ${period}, value, sum(count) from rollups where ${where}
    group by website_id, name, ${period}, value having sum(count) <> 0`.execute(db);
}

export async function migrateToLatest(db: Kysely<Database>, dialect: SqlDialect): Promise<void> {
  const migrations = Object.fromEntries(Object.entries(migrationFactories).map(([name, factory]) => [name, factory(dialect)]));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: "tally_migrations",
    migrationLockTableName: "tally_migrations_lock",
    // Migrations are numbered in ranges written side by side: one of an earlier number may
    // come after a later one has run (each depends only on what came before its range).
    allowUnorderedMigrations: true,
  });
  await dialect.withMigrationLock(db, async () => {
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;
  });
}
