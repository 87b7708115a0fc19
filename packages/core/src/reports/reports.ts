import type { Kysely } from "kysely";
import type { Account, Accounts } from "../accounts/accounts.js";
import { parseEmailAddress, type ReportPeriod } from "../accounts/account-input.js";
import type { Database } from "../storage/schema.js";
import { createLocalClock } from "../model/local-time.js";
import { NotFoundError, TallyError } from "../shared/errors.js";
import type { Stats } from "../stats/stats.js";
import type { Websites } from "../websites/websites.js";
import type { Mailer, MailMessage } from "../shared/mailer.js";
import { gatherWebsite, type ReportedWebsite, type WebsiteReport } from "./report-data.js";
import { periodAdjective, rangeLabel } from "./report-format.js";
import { renderHtml } from "./report-html.js";
import { lastCompleteRange, rangeOfKey, type ReportRange } from "./report-period.js";
import { createReportRuns } from "./report-runs.js";
import { renderText } from "./report-text.js";
import { loadUnsubscribeSecret, signUnsubscribe, verifyUnsubscribe } from "./unsubscribe-token.js";

/** One account's report, rendered, with the figures it was made from. */
export interface Report {
  accountId: number;
  /** The account's address; null when it has none (a preview can still be made). */
  to: string | null;
  range: ReportRange;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  websites: WebsiteReport[];
  /** Stops every report in this e-mail; null without a public URL. */
  unsubscribeUrl: string | null;
}

export interface ReportOptions {
  /** @default the account's `report_period` */
  period?: ReportPeriod;
  /** The clock: the report covers the last period complete in every website's time zone at this time. @default Date.now() */
  now?: number;
}

export interface RunSummary {
  sent: number;
  failed: number;
  skipped: number;
}

export interface Reports {
  /** Builds an account's report of its websites with `email` 1; null when it has none. */
  build(accountId: number, options?: ReportOptions): Promise<Report | null>;
  /**
   * Builds and sends one now, to `to` or the account's address, outside the schedule (nothing
   * is recorded). Answers the report with `to` the address it went to: null when there was none.
   */
  send(accountId: number, options?: ReportOptions & { to?: string }): Promise<Report | null>;
  /** Sends every scheduled report that is due and not sent yet (what the scheduler runs). */
  runDue(now?: number): Promise<RunSummary>;
  /** The websites an unsubscribe token names that still have reports on; NotFoundError for a token that is not genuine. */
  unsubscribeTarget(token: string): Promise<{ accountId: number; domains: string[] }>;
  /** Sets `email` to 0 on the token's websites; answers their domains. NotFoundError for a token that is not genuine. */
  unsubscribe(token: string): Promise<{ accountId: number; domains: string[] }>;
}

export interface ReportsDependencies {
  db: Kysely<Database>;
  accounts: Accounts;
  websites: Websites;
  stats: Pick<Stats, "totalsWebsite" | "queryWebsite">;
  mailer: Mailer | null;
  /** The public URL of Tally's mount (dashboard and unsubscribe links), without a trailing slash; null for no links. */
  publicUrl: string | null;
  onError(error: unknown): void;
}

/** Scheduled reports go out once it is 6:00 on the first day after the period in every website's time zone. */
const SEND_AFTER_MS = 6 * 3_600_000;

export function createReports(deps: ReportsDependencies): Reports & { settle(): Promise<void> } {
  const { db, publicUrl } = deps;
  const localTime = createLocalClock();
  const runs = createReportRuns(db);
  let secret: Promise<Buffer> | null = null;
  let running: Promise<RunSummary> | null = null;

  const unsubscribeSecret = () => {
    secret ??= loadUnsubscribeSecret(db);
    secret.catch(() => (secret = null));
    return secret;
  };

  /** The last period complete in every time zone at `now` (the zone furthest behind decides). */
  function rangeAt(kind: ReportPeriod, timezones: readonly string[], now: number): ReportRange {
    const earliest = timezones.map((zone) => localTime(zone, now).day).sort()[0] ?? localTime("UTC", now).day;
    return lastCompleteRange(kind, earliest);
  }

  async function reportedWebsites(accountId: number): Promise<ReportedWebsite[]> {
    const rows = await db
      .selectFrom("websites")
      .select(["id", "domain", "timezone"])
      .where("account_id", "=", accountId)
      .where("email", "=", 1)
      .orderBy("id")
      .execute();
    return rows.map((row) => ({ id: Number(row.id), domain: row.domain, timezone: row.timezone }));
  }

  async function unsubscribeUrl(accountId: number, websiteIds: number[]): Promise<string | null> {
    if (publicUrl === null) return null;
    return `${publicUrl}/unsubscribe/${signUnsubscribe(await unsubscribeSecret(), { accountId, websiteIds })}`;
  }

  async function render(account: Account, sites: ReportedWebsite[], range: ReportRange): Promise<Report> {
    // One website at a time: a report never takes more than a few reader queries at once from the dashboard's users.
    const websites: WebsiteReport[] = [];
    for (const site of sites) {
      websites.push(
        await gatherWebsite(deps.stats, site, range, {
          dashboardUrl: publicUrl === null ? null : `${publicUrl}/#/websites/${site.id}?range=custom&from=${range.from}&to=${range.to}`,
          unsubscribeUrl: await unsubscribeUrl(account.id, [site.id]),
        }),
      );
    }
    const all = await unsubscribeUrl(
      account.id,
      sites.map((site) => site.id),
    );
    const others = sites.length > 1 ? ` and ${sites.length - 1} more` : "";
    const subject = `${periodAdjective(range)} Tally report for ${sites[0]!.domain}${others} · ${rangeLabel(range)}`;
    const content = { subject, range, websites, unsubscribeUrl: all };
    const headers: Record<string, string> = { "Auto-Submitted": "auto-generated" };
    // RFC 8058: mail providers offer their own unsubscribe button, which POSTs to this URL.
    if (all) Object.assign(headers, { "List-Unsubscribe": `<${all}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });
    return {
      accountId: account.id,
      to: account.email,
      range,
      subject,
      text: renderText(content),
      html: renderHtml(content),
      headers,
      websites,
      unsubscribeUrl: all,
    };
  }

  async function buildFor(
    accountId: number,
    range: (sites: ReportedWebsite[], account: Account) => ReportRange | null,
  ): Promise<Report | null> {
    const account = await deps.accounts.get(accountId);
    const sites = await reportedWebsites(accountId);
    const chosen = sites.length === 0 ? null : range(sites, account);
    return chosen === null ? null : render(account, sites, chosen);
  }

  function requireMailer(): Mailer {
    if (!deps.mailer) throw new TallyError("E-mail is not configured: set the mail option (SMTP_URL and MAIL_FROM for tally serve).");
    return deps.mailer;
  }

  const message = (report: Report, to: string, messageId?: string): MailMessage => ({
    ...(deps.mailer?.from === undefined ? {} : { from: deps.mailer.from }),
    to,
    subject: report.subject,
    text: report.text,
    html: report.html,
    headers: report.headers,
    ...(messageId === undefined ? {} : { messageId }),
  });

  /** Same for every attempt at one scheduled report, so a rare repeat (a lapsed claim) is recognisable as one message. */
  function messageId(accountId: number, period: string): string {
    const host = publicUrl === null ? "tally.invalid" : new URL(publicUrl).hostname;
    return `<report.${accountId}.${period.replace(":", ".")}@${host}>`;
  }

  /** Which (account, period) is due now: accounts with an address and at least one website with reports on. */
  async function duePeriods(now: number): Promise<{ accountId: number; period: string }[]> {
    const rows = await db
      .selectFrom("accounts")
      .innerJoin("websites", "websites.account_id", "accounts.id")
      .select(["accounts.id as account_id", "accounts.report_period", "websites.timezone"])
      .where("accounts.email", "is not", null)
      .where("websites.email", "=", 1)
      .execute();
    const zones = new Map<number, { kind: ReportPeriod; timezones: string[] }>();
    for (const row of rows) {
      const entry = zones.get(Number(row.account_id)) ?? { kind: row.report_period === "month" ? "month" : "week", timezones: [] };
      entry.timezones.push(row.timezone);
      zones.set(Number(row.account_id), entry);
    }
    return [...zones].map(([accountId, { kind, timezones }]) => ({ accountId, period: rangeAt(kind, timezones, now - SEND_AFTER_MS).key }));
  }

  async function attempt(run: Awaited<ReturnType<typeof runs.due>>[number], now: number, summary: RunSummary): Promise<void> {
    const claimed = await runs.claim(run, now);
    if (!claimed) return;
    const range = rangeOfKey(run.period);
    let outcome: "sent" | "skipped" = "skipped";
    try {
      const report = range === null ? null : await buildFor(run.accountId, () => range).catch(skipMissingAccount);
      if (report?.to) {
        await requireMailer().send(message(report, report.to, messageId(run.accountId, run.period)));
        outcome = "sent";
      }
    } catch (error) {
      summary.failed++;
      const reason = error instanceof Error ? error.message : String(error);
      const retry = runs.nextStep(claimed);
      deps.onError(
        new Error(`report ${run.period} of account ${run.accountId}, attempt ${claimed.attempt} (${retry}): ${reason}`, { cause: error }),
      );
      await runs.finish(claimed, { status: "failed", error: reason, now });
      return;
    }
    summary[outcome]++;
    if (!(await runs.finish(claimed, { status: outcome, now }))) {
      deps.onError(new Error(`report ${run.period} of account ${run.accountId}: the claim lapsed before the send finished`));
    }
  }

  async function runAll(now: number): Promise<RunSummary> {
    requireMailer();
    await runs.ensure(await duePeriods(now), now);
    const summary: RunSummary = { sent: 0, failed: 0, skipped: 0 };
    for (const run of await runs.due(now)) await attempt(run, now, summary);
    return summary;
  }

  async function unsubscribeTarget(token: string) {
    const target = verifyUnsubscribe(await unsubscribeSecret(), token);
    if (!target) throw new NotFoundError("This unsubscribe link is not valid.");
    const rows = await db
      .selectFrom("websites")
      .select(["id", "domain"])
      .where("account_id", "=", target.accountId)
      .where("id", "in", target.websiteIds)
      .where("email", "=", 1)
      .orderBy("id")
      .execute();
    return { accountId: target.accountId, ids: rows.map((row) => Number(row.id)), domains: rows.map((row) => row.domain) };
  }

  const reports: Reports = {
    build: (accountId, options = {}) =>
      buildFor(accountId, (sites, account) =>
        rangeAt(
          options.period ?? account.report_period,
          sites.map((site) => site.timezone),
          options.now ?? Date.now(),
        ),
      ),

    async send(accountId, options = {}) {
      const mailer = requireMailer();
      const to = options.to === undefined ? undefined : parseEmailAddress(options.to, "to");
      const report = await reports.build(accountId, options);
      if (!report) return null;
      const recipient = to ?? report.to;
      if (recipient) await mailer.send(message(report, recipient));
      return { ...report, to: recipient };
    },

    runDue(now = Date.now()) {
      running ??= runAll(now).finally(() => {
        running = null;
      });
      return running;
    },

    async unsubscribeTarget(token) {
      const { accountId, domains } = await unsubscribeTarget(token);
      return { accountId, domains };
    },

    async unsubscribe(token) {
      const { accountId, ids, domains } = await unsubscribeTarget(token);
      for (const id of ids) await deps.websites.update(accountId, id, { email: 0 });
      return { accountId, domains };
    },
  };
  return {
    ...reports,
    /** Waits for a run under way (close). */
    async settle() {
      await running?.catch(() => {});
    },
  };
}

/** A run whose account was deleted meanwhile has nothing to send (its row goes with the account). */
function skipMissingAccount(error: unknown): null {
  if (error instanceof NotFoundError) return null;
  throw error;
}
