/**
 * Roles, website limits and removal through the API; the host's own
 * `authenticate` hook may say a role and websites too. Real node:http, real SQLite.
 */
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHEAP_PASSWORDS, PASSWORD, postForm, sessionFrom, signIn, withKey, withSession } from "./support.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;

describe("roles and website limits", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let accountId = 0;
  let ownerKey = "";
  const sites: number[] = [];

  beforeAll(async () => {
    fixture = createTempTally({ passwords: CHEAP_PASSWORDS });
    tally = fixture.tally;
    ({ accountId, key: ownerKey } = await tally.accounts.create({ name: "agency" }));
    for (const domain of ["one.test", "two.test"]) sites.push((await tally.websites.create(accountId, { domain })).id);
    served = await nodeHttp.serve(tally);
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("invites a client limited to one website (the link comes back without mail), who then sees only it", async () => {
    const invited = await withKey(served, ownerKey, "POST", "/api/v1/users/invitations", {
      email: "client@one.test",
      role: "viewer",
      websites: [sites[0]],
    });
    expect(invited.status).toBe(201);
    const { link, sent } = invited.body.data as { link: string; sent: boolean };
    expect(sent).toBe(false);
    const token = new URL(link).searchParams.get("token")!;
    const page = await served.fetch(`/invite?token=${token}`);
    expect(await page.text()).toContain("client@one.test");
    const mismatch = await postForm(served, "/invite", { token, password: PASSWORD, password_confirmation: "something else entirely" });
    expect(mismatch.status).toBe(422);
    const accepted = await postForm(served, "/invite", { token, password: PASSWORD, password_confirmation: PASSWORD });
    expect(accepted.status).toBe(303);
    const session = sessionFrom(accepted)!;
    // Used once: the same link now leads nowhere.
    expect((await postForm(served, "/invite", { token, password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(410);

    const list = await withSession(served, session, "GET", "/api/v1/websites");
    expect((list.body.data as { domain: string }[]).map((site) => site.domain)).toEqual(["one.test"]);
    expect((list.body.meta as { total: number }).total).toBe(1);
    expect((await withSession(served, session, "GET", `/api/v1/websites/${sites[1]}`)).status).toBe(404);
    expect((await withSession(served, session, "GET", `/api/v1/stats/${sites[1]}/totals?from=2026-01-01&to=2026-01-31`)).status).toBe(404);
    expect((await withSession(served, session, "GET", `/api/v1/stats/${sites[0]}/totals?from=2026-01-01&to=2026-01-31`)).status).toBe(200);
    const write = await withSession(served, session, "PUT", `/api/v1/websites/${sites[0]}`, { privacy: 0 });
    expect(write).toMatchObject({ status: 403, body: { message: expect.stringContaining("can only read") } });
  });

  it("lets an owner change a role (effective at the next request) and keeps one owner", async () => {
    const users = (await withKey(served, ownerKey, "GET", "/api/v1/users")).body.data as { id: number; email: string }[];
    const client = users.find((user) => user.email === "client@one.test")!;
    const session = await signIn(served, "client@one.test", PASSWORD);
    expect((await withSession(served, session, "POST", "/api/v1/websites", { domain: "three.test" })).status).toBe(403);
    const changed = await withKey(served, ownerKey, "PUT", `/api/v1/users/${client.id}`, { role: "admin", websites: null });
    expect(changed.body.data).toMatchObject({ role: "admin", websites: null });
    expect((await withSession(served, session, "POST", "/api/v1/websites", { domain: "three.test" })).status).toBe(201);
    // Admins manage websites, not people.
    expect((await withSession(served, session, "GET", "/api/v1/users")).status).toBe(403);
    expect((await withKey(served, ownerKey, "PUT", `/api/v1/users/${client.id}`, { role: "owner" })).status).toBe(200);
    // The only owner among the users cannot step down, nor be removed.
    const stepDown = await withSession(served, session, "PUT", `/api/v1/users/${client.id}`, { role: "viewer" });
    expect(stepDown).toMatchObject({ status: 422, body: { errors: { role: ["An account needs at least one owner."] } } });
    expect((await withKey(served, ownerKey, "DELETE", `/api/v1/users/${client.id}`)).status).toBe(422);
  });

  it("removes a user: their session and keys are refused at the next request", async () => {
    const viewer = await tally.team.users.add(accountId, { email: "leaving@one.test", password: PASSWORD, role: "viewer" });
    const session = await signIn(served, "leaving@one.test", PASSWORD);
    const key = await withSession(served, session, "POST", "/api/v1/me/keys", { name: "laptop", scope: "read" });
    expect(key.status).toBe(201);
    const keyText = (key.body.data as { key: string }).key;
    expect((await withKey(served, keyText, "GET", "/api/v1/websites")).status).toBe(200);
    expect((await withKey(served, ownerKey, "DELETE", `/api/v1/users/${viewer.id}`)).status).toBe(200);
    expect((await withSession(served, session, "GET", "/api/v1/websites")).status).toBe(401);
    expect((await withKey(served, keyText, "GET", "/api/v1/websites")).status).toBe(401);
  });

  it("enforces what the host's authenticate hook says: role and websites", async () => {
    const hooked = await nodeHttp.serve(tally, {
      authenticate: (request) => (request.headers.get("x-user") === "viewer" ? { accountId, role: "viewer", websites: [sites[1]!] } : null),
    });
    try {
      const headers = { "x-user": "viewer", "sec-fetch-site": "same-origin", "content-type": "application/json" };
      const list = await hooked.fetch("/api/v1/websites", { headers });
      expect(((await list.json()) as { data: { domain: string }[] }).data.map((site) => site.domain)).toEqual(["two.test"]);
      expect((await hooked.fetch(`/api/v1/websites/${sites[0]}`, { headers })).status).toBe(404);
      const write = await hooked.fetch(`/api/v1/websites/${sites[1]}`, { method: "DELETE", headers });
      expect(write.status).toBe(403);
    } finally {
      await hooked.close();
    }
  });
});
