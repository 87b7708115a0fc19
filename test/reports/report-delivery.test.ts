// Each scheduled report goes out exactly once: across repeated runs, restarts, instances
// racing on one database and the schedulers inside them; a refusing SMTP server (or an
// app's failing send) is retried with backoff and the report is not lost.
import { TallyError, type MailMessage } from "@tally-analytics/core";
import { afterEach, describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { createTestTally } from "../support/tally-fixture.js";
import { reportsFixture, SEND_TIME, WEEK_MS, type ReportsFixture } from "./fixture.js";

interface RunRow {
  account_id: number;
  period: string;
  status: string;
  attempts: number;
  next_attempt_at: number | string;
  last_error: string | null;
}

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DIALECTS)("e-mail report delivery on %s", (dialect) => {
  let fixture: ReportsFixture | undefined;
  afterEach(async () => {
    await fixture?.dispose();
    fixture = undefined;
  });

  async function runs(f: ReportsFixture): Promise<RunRow[]> {
    const rows = await f.sql<RunRow>(
      "select account_id, period, status, attempts, next_attempt_at, last_error from report_runs order by account_id, period",
    );
    return rows.map((row) => ({
      ...row,
      account_id: Number(row.account_id),
      attempts: Number(row.attempts),
      next_attempt_at: Number(row.next_attempt_at),
    }));
  }
  const recipients = (f: ReportsFixture) =>
    f.smtp.messages.map((mail) => `${(Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text} | ${mail.subject}`).sort();

  it("sends a report once: not again on the next run, nor after a restart; the next week's goes out in its turn", async () => {
    fixture = await reportsFixture(dialect);
    const alice = await fixture.account("alice");
    expect(await fixture.tally.reports.runDue(SEND_TIME)).toEqual({ sent: 1, failed: 0, skipped: 0 });
    expect(await fixture.tally.reports.runDue(SEND_TIME + MINUTE)).toEqual({ sent: 0, failed: 0, skipped: 0 });
    await fixture.tally.close();

    const restarted = fixture.open();
    expect(await restarted.reports.runDue(SEND_TIME + 2 * MINUTE)).toEqual({ sent: 0, failed: 0, skipped: 0 });
    expect(await restarted.reports.runDue(SEND_TIME + WEEK_MS)).toEqual({ sent: 1, failed: 0, skipped: 0 });
    expect(recipients(fixture)).toEqual([
      "alice@mail.test | Weekly Tally report for alice.example · Nov 16 – 22, 2026",
      "alice@mail.test | Weekly Tally report for alice.example · Nov 9 – 15, 2026",
    ]);
    expect((await runs(fixture)).map(({ account_id, period, status, attempts }) => ({ account_id, period, status, attempts }))).toEqual([
      { account_id: alice.id, period: "week:2026-11-09", status: "sent", attempts: 1 },
      { account_id: alice.id, period: "week:2026-11-16", status: "sent", attempts: 1 },
    ]);
  });

  it("sends each report exactly once when three instances on one database run at the same moment", async () => {
    fixture = await reportsFixture(dialect);
    const instances = [fixture.tally, fixture.open(), fixture.open()];
    const zones = ["UTC", "Europe/Paris", "America/Los_Angeles", "Asia/Tokyo", "Pacific/Kiritimati", "Pacific/Pago_Pago"];
    for (const [index, timezone] of zones.entries()) await fixture.account(`user${index}`, { timezone });
    for (let week = 0; week < 3; week++) {
      const results = await Promise.all(instances.map((tally) => tally.reports.runDue(SEND_TIME + week * WEEK_MS)));
      expect(
        results.reduce((sum, result) => sum + result.sent, 0),
        `week ${week}`,
      ).toBe(zones.length);
      expect(results.every((result) => result.failed === 0 && result.skipped === 0)).toBe(true);
    }
    const received = recipients(fixture);
    expect(received).toHaveLength(3 * zones.length);
    expect(new Set(received).size).toBe(received.length);
    expect((await runs(fixture)).every((run) => run.status === "sent" && run.attempts === 1)).toBe(true);
  });

  it("the schedulers inside two instances send the due reports once, and a restarted one sends nothing again", async () => {
    fixture = await reportsFixture(dialect);
    for (const name of ["ann", "ben", "cat"]) await fixture.account(name);
    const first = fixture.open({ reportIntervalMs: 40 });
    const second = fixture.open({ reportIntervalMs: 40 });
    await fixture.smtp.waitFor(3);
    await sleep(600); // more than ten ticks of each scheduler
    expect(fixture.smtp.messages).toHaveLength(3);
    await Promise.all([first.close(), second.close()]);

    const restarted = fixture.open({ reportIntervalMs: 40 });
    await restarted.ready();
    await sleep(600);
    expect(fixture.smtp.messages).toHaveLength(3);
    expect(new Set(recipients(fixture)).size).toBe(3);
    expect((await runs(fixture)).map((run) => [run.status, run.attempts])).toEqual([
      ["sent", 1],
      ["sent", 1],
      ["sent", 1],
    ]);
  });

  it("a report is due from 06:00 on Monday in the account's time zone furthest behind", async () => {
    fixture = await reportsFixture(dialect);
    const alice = await fixture.account("alice", { timezone: "Pacific/Kiritimati" }); // UTC+14
    await fixture.tally.websites.create(alice.id, { domain: "west.alice.example", email: 1, timezone: "Pacific/Pago_Pago" }); // UTC-11
    const mondaySixInPagoPago = Date.UTC(2026, 10, 16, 17);
    expect(await fixture.tally.reports.runDue(mondaySixInPagoPago - 1)).toMatchObject({ sent: 1 });
    expect(await fixture.tally.reports.runDue(mondaySixInPagoPago)).toMatchObject({ sent: 1 });
    expect(await fixture.tally.reports.runDue(mondaySixInPagoPago + WEEK_MS - 1)).toMatchObject({ sent: 0 });
    expect(fixture.smtp.messages.map((mail) => mail.subject)).toEqual([
      "Weekly Tally report for alice.example and 1 more · Nov 2 – 8, 2026",
      "Weekly Tally report for alice.example and 1 more · Nov 9 – 15, 2026",
    ]);
  });

  it("hits are taken, written and counted while a report is being sent", async () => {
    fixture = await reportsFixture(dialect);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let sending = () => {};
    const started = new Promise<void>((resolve) => (sending = resolve));
    const slow = fixture.open({
      mail: {
        async send() {
          sending();
          await held;
        },
      },
    });
    const alice = await fixture.account("alice");
    const run = slow.reports.runDue(SEND_TIME);
    await started;
    const hit = {
      url: "https://alice.example/during",
      ip: "203.0.113.9",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
    };
    for (let i = 0; i < 50; i++) expect(await slow.collect({ ...hit, timestamp: SEND_TIME + i * 1000 })).toEqual({ status: "accepted" });
    // Written and counted while the send still waits: the run holds no lock across it.
    const page = await slow.stats.query(alice.id, alice.websiteId, { name: "page", from: "2026-11-16", to: "2026-11-16" });
    expect(page.data).toEqual([{ value: "/during", count: 50 }]);
    release();
    expect(await run).toMatchObject({ sent: 1 });
  });

  it("retries a refusing SMTP server after 1, then 2 minutes, across a restart, until the report is delivered", async () => {
    fixture = await reportsFixture(dialect);
    const errors: string[] = [];
    const first = fixture.open({ onError: (error) => errors.push(String(error)) });
    const alice = await fixture.account("alice");
    fixture.smtp.rejecting = true;

    expect(await first.reports.runDue(SEND_TIME)).toEqual({ sent: 0, failed: 1, skipped: 0 });
    expect(fixture.smtp.refused).toBe(1);
    let [run] = await runs(fixture);
    expect(run).toMatchObject({ account_id: alice.id, status: "pending", attempts: 1, next_attempt_at: SEND_TIME + MINUTE });
    expect(run?.last_error).toMatch(/451/);
    expect(errors).toEqual([expect.stringMatching(/report week:2026-11-09 of account \d+, attempt 1 \(retrying in 60 s\): .*451/)]);

    expect(await first.reports.runDue(SEND_TIME + MINUTE - 1)).toEqual({ sent: 0, failed: 0, skipped: 0 });
    expect(await first.reports.runDue(SEND_TIME + MINUTE)).toEqual({ sent: 0, failed: 1, skipped: 0 });
    [run] = await runs(fixture);
    expect(run).toMatchObject({ status: "pending", attempts: 2, next_attempt_at: SEND_TIME + 3 * MINUTE });
    await first.close();

    fixture.smtp.rejecting = false;
    const restarted = fixture.open();
    expect(await restarted.reports.runDue(SEND_TIME + 3 * MINUTE - 1)).toEqual({ sent: 0, failed: 0, skipped: 0 });
    expect(await restarted.reports.runDue(SEND_TIME + 3 * MINUTE)).toEqual({ sent: 1, failed: 0, skipped: 0 });
    expect(fixture.smtp.refused).toBe(2);
    expect(recipients(fixture)).toEqual(["alice@mail.test | Weekly Tally report for alice.example · Nov 9 – 15, 2026"]);
    [run] = await runs(fixture);
    expect(run).toMatchObject({ status: "sent", attempts: 3, last_error: null });
  });

  it("takes over a claim whose process died mid-send once its 15-minute lease has passed", async () => {
    fixture = await reportsFixture(dialect);
    const quiet = fixture.open({ onError: () => {} });
    await fixture.account("alice");
    fixture.smtp.rejecting = true;
    await quiet.reports.runDue(SEND_TIME);
    fixture.smtp.rejecting = false;
    // As a process leaves it when it dies after claiming: sending, leased until claim time + 15 minutes.
    await fixture.sql(`update report_runs set status = 'sending', attempts = 2, next_attempt_at = ${SEND_TIME + 16 * MINUTE}`);
    expect(await fixture.tally.reports.runDue(SEND_TIME + 10 * MINUTE)).toEqual({ sent: 0, failed: 0, skipped: 0 });
    expect(fixture.smtp.messages).toHaveLength(0);
    expect(await fixture.tally.reports.runDue(SEND_TIME + 16 * MINUTE)).toEqual({ sent: 1, failed: 0, skipped: 0 });
    expect((await runs(fixture))[0]).toMatchObject({ status: "sent", attempts: 3 });
  });

  it("hands an app's own send() the whole message, and retries it when it throws", async () => {
    fixture = await reportsFixture(dialect);
    const sent: MailMessage[] = [];
    let failing = true;
    const app = fixture.open({
      mail: {
        from: "App <app@example.test>",
        async send(message) {
          if (failing) throw new Error("queue unavailable");
          sent.push(message);
        },
      },
      onError: () => {},
    });
    const alice = await fixture.account("alice");
    expect(await app.reports.runDue(SEND_TIME)).toMatchObject({ failed: 1 });
    failing = false;
    expect(await app.reports.runDue(SEND_TIME + MINUTE)).toMatchObject({ sent: 1 });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      from: "App <app@example.test>",
      to: "alice@mail.test",
      subject: "Weekly Tally report for alice.example · Nov 9 – 15, 2026",
      messageId: `<report.${alice.id}.week.2026-11-09@127.0.0.1>`,
      headers: { "Auto-Submitted": "auto-generated", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    });
    expect(sent[0]?.text).toContain("Visitors");
    expect(sent[0]?.html).toContain("alice.example");
    expect(fixture.smtp.messages).toHaveLength(0);
  });

  it("without mail there is no scheduler, and running reports is refused", async () => {
    const stored = await createTestTally(dialect, { reportIntervalMs: 20 });
    try {
      const { tally } = stored;
      const { accountId } = await tally.accounts.create({ name: "alice" });
      await tally.websites.create(accountId, { domain: "alice.example", email: 1 });
      await tally.accounts.update(accountId, { email: "alice@mail.test" });
      await sleep(300);
      expect(await stored.sql("select * from report_runs")).toEqual([]);
      await expect(tally.reports.runDue(SEND_TIME)).rejects.toThrow(TallyError);
      await expect(tally.reports.runDue(SEND_TIME)).rejects.toThrow("E-mail is not configured");
      // A preview needs no mail.
      expect((await tally.reports.build(accountId, { now: SEND_TIME }))?.range).toMatchObject({ from: "2026-11-09", to: "2026-11-15" });
    } finally {
      await stored.dispose();
    }
  });
});
