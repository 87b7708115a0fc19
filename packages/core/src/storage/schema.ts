import type { Generated } from "kysely";
import type { VisitColumnName } from "../model/dimensions.js";
import type {
  AttemptsTable,
  FamiliarPlacesTable,
  RecoveryCodesTable,
  ServerSecretsTable,
  SessionsTable,
  UsersTable,
  UserTokensTable,
} from "./team-tables.js";

/** Row types of every table Tally owns, as kysely sees them. */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  websites: WebsitesTable;
  salts: SaltsTable;
  visitors: VisitorsTable;
  rollups: RollupsTable;
  rollup_watermarks: RollupWatermarksTable;
  dimensions: DimensionsTable;
  visits: VisitsTable;
  hits: HitsTable;
  event_props: EventPropsTable;
  event_revenue: EventRevenueTable;
  page_engagement: PageEngagementTable;
  report_runs: ReportRunsTable;
  report_secrets: ReportSecretsTable;
  imports: ImportsTable;
  day_versions: DayVersionsTable;
  day_blocks: DayBlocksTable;
  tally_meta: TallyMetaTable;
  written_batches: WrittenBatchesTable;
  users: UsersTable;
  sessions: SessionsTable;
  user_tokens: UserTokensTable;
  recovery_codes: RecoveryCodesTable;
  tally_outbox: OutboxTable;
  funnels: FunnelsTable;
  alert_rules: AlertRulesTable;
  alert_deliveries: AlertDeliveriesTable;
  goals: GoalsTable;
  annotations: AnnotationsTable;
  saved_segments: SavedSegmentsTable;
  share_links: ShareLinksTable;
  attempts: AttemptsTable;
  familiar_places: FamiliarPlacesTable;
  server_secrets: ServerSecretsTable;
}

/**
 * Conversions an app wrote in its own transaction (`tally.record(name, { trx })`): each an
 * enriched hit as JSON (no raw address), moved into the statistics once committed.
 */
export interface OutboxTable {
  id: Generated<number>;
  hit: string;
  /** The batch it was sent in to ClickHouse; null until sent (and always, without ClickHouse). */
  batch: string | null;
}

/** Facts about the database itself: `database_id` (a UUID made by the migration), `started_at`, `probed_at`. */
export interface TallyMetaTable {
  key: string;
  value: string;
}

/** A batch of hits written (engine/write-queue.ts): its id and when (epoch ms); kept a month. */
export interface WrittenBatchesTable {
  id: string;
  written_at: number;
}

/** Distinct values of one website, one table for every kind (pages, referrers, browsers…): rows elsewhere hold their ids. */
export interface DimensionsTable {
  id: Generated<number>;
  website_id: number;
  /** DIMENSION_KINDS in model/dimensions.ts. */
  kind: number;
  value: string;
  /** `value` lower-cased (Unicode-aware, by JavaScript): case-insensitive search without a per-row function. */
  search: string;
  /** Local day number (days since 1970-01-01) it was first seen; 0 for values older than this table. */
  created_day: number;
  /** Who created it: 0 a client, 1 the app's server, 2 an import (ingest/dictionary.ts, VALUE_SOURCES). */
  created_by: Generated<number>;
}

/**
 * One row per visit. Times are local wall-clock seconds in the website's time zone
 * (epoch seconds as if the zone were UTC), so days and hours are arithmetic. Every
 * other column but the counts is a DimensionsTable id, 0 for none. No IP, user agent
 * or visitor hash: `visitor` is the id of the first visit of the same visitor-day.
 */
export type VisitsTable = {
  id: Generated<number>;
  website_id: number;
  /** The id of the visitor-day's first visit; 0 when this visit is that one. */
  visitor: number;
  start: number;
  /** Seconds from the first hit to the last activity. */
  duration: number;
  pageviews: number;
  events: number;
  /** Seconds the pages were visible and focused, from engagement signals. */
  engaged: number;
} & {
  /** A dimension value's id per visit column of the registry (model/dimensions.ts). */
  [column in VisitColumnName]: number;
};

/** One row per pageview or event. */
export interface HitsTable {
  website_id: number;
  visit_id: number;
  /** Local wall-clock seconds, as VisitsTable.start. */
  time: number;
  page: number;
  /** Event name id; 0 for a pageview. */
  event: number;
  /** The hit's place in its visit (0, 1, …): tells apart two events of one name in the same second. */
  seq: number;
}

/** One row per property of an event hit. */
export interface EventPropsTable {
  website_id: number;
  visit_id: number;
  time: number;
  event: number;
  /** The `seq` of its event's hit. */
  seq: number;
  name: number;
  value: number;
}

/** One row per event hit that carried revenue (docs/revenue.md). */
export interface EventRevenueTable {
  website_id: number;
  visit_id: number;
  time: number;
  event: number;
  /** The `seq` of its event's hit. */
  seq: number;
  /** Ten-thousandths of the currency's unit (model/revenue.ts). */
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
}

/**
 * One row per engagement signal that joined a visit: the page it was sent from, the engaged
 * milliseconds it reported, and the scroll depth and web vitals it carried (null: not sent).
 */
export interface PageEngagementTable {
  website_id: number;
  visit_id: number;
  /** Local wall-clock seconds, as VisitsTable.start. */
  time: number;
  page: number;
  engaged_ms: number;
  scroll_depth: number | null;
  lcp: number | null;
  inp: number | null;
  /** Cumulative layout shift, a score (not milliseconds). */
  cls: number | null;
  fcp: number | null;
  ttfb: number | null;
}

export interface SaltsTable {
  /** The local day the salt hashes visitors of, `Y-m-d`. */
  day: string;
  salt: string;
}

export interface VisitorsTable {
  /** Salted hash of (day, website, IP, user agent): no IP or user agent is stored. */
  hash: string;
  website_id: number;
  day: string;
  /** Epoch milliseconds of the visitor's last hit; 0 for a row just claimed. */
  last_seen: number;
  visit_referrer: string;
  visit_campaign: string;
  /** The host of the visit's pages ("" in rows from before migration 0026). */
  visit_hostname: string;
  /** Per-visitor values already counted today (resolutions, languages, goals), one per line, at most 32. */
  seen: string;
  /** Id of this visitor-day's first visit (its number in the visits table); 0 before it has one. */
  visitor: number;
  /** The visit under way: its id, start (epoch ms), local start day, counts and exit page. */
  visit: number;
  visit_start: number;
  visit_day: string;
  visit_pageviews: number;
  visit_events: number;
  visit_exit: string;
}

export interface RollupsTable {
  website_id: number;
  name: string;
  /** `Y-m-d`, `Y-m` or `Y` in the website's time zone. */
  period: string;
  value: string;
  count: number;
}

/** A website's rollup watermark: the wider periods ending on or before this day hold their sums (model/periods.ts). */
export interface RollupWatermarksTable {
  website_id: number;
  /** `Y-m-d`. */
  closed_through: string;
}

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  created_at: string;
  /** Where the e-mail reports of its websites go; null for none. */
  email: Generated<string | null>;
  /** `week` or `month`. */
  report_period: Generated<string>;
  /** 1: every user must have two-factor sign-in (only its set-up is allowed until then). */
  require_two_factor: Generated<number>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** First characters of the key, shown in listings and used to revoke it. */
  prefix: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
  created_at: string;
  revoked_at: string | null;
  /** The user the key belongs to; null for an account-wide key (acts as owner). */
  user_id?: number | null;
  /** `read` or `write`. */
  scope: Generated<string>;
}

export interface WebsitesTable {
  id: Generated<number>;
  account_id: number;
  domain: string;
  privacy: number;
  /** scrypt hash, or null when no password is set. */
  password_hash: string | null;
  email: number;
  exclude_bots: number;
  exclude_params: string;
  exclude_ips: string;
  timezone: string;
  /** Visits and hits older than this many days are deleted; rollups are kept. */
  retention_days: number;
  /** `path` or `route` (websites/website-input.ts, PAGE_NAMES). */
  page_names: string;
  /** Other names hits may name the website by (Umami's website id), one a line. */
  aliases: string;
  /** 1: hits on any subdomain of `domain` count for it too (the `hostname` statistic tells them apart). */
  include_subdomains: number;
  created_at: string;
  updated_at: string;
}

/** A funnel of a website (stats/paths.ts): its steps in order, one a line (`page:/pricing`, `event:Signup`). */
export interface FunnelsTable {
  id: Generated<number>;
  website_id: number;
  name: string;
  steps: string;
  created_at: string;
}

/** A goal of a website: visitors who viewed a page matching `value` (`page`, `*` for any characters) or fired the event `value` (`event`). */
export interface GoalsTable {
  id: Generated<number>;
  website_id: number;
  goal_type: "page" | "event";
  value: string;
  display_name: string;
  created_at: string;
}

/** A note on one of a website's days (`Y-m-d`, its time zone), shown on the charts. */
export interface AnnotationsTable {
  id: Generated<number>;
  website_id: number;
  date: string;
  text: string;
  created_at: string;
}

/** A link to a website's share page (`?link=<token>`): it opens the statistics whatever the website's privacy. */
export interface ShareLinksTable {
  id: Generated<number>;
  website_id: number;
  name: string;
  token: string;
  created_at: string;
}

/** Filters saved under a name: `filters` is a JSON list of the API's filter texts; `user_id` null when shared. */
export interface SavedSegmentsTable {
  id: Generated<number>;
  website_id: number;
  name: string;
  filters: string;
  user_id: number | null;
  created_at: string;
  updated_at: string;
}

/** The columns of a table of runs (storage/claimed-runs.ts): things done once each, by one process at a time. */
export interface RunColumns {
  /** `pending`, `sending` (claimed until next_attempt_at), `sent`, `skipped` or `failed`. */
  status: string;
  attempts: number;
  /** Epoch milliseconds: when a pending run may be tried, or when a claim lapses. */
  next_attempt_at: number;
  last_error: string | null;
  sent_at: string | null;
  created_at: string;
}

/** One e-mail report of one account and period: claimed by one process at a time, sent once. */
export interface ReportRunsTable extends RunColumns {
  id: Generated<number>;
  account_id: number;
  /** `week:2026-03-16` (its Monday) or `month:2026-03`. */
  period: string;
}

/** Random keys created once and shared by every process on the database (the unsubscribe links' HMAC key). */
export interface ReportSecretsTable {
  name: string;
  value: string;
}

/** One row per `tally import` run: what was imported where, so the same file or the same days are never counted twice. */
export interface ImportsTable {
  id: Generated<number>;
  website_id: number;
  /** `plausible`, `goatcounter`, `umami` or `tally`. */
  source: string;
  file_name: string;
  /** SHA-256 of the file's bytes (of every file, in name order, for a directory), hex. */
  content_hash: string;
  /** Local days of the first and last row imported; "" when none was. */
  first_day: string;
  last_day: string;
  rows_read: number;
  rows_imported: number;
  rows_skipped: number;
  /** `running`, then `complete` or `failed` (a run that died stays `running`). */
  status: string;
  message: string;
  created_at: string;
  finished_at: string | null;
}

/**
 * One row per website and local day on which visits started: bumped by every write that
 * adds or changes such a visit, its hits or properties. A day block is current while its
 * `version` equals this one.
 */
export interface DayVersionsTable {
  website_id: number;
  /** Local day number (local seconds / 86400) the visits started on. */
  day: number;
  version: number;
  /** Latest local second of any hit of those visits: which days a range of hits reaches into. */
  last_hit: number;
}

/** One column of a day's visits, hits or properties, encoded (stats/day-block-format.ts). */
export interface DayBlocksTable {
  website_id: number;
  day: number;
  version: number;
  name: string;
  data: Uint8Array;
}

/** A website's alert rule (docs/alerts.md): what is watched, where it is sent, and where its evaluation stands. */
export interface AlertRulesTable {
  id: Generated<number>;
  website_id: number;
  /** ALERT_KINDS in alerts/alert-kinds.ts. */
  kind: string;
  threshold: number;
  /** `event:<name>` or `page:<pattern>` for a goal rule, "" otherwise. */
  goal: string;
  /** An address, or "" for no e-mail. */
  email: string;
  /** An http(s) URL, or "" for no webhook. */
  webhook_url: string;
  /** `json` or `slack`. */
  webhook_format: string;
  /** `whsec_…`: the webhooks' signing key (Standard Webhooks). */
  webhook_secret: string;
  enabled: number;
  /** `ok`, or `firing` while the condition of a rule that fired still holds (it fires again only after it ends). */
  state: Generated<string>;
  /** How many times it fired: the next firing is number `firings + 1`. */
  firings: Generated<number>;
  /** When it was last evaluated (epoch ms, 0 never): taken by compare-and-set, so one process evaluates it at a time. */
  evaluated_at: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** One firing of a rule sent one way (e-mail or webhook), retried until sent: the delivery log. */
export interface AlertDeliveriesTable extends RunColumns {
  id: Generated<number>;
  rule_id: number;
  website_id: number;
  /** The rule's firing number: (rule, firing, channel) is unique, so a firing is sent once each way. */
  firing: number;
  /** `email` or `webhook`. */
  channel: string;
  /** The address or URL, as the rule said when it fired. */
  target: string;
  /** The same at every attempt (`webhook-id`, the e-mail's Message-ID): receivers drop repeats by it. */
  uid: string;
  /** The alert as JSON (the webhook's body in the `json` format). */
  payload: string;
}
