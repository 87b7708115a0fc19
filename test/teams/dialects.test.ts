/**
 * The team's storage on every dialect (SQLite and PostgreSQL, real servers): the
 * migration keeps the account key working, and users, sessions, single-use tokens,
 * two-factor steps and removal behave the same through HTTP on both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHEAP_PASSWORDS, PASSWORD, postForm, sessionFrom, totpCode, withKey, withSession } from "./support.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;

describe.each(DIALECTS)("a team on %s", (dialect) => {
  let stored: TestTally;
  let served: Served;
  let key = "";

  beforeAll(async () => {
    stored = await createTestTally(dialect, { passwords: CHEAP_PASSWORDS });
    ({ key } = await stored.tally.accounts.create({ name: "acme" }));
    served = await nodeHttp.serve(stored.tally);
  });
  afterAll(async () => {
    await served.close();
    await stored.dispose();
  });

  it("signs up the owner, invites a viewer once, enforces the role, two-factor once, and removal", async () => {
    expect((await withKey(served, key, "GET", "/api/v1/me")).body.data).toMatchObject({ role: "owner", scope: "write" });
    const signup = await postForm(served, "/signup", {
      key,
      email: "owner@acme.test",
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    const owner = sessionFrom(signup)!;
    const invited = await withSession(served, owner, "POST", "/api/v1/users/invitations", { email: "viewer@acme.test", role: "viewer" });
    const token = new URL((invited.body.data as { link: string }).link).searchParams.get("token")!;
    const accepted = await postForm(served, "/invite", { token, password: PASSWORD, password_confirmation: PASSWORD });
    expect((await postForm(served, "/invite", { token, password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(410);
    const viewer = sessionFrom(accepted)!;
    expect((await withSession(served, viewer, "POST", "/api/v1/websites", { domain: "acme.test" })).status).toBe(403);

    const { secret } = (await withSession(served, viewer, "POST", "/api/v1/me/two-factor")).body.data as { secret: string };
    expect((await withSession(served, viewer, "POST", "/api/v1/me/two-factor/confirm", { code: totpCode(secret, -1) })).status).toBe(200);
    const code = totpCode(secret, 1);
    const pending = sessionFrom(await postForm(served, "/login", { email: "viewer@acme.test", password: PASSWORD }))!;
    expect((await postForm(served, "/login-code", { code }, pending)).status).toBe(303);
    const again = sessionFrom(await postForm(served, "/login", { email: "viewer@acme.test", password: PASSWORD }))!;
    expect((await postForm(served, "/login-code", { code }, again)).status).toBe(401);

    const users = (await withSession(served, owner, "GET", "/api/v1/users")).body.data as { id: number; email: string }[];
    const viewerId = users.find((user) => user.email === "viewer@acme.test")!.id;
    expect((await withSession(served, owner, "DELETE", `/api/v1/users/${viewerId}`)).status).toBe(200);
    expect((await withSession(served, viewer, "GET", "/api/v1/me")).status).toBe(401);
    const rows = await stored.sql<{ n: number | string }>("select count(*) as n from sessions");
    // The owner's session only: the viewer's went with them.
    expect(Number(rows[0]!.n)).toBe(1);
  });
});
