// Two real `tally serve` processes on one PostgreSQL database, each checking the alert rules
// every 200 ms: a firing reaches the webhook receiver and the SMTP server once, not once per process.
import type { Alert } from "@tally-analytics/core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../support/databases.js";
import { startSmtp, type TestSmtp } from "../support/smtp.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";
import { assertCliBuilt, generateVisitors, postHit, spawnServe, type ServeProcess } from "../postgres/cluster.js";

const API_KEY = "tally_test_alerts_0123456789abcdefghijKLMN";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!DIALECTS.includes("postgres"))("alerts from two tally serve processes on one PostgreSQL database", () => {
  let database: TestDatabase;
  let smtp: TestSmtp;
  let receiver: WebhookReceiver;
  const servers: ServeProcess[] = [];

  const api = async (server: ServeProcess, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as { data: unknown; status: number };
  };

  beforeAll(async () => {
    assertCliBuilt();
    database = await createTestDatabase("postgres");
    smtp = await startSmtp();
    receiver = await startWebhookReceiver();
    const env = {
      DATABASE_URL: database.url,
      TALLY_API_KEY: API_KEY,
      ALERT_INTERVAL_MS: "200",
      SMTP_URL: smtp.url,
      MAIL_FROM: "Tally <alerts@tally.test>",
    };
    servers.push(...(await Promise.all([spawnServe(env), spawnServe(env)])));
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await receiver?.close();
    await smtp?.close();
    await database?.dispose();
  });

  it("sends a firing once by e-mail and once by webhook, though both processes check the rules", async () => {
    const [a, b] = servers as [ServeProcess, ServeProcess];
    const website = (await api(a, "POST", "/api/v1/websites", { domain: "cluster.test" })).data as { id: number };
    const alert = (
      await api(b, "POST", `/api/v1/websites/${website.id}/alerts`, {
        kind: "visitors",
        threshold: 4,
        email: "ops@cluster.test",
        webhook_url: receiver.url,
      })
    ).data as Alert;
    // Four visitors, their pageviews taken by one process or the other.
    for (const [index, visitor] of generateVisitors(47, 4).entries()) {
      await postHit(index % 2 === 0 ? a.base : b.base, "https://cluster.test", visitor, { ...visitor.hits[0]!, event: null, props: null });
    }
    const [webhook] = await receiver.waitFor(1, 15_000);
    const [mail] = await smtp.waitFor(1, 15_000);
    // Many more checks by both: nothing more.
    await sleep(2000);
    expect(receiver.received).toHaveLength(1);
    expect(smtp.messages).toHaveLength(1);
    const headers = Object.fromEntries(
      ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, String(webhook!.headers[name])]),
    );
    expect(new Webhook(alert.webhook_secret).verify(webhook!.body, headers)).toMatchObject({ firing: 1, value: 4 });
    expect(mail!.subject).toBe("Tally alert: cluster.test: 4 visitors in the last hour (alert at 4 or more).");
    const log = (await api(a, "GET", `/api/v1/websites/${website.id}/alert-deliveries`)).data as { status: string; attempts: number }[];
    expect(log.map(({ status, attempts }) => [status, attempts])).toEqual([
      ["sent", 1],
      ["sent", 1],
    ]);
    expect(((await api(b, "GET", `/api/v1/websites/${website.id}/alerts`)).data as Alert[])[0]).toMatchObject({
      firings: 1,
      state: "firing",
    });
  });
});
