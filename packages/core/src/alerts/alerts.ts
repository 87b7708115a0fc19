import { randomUUID } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import type { AlertRulesTable, Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import { createClaimedRuns } from "../storage/claimed-runs.js";
import { NotFoundError, TallyError } from "../shared/errors.js";
import type { Mailer } from "../shared/mailer.js";
import { oneRunAtATime } from "../shared/one-run-at-a-time.js";
import { validate } from "../shared/validation.js";
import { parseStep } from "../model/path-steps.js";
import type { Websites } from "../websites/websites.js";
import { ALERT_KIND_NAMES, alertKind, type AlertKindName, type Observation } from "./alert-kinds.js";
import {
  alertCreateSchema,
  alertUpdateSchema,
  type Alert,
  type AlertChannel,
  type AlertDelivery,
  type AlertInput,
  type AlertRule,
  type WebhookFormat,
} from "./alert-input.js";
import { alertMail, alertPayload, webhookBody, type AlertPayload } from "./alert-messages.js";
import { createAlertReader, type AlertReader } from "./alert-reader.js";
import { newWebhookSecret, postWebhook } from "./webhook.js";

/** When alert rules are checked and how their deliveries are retried (`createTally({ alerts })`). */
export interface AlertOptions {
  /**
   * How often every enabled rule is checked and the deliveries due are sent (also 30 s after
   * start, or sooner when this is shorter); 0 turns the scheduler off (`alerts.runDue()` still works).
   * @default 60000
   */
  intervalMs?: number;
  /**
   * A failed delivery is tried again after this long, then twice as long each time, at most
   * `maxRetryMs` apart.
   * @default 60000
   */
  retryMs?: number;
  /** @default 3600000 (an hour) */
  maxRetryMs?: number;
  /**
   * Attempts before a delivery is marked failed (with the defaults, about a day of trying).
   * @default 30
   */
  attempts?: number;
  /**
   * How long a webhook's receiver may take to answer.
   * @default 10000
   */
  timeoutMs?: number;
}

/** What one `runDue` did. */
export interface AlertRunSummary {
  /** Rules checked (by this process: another one on the same database checks the rest). */
  checked: number;
  fired: number;
  /** Deliveries sent, and attempts that failed (retried later). */
  sent: number;
  failed: number;
}

export interface Alerts {
  list(accountId: number, websiteId: number): Promise<Alert[]>;
  get(accountId: number, websiteId: number, alertId: number): Promise<Alert>;
  create(accountId: number, websiteId: number, input: AlertInput): Promise<Alert>;
  /** Changes the fields given; a new kind, threshold or goal starts the rule afresh (not firing). */
  update(accountId: number, websiteId: number, alertId: number, input: AlertInput): Promise<Alert>;
  delete(accountId: number, websiteId: number, alertId: number): Promise<void>;
  /** The delivery log: the website's latest deliveries (of one rule, with `alert`), newest first. */
  deliveries(accountId: number, websiteId: number, options?: { alert?: number; limit?: number }): Promise<AlertDelivery[]>;
  /** Checks the rules due and sends the deliveries due (what the scheduler runs every `intervalMs`). */
  runDue(now?: number): Promise<AlertRunSummary>;
}

export interface AlertsDependencies {
  db: Kysely<Database>;
  dialect: SqlDialect;
  /** What the rules count from, when the hits are not the database's (ClickHouse's); default: the database's hits. */
  reader?: AlertReader;
  websites: Websites;
  mailer: Mailer | null;
  /** The public URL of Tally's mount (the dashboard link), without a trailing slash; null for none. */
  publicUrl: string | null;
  options: AlertOptions;
  /** Writes this process's buffered hits, so that a check counts them. */
  beforeRead(): Promise<void>;
  onError(error: unknown): void;
}

/** Hits reach the database within a flush or two: a goal's check counts up to this long ago, so none falls between two checks. */
const SETTLE_MS = 5_000;
/** A goal's first check, or one after a long pause, looks back at most this far. */
const LONGEST_SPAN_MS = 24 * 3_600_000;
/** Deliveries sent or given up are kept this long in the log. */
const LOG_KEPT_MS = 30 * 24 * 3_600_000;
const NO_MAIL = "E-mail is not configured: set the mail option (SMTP_URL and MAIL_FROM for tally serve).";

type RuleRow = Selectable<AlertRulesTable>;
const isKind = (kind: string): kind is AlertKindName => (ALERT_KIND_NAMES as readonly string[]).includes(kind);

function toAlert(row: RuleRow): Alert {
  return {
    id: Number(row.id),
    website_id: Number(row.website_id),
    kind: row.kind as AlertKindName,
    threshold: Number(row.threshold),
    goal: row.goal,
    email: row.email,
    webhook_url: row.webhook_url,
    webhook_format: row.webhook_format as WebhookFormat,
    webhook_secret: row.webhook_secret,
    enabled: Number(row.enabled) === 1 ? 1 : 0,
    state: row.state === "firing" ? "firing" : "ok",
    firings: Number(row.firings),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The ways a rule's firing is sent, each to its target. */
const channelsOf = (rule: Pick<RuleRow, "email" | "webhook_url">): [AlertChannel, string][] =>
  [
    ["email", rule.email],
    ["webhook", rule.webhook_url],
  ].filter((entry): entry is [AlertChannel, string] => entry[1] !== "");

export function createAlerts(deps: AlertsDependencies): Alerts & { settle(): Promise<void> } {
  const { db, options } = deps;
  const reader = deps.reader ?? createAlertReader(db, deps.dialect);
  const deliveries = createClaimedRuns(db, "alert_deliveries", {
    // Longer than any attempt: a webhook's timeout, or SMTP's (30 s + 60 s).
    leaseMs: 5 * 60_000,
    firstRetryMs: options.retryMs ?? 60_000,
    maxRetryMs: options.maxRetryMs ?? 3_600_000,
    maxAttempts: options.attempts ?? 30,
  });
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Two processes a few seconds apart do not both check a rule in one interval (nor two at the same moment).
  const checkGapMs = (options.intervalMs ?? 60_000) / 2;
  const host = deps.publicUrl === null ? "tally.invalid" : new URL(deps.publicUrl).hostname;

  async function findRule(accountId: number, websiteId: number, alertId: number): Promise<RuleRow> {
    await deps.websites.get(accountId, websiteId);
    const row = await db
      .selectFrom("alert_rules")
      .selectAll()
      .where("id", "=", alertId)
      .where("website_id", "=", websiteId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError();
    return row;
  }

  const columnsOf = (rule: AlertRule) => ({
    kind: rule.kind,
    threshold: rule.threshold,
    goal: rule.goal,
    email: rule.email,
    webhook_url: rule.webhook_url,
    webhook_format: rule.webhook_format,
    enabled: rule.enabled,
  });

  // ---------------------------------------------------------------------------
  // Checking rules

  /** Records a firing: its deliveries (unique per rule, firing and channel: a second try adds none), then the rule's count. */
  async function fire(row: RuleRow & { domain: string }, observation: Observation, now: number, state: "ok" | "firing"): Promise<boolean> {
    const firing = Number(row.firings) + 1;
    const rule = {
      id: Number(row.id),
      kind: row.kind as AlertKindName,
      threshold: Number(row.threshold),
      goal: row.goal,
      website: { id: Number(row.website_id), domain: row.domain },
    };
    const created_at = new Date(now).toISOString();
    const rows = channelsOf(row).map(([channel, target]) => {
      const uid = randomUUID();
      const payload = alertPayload(rule, { uid, firing, at: now, observation, publicUrl: deps.publicUrl });
      const unsendable = channel === "email" && deps.mailer === null;
      return {
        rule_id: rule.id,
        website_id: rule.website.id,
        firing,
        channel,
        target,
        uid,
        payload: JSON.stringify(payload),
        status: unsendable ? "failed" : "pending",
        attempts: 0,
        next_attempt_at: now,
        last_error: unsendable ? NO_MAIL : null,
        created_at,
      };
    });
    if (rows.length > 0)
      await db
        .insertInto("alert_deliveries")
        .values(rows)
        .onConflict((conflict) => conflict.columns(["rule_id", "firing", "channel"]).doNothing())
        .execute();
    const moved = await db
      .updateTable("alert_rules")
      .set({ firings: firing, state })
      .where("id", "=", rule.id)
      .where("firings", "=", row.firings)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) === 1;
  }

  /** Checks one rule, if this process is the one to take it (compare-and-set on when it was last checked). */
  async function check(row: RuleRow & { domain: string; timezone: string }, now: number, summary: AlertRunSummary): Promise<void> {
    if (!isKind(row.kind)) return; // a kind a newer version wrote
    const taken = await db
      .updateTable("alert_rules")
      .set({ evaluated_at: now })
      .where("id", "=", row.id)
      .where("evaluated_at", "=", row.evaluated_at)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) return;
    summary.checked++;
    const kind = alertKind(row.kind);
    const createdAt = Date.parse(row.created_at);
    const lastChecked = Number(row.evaluated_at) || createdAt;
    const span = { from: Math.max(lastChecked, now - LONGEST_SPAN_MS) - SETTLE_MS, to: now - SETTLE_MS };
    const website = { id: Number(row.website_id), domain: row.domain, timezone: row.timezone };
    const observation = await kind.observe(
      reader,
      { website, threshold: Number(row.threshold), goal: parseStep(row.goal), createdAt },
      { now, span },
    );
    if (kind.fires === "event") {
      if (observation.holds && (await fire(row, observation, now, "ok"))) summary.fired++;
    } else if (observation.holds && row.state !== "firing") {
      if (await fire(row, observation, now, "firing")) summary.fired++;
    } else if (!observation.holds && row.state === "firing") {
      await db.updateTable("alert_rules").set({ state: "ok" }).where("id", "=", row.id).where("firings", "=", row.firings).execute();
    }
  }

  async function checkDue(now: number, summary: AlertRunSummary): Promise<void> {
    const rows = await db
      .selectFrom("alert_rules")
      .innerJoin("websites", "websites.id", "alert_rules.website_id")
      .selectAll("alert_rules")
      .select(["websites.domain", "websites.timezone"])
      .where("alert_rules.enabled", "=", 1)
      .where("alert_rules.evaluated_at", "<", now - checkGapMs)
      .orderBy("alert_rules.id")
      .execute();
    if (rows.length === 0) return;
    await deps.beforeRead();
    for (const row of rows) {
      try {
        await check(row, now, summary);
      } catch (error) {
        deps.onError(
          new Error(`alert rule ${row.id} of ${row.domain}: ${error instanceof Error ? error.message : String(error)}`, { cause: error }),
        );
      }
    }
  }

  // ---------------------------------------------------------------------------
  // Sending

  async function deliver(delivery: { rule_id: number; channel: string; target: string; uid: string; payload: string }): Promise<void> {
    const payload = JSON.parse(delivery.payload) as AlertPayload;
    if (delivery.channel === "email") {
      if (!deps.mailer) throw new TallyError(NO_MAIL);
      const mail = alertMail(payload, delivery.target, `<alert.${delivery.uid}@${host}>`);
      await deps.mailer.send({ ...(deps.mailer.from === undefined ? {} : { from: deps.mailer.from }), ...mail });
      return;
    }
    // The rule as it is now: a secret or format changed since the firing applies to its retries.
    const rule = await db
      .selectFrom("alert_rules")
      .select(["webhook_secret", "webhook_format"])
      .where("id", "=", delivery.rule_id)
      .executeTakeFirstOrThrow();
    const body = webhookBody(payload, rule.webhook_format === "slack" ? "slack" : "json");
    await postWebhook(delivery.target, { body, secret: rule.webhook_secret, id: delivery.uid, timeoutMs });
  }

  async function sendDue(now: number, summary: AlertRunSummary): Promise<void> {
    for (const delivery of await deliveries.due(now)) {
      const claim = await deliveries.claim(delivery, now);
      if (!claim) continue;
      try {
        await deliver({ ...delivery, rule_id: Number(delivery.rule_id) });
      } catch (error) {
        summary.failed++;
        const reason = error instanceof Error ? error.message : String(error);
        const where = `${delivery.channel} to ${delivery.target}, attempt ${claim.attempt} (${deliveries.nextStep(claim)})`;
        deps.onError(new Error(`alert delivery ${delivery.id} (${where}): ${reason}`, { cause: error }));
        await deliveries.finish(claim, { status: "failed", error: reason, now });
        continue;
      }
      summary.sent++;
      if (!(await deliveries.finish(claim, { status: "sent", now })))
        deps.onError(new Error(`alert delivery ${delivery.id}: the claim lapsed before the send finished`));
    }
  }

  const runs = oneRunAtATime(async (now: number): Promise<AlertRunSummary> => {
    const summary: AlertRunSummary = { checked: 0, fired: 0, sent: 0, failed: 0 };
    await checkDue(now, summary);
    await sendDue(now, summary);
    const old = new Date(now - LOG_KEPT_MS).toISOString();
    await db.deleteFrom("alert_deliveries").where("status", "in", ["sent", "failed"]).where("created_at", "<", old).execute();
    return summary;
  });

  // ---------------------------------------------------------------------------
  // Rules and the log

  const alerts: Alerts = {
    async list(accountId, websiteId) {
      await deps.websites.get(accountId, websiteId);
      const rows = await db.selectFrom("alert_rules").selectAll().where("website_id", "=", websiteId).orderBy("id").execute();
      return rows.map(toAlert);
    },

    get: async (accountId, websiteId, alertId) => toAlert(await findRule(accountId, websiteId, alertId)),

    async create(accountId, websiteId, input) {
      await deps.websites.get(accountId, websiteId);
      const rule = validate(alertCreateSchema, input);
      const now = new Date().toISOString();
      const row = await db
        .insertInto("alert_rules")
        .values({ website_id: websiteId, ...columnsOf(rule), webhook_secret: newWebhookSecret(), created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAlert(row);
    },

    async update(accountId, websiteId, alertId, input) {
      const current = toAlert(await findRule(accountId, websiteId, alertId));
      const changes = Object.fromEntries(Object.entries(validate(alertUpdateSchema, input)).filter(([, value]) => value !== undefined));
      const rule = validate(alertCreateSchema, { ...current, ...changes });
      const restarts = rule.kind !== current.kind || rule.threshold !== current.threshold || rule.goal !== current.goal;
      const row = await db
        .updateTable("alert_rules")
        .set({ ...columnsOf(rule), ...(restarts ? { state: "ok" } : {}), updated_at: new Date().toISOString() })
        .where("id", "=", alertId)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAlert(row);
    },

    async delete(accountId, websiteId, alertId) {
      await findRule(accountId, websiteId, alertId);
      // The log goes with the rule (also by the foreign key, where the database enforces it).
      await db.deleteFrom("alert_deliveries").where("rule_id", "=", alertId).execute();
      await db.deleteFrom("alert_rules").where("id", "=", alertId).execute();
    },

    async deliveries(accountId, websiteId, { alert, limit = 50 } = {}) {
      await deps.websites.get(accountId, websiteId);
      let query = db.selectFrom("alert_deliveries").selectAll().where("website_id", "=", websiteId);
      if (alert !== undefined) query = query.where("rule_id", "=", alert);
      const rows = await query.orderBy("id", "desc").limit(limit).execute();
      return rows.map((row) => ({
        id: Number(row.id),
        alert_id: Number(row.rule_id),
        firing: Number(row.firing),
        channel: row.channel as AlertChannel,
        target: row.target,
        uid: row.uid,
        text: (JSON.parse(row.payload) as AlertPayload).text,
        status: row.status as AlertDelivery["status"],
        attempts: Number(row.attempts),
        last_error: row.last_error,
        next_attempt_at: row.status === "pending" ? new Date(Number(row.next_attempt_at)).toISOString() : null,
        sent_at: row.sent_at,
        created_at: row.created_at,
      }));
    },

    runDue: (now = Date.now()) => runs.run(now),
  };
  return { ...alerts, settle: () => runs.settle() };
}
