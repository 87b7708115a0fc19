// Alert rules through the API (real node:http, every answer held to the OpenAPI document) and
// through the CLI (the built binary, on the same SQLite file): made by JSON or form, checked
// field by field (422 naming each, nothing changed), listed, changed, deleted; admins and
// owners only; another account's website is a 404; the delivery log reads back what was sent.
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, expectInvalid, expectJson, form, jsonBody, type ApiClient } from "../support/api-client.js";
import { assertBuilt, emptyDirectory, lines, removeDirectories, tally as cli } from "../cli/support.js";
import { runSql } from "../support/databases.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

describe("alert rules", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let receiver: WebhookReceiver;
  let owner: ApiClient;
  let viewer: ApiClient;
  let stranger: ApiClient;
  let site = 0;
  let other = 0;
  let database = "";

  beforeAll(async () => {
    assertBuilt();
    receiver = await startWebhookReceiver();
    fixture = createTempTally({ alerts: { intervalMs: 0 } });
    tally = fixture.tally;
    database = `file:${fixture.file}`;
    const { accountId, key } = await tally.accounts.create({ name: "shop" });
    site = (await tally.websites.create(accountId, { domain: "shop.test" })).id;
    other = (await tally.websites.create(accountId, { domain: "other.test" })).id;
    const user = await tally.team.users.add(accountId, { email: "viewer@shop.test", role: "viewer" });
    const viewerKey = (await tally.team.users.createKey(user.id, { name: "read", scope: "read" })).key;
    const strangerKey = (await tally.accounts.create({ name: "stranger" })).key;
    served = await nodeHttp.serve(tally);
    owner = apiClient(served, key);
    viewer = apiClient(served, viewerKey);
    stranger = apiClient(served, strangerKey);
  });
  afterAll(async () => {
    await served?.close();
    await fixture?.dispose();
    await receiver?.close();
    removeDirectories();
  });

  it("makes rules by JSON and by form, with each kind's default threshold and a signing key", async () => {
    const made = await owner.post(
      `/api/v1/websites/${site}/alerts`,
      jsonBody({ kind: "visitors", threshold: 100, email: "ops@shop.test", webhook_url: receiver.url }),
    );
    expectJson(made, 201);
    expect(made.body.data).toMatchObject({
      website_id: site,
      kind: "visitors",
      threshold: 100,
      goal: "",
      email: "ops@shop.test",
      webhook_url: receiver.url,
      webhook_format: "json",
      enabled: 1,
      state: "ok",
      firings: 0,
    });
    expect((made.body.data as { webhook_secret: string }).webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const byForm = await owner.post(
      `/api/v1/websites/${site}/alerts`,
      form({ kind: "goal", goal: "event:Signup", webhook_url: receiver.url, webhook_format: "slack" }),
    );
    expectJson(byForm, 201);
    expect(byForm.body.data).toMatchObject({ kind: "goal", threshold: 1, goal: "event:Signup", email: "", webhook_format: "slack" });
    const spike = await owner.post(`/api/v1/websites/${site}/alerts`, jsonBody({ kind: "spike", email: "ops@shop.test" }));
    expect(spike.body.data).toMatchObject({ kind: "spike", threshold: 3 });
    const silent = await owner.post(
      `/api/v1/websites/${site}/alerts`,
      form({ kind: "no_pageviews", threshold: "45", email: "ops@shop.test" }),
    );
    expect(silent.body.data).toMatchObject({ kind: "no_pageviews", threshold: 45 });

    const list = await owner.get(`/api/v1/websites/${site}/alerts`);
    expectJson(list, 200);
    expect((list.body.data as { kind: string }[]).map((alert) => alert.kind)).toEqual(["visitors", "goal", "spike", "no_pageviews"]);
    expect((await owner.get(`/api/v1/websites/${other}/alerts`)).body.data).toEqual([]);
  });

  it("refuses bad rules with a 422 naming each field, and stores nothing", async () => {
    const before = (await owner.get(`/api/v1/websites/${site}/alerts`)).body.data as unknown[];
    const post = (body: Record<string, unknown>) => owner.post(`/api/v1/websites/${site}/alerts`, jsonBody(body));
    expectInvalid(await post({ kind: "traffic", email: "ops@shop.test" }), { kind: ["The selected kind is invalid."] });
    expectInvalid(await post({ email: "ops@shop.test" }), { kind: ["The kind field is required."] });
    expectInvalid(await post({ kind: "visitors", email: "ops@shop.test" }), { threshold: ["The threshold field is required (visitors)."] });
    expectInvalid(await post({ kind: "visitors", threshold: 2.5, email: "ops@shop.test" }), {
      threshold: ["The threshold of a visitors rule must be a whole number from 1 to 100000000 (visitors)."],
    });
    expectInvalid(await post({ kind: "spike", threshold: "lots", email: "ops@shop.test" }), {
      threshold: ["The threshold must be a number."],
    });
    expectInvalid(await post({ kind: "goal", email: "ops@shop.test" }), { goal: ["The goal field is required for a goal rule."] });
    expectInvalid(await post({ kind: "goal", goal: "signup", email: "ops@shop.test" }), {
      goal: ["The goal must be event:<name> or page:<pattern>, 1 to 200 characters after the colon."],
    });
    expectInvalid(await post({ kind: "visitors", threshold: 5, goal: "event:Signup", email: "ops@shop.test" }), {
      goal: ["Only a goal rule has a goal."],
    });
    expectInvalid(await post({ kind: "visitors", threshold: 5 }), { email: ["An alert needs an email, a webhook url, or both."] });
    expectInvalid(
      await post({ kind: "visitors", threshold: 5, email: "not an address", webhook_url: "ftp://hooks.test/x", webhook_format: "xml" }),
      {
        email: ["The email must be a valid email address."],
        webhook_url: ["The webhook url must be an http:// or https:// URL."],
        webhook_format: ["The selected webhook format is invalid."],
      },
    );
    expect((await owner.get(`/api/v1/websites/${site}/alerts`)).body.data).toEqual(before);
  });

  it("changes a rule partly, checks it whole, and deletes it", async () => {
    const [first] = (await owner.get(`/api/v1/websites/${site}/alerts`)).body.data as { id: number; webhook_secret: string }[];
    const changed = await owner.put(`/api/v1/websites/${site}/alerts/${first!.id}`, jsonBody({ threshold: 50, enabled: 0 }));
    expectJson(changed, 200);
    expect(changed.body.data).toMatchObject({
      id: first!.id,
      threshold: 50,
      enabled: 0,
      email: "ops@shop.test",
      webhook_secret: first!.webhook_secret,
    });
    expectInvalid(await owner.put(`/api/v1/websites/${site}/alerts/${first!.id}`, jsonBody({ email: "", webhook_url: "" })), {
      email: ["An alert needs an email, a webhook url, or both."],
    });
    expectInvalid(await owner.put(`/api/v1/websites/${site}/alerts/${first!.id}`, jsonBody({ kind: "goal" })), {
      goal: ["The goal field is required for a goal rule."],
    });
    expect((await owner.get(`/api/v1/websites/${site}/alerts`)).body.data).toContainEqual(changed.body.data);
    // Another website's rule, a malformed id, a missing one: 404.
    expectJson(await owner.put(`/api/v1/websites/${other}/alerts/${first!.id}`, jsonBody({ threshold: 5 })), 404);
    expectJson(await owner.put(`/api/v1/websites/${site}/alerts/abc`, jsonBody({ threshold: 5 })), 404);
    const deleted = await owner.delete(`/api/v1/websites/${site}/alerts/${first!.id}`);
    expectJson(deleted, 200);
    expect(deleted.body).toEqual({ id: first!.id, object: "alert", deleted: true, status: 200 });
    expectJson(await owner.delete(`/api/v1/websites/${site}/alerts/${first!.id}`), 404);
  });

  it("is for admins and owners: a viewer's key is refused, another account's website is missing", async () => {
    expectJson(await viewer.get(`/api/v1/websites/${site}/alerts`), 403);
    expectJson(await viewer.post(`/api/v1/websites/${site}/alerts`, jsonBody({ kind: "visitors", threshold: 1, email: "a@b.test" })), 403);
    expectJson(await viewer.get(`/api/v1/websites/${site}/alert-deliveries`), 403);
    expectJson(await stranger.get(`/api/v1/websites/${site}/alerts`), 404);
    expectJson(
      await stranger.post(`/api/v1/websites/${site}/alerts`, jsonBody({ kind: "visitors", threshold: 1, email: "a@b.test" })),
      404,
    );
    expectJson(await stranger.get(`/api/v1/websites/${site}/alert-deliveries`), 404);
  });

  it("shows what was sent in the delivery log, newest first, for one rule or all", async () => {
    const goal = ((await owner.get(`/api/v1/websites/${site}/alerts`)).body.data as { id: number; kind: string }[]).find(
      (a) => a.kind === "goal",
    )!;
    const made = Date.now();
    await tally.collect({ url: "https://shop.test/signup", event: "Signup", ip: "203.0.113.5", userAgent: CHROME });
    await tally.flush();
    expect(await tally.alerts.runDue(made + 10_000)).toMatchObject({ fired: 1, sent: 1 });
    const [webhook] = await receiver.waitFor(1);
    expect(JSON.parse(webhook!.body)).toEqual({
      text: expect.stringMatching(/^:rotating_light: shop\.test: goal event:Signup converted by 1 visitor /),
    });
    const log = await owner.get(`/api/v1/websites/${site}/alert-deliveries`);
    expectJson(log, 200);
    expect(log.body.data).toEqual([
      expect.objectContaining({
        alert_id: goal.id,
        firing: 1,
        channel: "webhook",
        target: receiver.url,
        uid: webhook!.headers["webhook-id"],
        status: "sent",
        attempts: 1,
        last_error: null,
        next_attempt_at: null,
      }),
    ]);
    expect((await owner.get(`/api/v1/websites/${site}/alert-deliveries?alert=${goal.id}&limit=1`)).body.data).toEqual(log.body.data);
    expect((await owner.get(`/api/v1/websites/${site}/alert-deliveries?alert=999`)).body.data).toEqual([]);
    expectInvalid(await owner.get(`/api/v1/websites/${site}/alert-deliveries?limit=0`), {
      limit: ["The limit must be a whole number from 1 to 200."],
    });
  });

  it("manages rules from the command line, on the same database", async () => {
    const cwd = emptyDirectory();
    const env = { DATABASE_URL: database };
    const added = await cli(
      ["alerts", "add", String(other), "--kind", "visitors", "--threshold", "20", "--webhook-url", receiver.url],
      cwd,
      env,
    );
    expect(added).toMatchObject({ code: 0, stderr: "" });
    const [line, key] = lines(added.stdout);
    const id = /^Added alert (\d+) of other\.test: visitors 20, to webhook http:\/\/127\.0\.0\.1:\d+\/hook \(json\)\.$/.exec(line!)?.[1];
    expect(id, added.stdout).toBeDefined();
    expect(key).toMatch(/^Webhook signing key: whsec_/);
    const updated = await cli(["alerts", "update", String(other), id!, "--enabled", "0", "--email", "ops@shop.test"], cwd, env);
    expect(updated.stdout).toContain("(disabled)");
    const listed = await cli(["alerts", "list", String(other)], cwd, env);
    expect(lines(listed.stdout)).toEqual([
      "ID  RULE         STATE     FIRED  TO",
      expect.stringMatching(
        new RegExp(`^${id} +visitors 20 +disabled +0 +e-mail ops@shop\\.test, webhook http://127\\.0\\.0\\.1:\\d+/hook \\(json\\)$`),
      ),
    ]);
    const refused = await cli(["alerts", "add", String(other), "--kind", "goal", "--email", "ops@shop.test"], cwd, env);
    expect(refused).toMatchObject({ code: 2, stderr: "tally alerts add: The goal field is required for a goal rule.\n" });
    const log = await cli(["alerts", "deliveries", String(site)], cwd, env);
    expect(lines(log.stdout)[1]).toMatch(/ sent +1 +shop\.test: goal event:Signup converted by 1 visitor/);
    expect((await cli(["alerts", "delete", String(other), id!], cwd, env)).stdout).toBe(`Deleted alert ${id} of other.test.\n`);
    expect((await cli(["alerts", "list", String(other)], cwd, env)).stdout).toBe(
      `No alert rules on other.test yet (tally alerts add ${other} --kind …).\n`,
    );
  });

  it("goes with its website", async () => {
    await tally.websites.delete((await tally.accounts.list())[0]!.id, site);
    expect(await runSql("sqlite", database, "select count(*) as n from alert_rules")).toEqual([{ n: 0 }]);
    expect(await runSql("sqlite", database, "select count(*) as n from alert_deliveries")).toEqual([{ n: 0 }]);
  });
});
