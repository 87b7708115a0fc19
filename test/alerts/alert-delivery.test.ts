// Alerts fire once per firing and reach a real webhook receiver (its signature checked with the
// Standard Webhooks library) and a real SMTP server: each kind of rule, in JSON and Slack's
// format; a receiver down for a while still gets the alert, once, when it comes back; several
// instances on one database send each firing once. Both databases.
import { createTally, type Alert, type AlertPayload, type Tally, type TallyOptions } from "@tally-analytics/core";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS, runSql } from "../support/databases.js";
import { codeBlocks, docPage, section } from "../support/readme.js";
import { startSmtp, type TestSmtp } from "../support/smtp.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from "../support/webhook-receiver.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const MAIL_FROM = "Tally <alerts@tally.test>";
const PUBLIC_URL = "https://stats.shop.test/analytics";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The webhook's body, after checking its signature as a receiver would (and that its id is the payload's). */
function verified(webhook: ReceivedWebhook, alert: Alert): AlertPayload {
  const headers = Object.fromEntries(
    ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, String(webhook.headers[name])]),
  );
  const payload = new Webhook(alert.webhook_secret).verify(webhook.body, headers) as AlertPayload;
  expect(() => new Webhook("whsec_" + Buffer.from("another key").toString("base64")).verify(webhook.body, headers)).toThrow();
  return payload;
}

describe.each(DIALECTS)("alert delivery on %s", (dialect) => {
  let smtp: TestSmtp;
  let receiver: WebhookReceiver;
  let stored: TestTally;
  let tally: Tally;
  let accountId = 0;
  let site = 0;
  let visitorNumber = 0;
  const NOW = Date.now();

  /** A new visitor's pageview (or event) at `at`. */
  const visitor = (at: number, extra: { url?: string; event?: string } = {}) =>
    tally.collect({
      url: `https://shop.test${extra.url ?? "/"}`,
      ip: `198.51.100.${++visitorNumber % 250}`,
      userAgent: `${CHROME} ${visitorNumber}`,
      timestamp: at,
      ...(extra.event ? { event: extra.event } : {}),
    });

  const options = (): Omit<TallyOptions, "database"> => ({
    mail: { url: smtp.url, from: MAIL_FROM },
    publicUrl: PUBLIC_URL,
    alerts: { intervalMs: 0 },
    retentionIntervalMs: 0,
  });

  beforeAll(async () => {
    smtp = await startSmtp();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await smtp?.close();
  });

  async function freshTally(extra: Omit<TallyOptions, "database"> = {}) {
    stored = await createTestTally(dialect, { ...options(), ...extra });
    tally = stored.tally;
    accountId = (await tally.accounts.create({ name: "shop" })).accountId;
    site = (await tally.websites.create(accountId, { domain: "shop.test", timezone: "Europe/Berlin" })).id;
    receiver.received.length = 0;
    smtp.messages.length = 0;
  }
  afterEach(async () => {
    await stored?.dispose();
    await receiver.up();
  });

  /** The website's deliveries once `ready` holds for them (or the last read after five seconds). */
  async function waitForDeliveries(ready: (rows: Awaited<ReturnType<Tally["alerts"]["deliveries"]>>) => boolean) {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const rows = await tally.alerts.deliveries(accountId, site);
      if (ready(rows) || Date.now() > deadline) return rows;
      await sleep(50);
    }
  }

  /** Moves a rule's creation back: a silent site is only silent for as long as it has been watched. */
  const createdAt = (alert: Alert, at: number) =>
    runSql(dialect, stored.url, `update alert_rules set created_at = '${new Date(at).toISOString()}' where id = ${alert.id}`, {
      write: true,
    });

  it("sends a visitors alert once per firing, by e-mail and signed webhook, and again only after it stopped holding", async () => {
    await freshTally();
    const alert = await tally.alerts.create(accountId, site, {
      kind: "visitors",
      threshold: 3,
      email: "ops@shop.test",
      webhook_url: receiver.url,
    });
    const start = NOW - 6 * HOUR;
    await visitor(start - 10 * MINUTE);
    await visitor(start - 5 * MINUTE);
    await tally.flush();
    expect(await tally.alerts.runDue(start)).toEqual({ checked: 1, fired: 0, sent: 0, failed: 0 });
    await visitor(start + 30_000);
    await tally.flush();
    expect(await tally.alerts.runDue(start + MINUTE)).toEqual({ checked: 1, fired: 1, sent: 2, failed: 0 });
    // Holding still: nothing more.
    expect(await tally.alerts.runDue(start + 2 * MINUTE)).toEqual({ checked: 1, fired: 0, sent: 0, failed: 0 });
    expect((await tally.alerts.get(accountId, site, alert.id)).state).toBe("firing");

    const [webhook] = await receiver.waitFor(1);
    const payload = verified(webhook!, alert);
    expect(payload).toMatchObject({
      type: "alert.fired",
      website: { id: site, domain: "shop.test" },
      alert: { id: alert.id, kind: "visitors", threshold: 3, goal: "" },
      firing: 1,
      value: 3,
      text: "shop.test: 3 visitors in the last hour (alert at 3 or more).",
      dashboard_url: `${PUBLIC_URL}/#/websites/${site}`,
    });
    expect(webhook!.headers["webhook-id"]).toBe(payload.id);
    // The payload docs/alerts.md shows has exactly these fields.
    const documented = codeBlocks(section("Webhooks", docPage("alerts.md"))).find((block) => block.lang === "json")!;
    expect(Object.keys(JSON.parse(documented.body) as object).sort()).toEqual(Object.keys(payload).sort());
    expect(webhook!.headers["content-type"]).toBe("application/json");
    const [mail] = await smtp.waitFor(1);
    expect(mail!.subject).toBe("Tally alert: shop.test: 3 visitors in the last hour (alert at 3 or more).");
    expect(mail!.to).toMatchObject({ text: "ops@shop.test" });
    expect(mail!.text).toContain(`Dashboard: ${PUBLIC_URL}/#/websites/${site}`);
    expect(mail!.headers.get("auto-submitted")).toBe("auto-generated");

    // An hour later the visitors have gone: the rule is armed again, and fires at the next three.
    await tally.alerts.runDue(start + 2 * HOUR);
    expect((await tally.alerts.get(accountId, site, alert.id)).state).toBe("ok");
    for (let n = 0; n < 3; n++) await visitor(start + 2 * HOUR + n * MINUTE);
    await tally.flush();
    expect(await tally.alerts.runDue(start + 2 * HOUR + 5 * MINUTE)).toMatchObject({ fired: 1, sent: 2 });
    expect(await tally.alerts.runDue(start + 2 * HOUR + 6 * MINUTE)).toMatchObject({ fired: 0, sent: 0 });

    await receiver.waitFor(2);
    await smtp.waitFor(2);
    expect(receiver.received).toHaveLength(2);
    expect(smtp.messages).toHaveLength(2);
    const second = verified(receiver.received[1]!, alert);
    expect(second).toMatchObject({ firing: 2, value: 3 });
    expect(second.id).not.toBe(payload.id);
    const log = await tally.alerts.deliveries(accountId, site);
    expect(log.map(({ firing, channel, status, attempts }) => ({ firing, channel, status, attempts }))).toEqual([
      { firing: 2, channel: "webhook", status: "sent", attempts: 1 },
      { firing: 2, channel: "email", status: "sent", attempts: 1 },
      { firing: 1, channel: "webhook", status: "sent", attempts: 1 },
      { firing: 1, channel: "email", status: "sent", attempts: 1 },
    ]);
    expect(log.find((row) => row.channel === "webhook" && row.firing === 1)!.uid).toBe(payload.id);
  });

  it("fires a spike, a silent site and a converted goal each once, in JSON and Slack's format", async () => {
    await freshTally();
    const check = NOW - 3 * HOUR;
    const spike = await tally.alerts.create(accountId, site, {
      kind: "spike",
      threshold: 2,
      webhook_url: receiver.url,
      webhook_format: "slack",
    });
    const silent = await tally.alerts.create(accountId, site, { kind: "no_pageviews", threshold: 20, email: "ops@shop.test" });
    await createdAt(silent, check - DAY);
    // The same hour last week: one visitor; this hour: two.
    await visitor(check - 7 * DAY - 30 * MINUTE);
    await visitor(check - 40 * MINUTE);
    await visitor(check - 30 * MINUTE);
    await tally.flush();
    expect(await tally.alerts.runDue(check)).toEqual({ checked: 2, fired: 2, sent: 2, failed: 0 });
    expect(await tally.alerts.runDue(check + 5 * MINUTE)).toEqual({ checked: 2, fired: 0, sent: 0, failed: 0 });

    const [slack] = await receiver.waitFor(1);
    verified(slack!, spike);
    expect(JSON.parse(slack!.body)).toEqual({
      text: `:rotating_light: shop.test: 2 visitors in the last hour, 2× the 1 of the same hour last week (alert at 2×). <${PUBLIC_URL}/#/websites/${site}|Open the dashboard>`,
    });
    const [mail] = await smtp.waitFor(1);
    expect(mail!.subject).toBe("Tally alert: shop.test: no pageview for 20 minutes.");
    // A pageview ends the silence; the next silence is a new firing.
    await visitor(check + 10 * MINUTE);
    await tally.flush();
    await tally.alerts.runDue(check + 11 * MINUTE);
    expect((await tally.alerts.get(accountId, site, silent.id)).state).toBe("ok");
    expect(await tally.alerts.runDue(check + 40 * MINUTE)).toMatchObject({ fired: 1 });
    await smtp.waitFor(2);

    // Goals: conversions since the rule was made, each counted in one check only (the spike paused: they would be one).
    expect(await tally.alerts.update(accountId, site, spike.id, { enabled: "0" })).toMatchObject({ enabled: 0, kind: "spike" });
    const goal = await tally.alerts.create(accountId, site, { kind: "goal", goal: "event:Signup", webhook_url: receiver.url });
    const pageGoal = await tally.alerts.create(accountId, site, { kind: "goal", goal: "page:/thanks*", webhook_url: receiver.url });
    const made = Date.now();
    await visitor(made, { url: "/signup", event: "Signup" });
    await visitor(made, { url: "/thanks/pro" });
    await tally.flush();
    expect(await tally.alerts.runDue(made + 10_000)).toMatchObject({ fired: 2, sent: 2 });
    await visitor(made + 15_000, { url: "/thanks/free" });
    await visitor(made + 16_000, { url: "/signup", event: "Signup" });
    await visitor(made + 17_000, { url: "/signup", event: "Signup" });
    await tally.flush();
    expect(await tally.alerts.runDue(made + 30_000)).toMatchObject({ fired: 2, sent: 2 });
    expect(await tally.alerts.runDue(made + 90_000)).toMatchObject({ fired: 0, sent: 0 });
    const goals = (await receiver.waitFor(5))
      .slice(1)
      .map((hook) => verified(hook, hook.body.includes(`"id":${goal.id},`) ? goal : pageGoal));
    expect(goals.map(({ alert, firing, value }) => [alert.id, firing, value])).toEqual([
      [goal.id, 1, 1],
      [pageGoal.id, 1, 1],
      [goal.id, 2, 2],
      [pageGoal.id, 2, 1],
    ]);
    expect(goals[2]!.text).toMatch(/^shop\.test: goal event:Signup converted by 2 visitors \(\d\d:\d\d UTC to \d\d:\d\d UTC\)\.$/);
    await sleep(200);
    expect(receiver.received).toHaveLength(5);
    expect(smtp.messages).toHaveLength(2);
  });

  it("retries a webhook whose receiver is down and delivers it once when it is back; the log says how it went", async () => {
    const failures: string[] = [];
    await freshTally({ alerts: { intervalMs: 100, retryMs: 200, maxRetryMs: 400 }, onError: (error) => failures.push(String(error)) });
    await receiver.down();
    const alert = await tally.alerts.create(accountId, site, { kind: "visitors", threshold: 1, webhook_url: receiver.url });
    await visitor(Date.now());
    await tally.flush();
    // The scheduler checks every 100 ms: the alert fires and its delivery is refused, retried at 200, 400, 400… ms.
    // Read between two attempts (during one the delivery is "sending").
    const waiting = await waitForDeliveries((rows) => rows[0]?.status === "pending" && rows[0].attempts >= 3);
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ status: "pending", last_error: "ECONNREFUSED" });
    expect(waiting[0]!.attempts).toBeGreaterThanOrEqual(3);
    await receiver.up();
    const [webhook] = await receiver.waitFor(1);
    await sleep(600);
    expect(receiver.received).toHaveLength(1);
    expect(verified(webhook!, alert)).toMatchObject({ firing: 1, id: waiting[0]!.uid });
    const [sent] = await tally.alerts.deliveries(accountId, site);
    expect(sent).toMatchObject({ status: "sent", last_error: null, next_attempt_at: null });
    expect(sent!.attempts).toBeGreaterThan(waiting[0]!.attempts);
    expect(
      failures.some((line) =>
        line.includes(`alert delivery ${sent!.id} (webhook to ${receiver.url}, attempt 1 (retrying in 0.2 s)): ECONNREFUSED`),
      ),
    ).toBe(true);
  });

  it("sends each firing once when three instances on the database check at the same moment", async () => {
    await freshTally();
    const others = [createTally({ ...options(), database: stored.url }), createTally({ ...options(), database: stored.url })];
    try {
      await tally.alerts.create(accountId, site, { kind: "visitors", threshold: 2, email: "ops@shop.test", webhook_url: receiver.url });
      await tally.alerts.create(accountId, site, { kind: "goal", goal: "event:Signup", webhook_url: receiver.url });
      const at = Date.now();
      await visitor(at - MINUTE);
      await visitor(at, { url: "/signup", event: "Signup" });
      await tally.flush();
      const instances = [tally, ...others];
      for (const later of [20_000, 40_000, 60_000, 80_000]) {
        const results = await Promise.all(instances.map((instance) => instance.alerts.runDue(at + later)));
        const total = (key: "checked" | "fired" | "sent") => results.reduce((sum, result) => sum + result[key], 0);
        expect(total("checked"), `${later} ms`).toBe(2);
        expect(total("fired")).toBe(later === 20_000 ? 2 : 0);
        expect(total("sent")).toBe(later === 20_000 ? 3 : 0);
      }
      await receiver.waitFor(2);
      await smtp.waitFor(1);
      await sleep(200);
      expect(receiver.received).toHaveLength(2);
      expect(smtp.messages).toHaveLength(1);
    } finally {
      await Promise.all(others.map((other) => other.close()));
    }
  });
});
