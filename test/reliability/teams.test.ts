/**
 * Issue 28's reliability proofs for people and sessions: a viewer's key (and any read
 * key) is refused on every route that changes something, a session cookie is refused on
 * every state-changing route when the request comes from another site (or as a form),
 * and nothing was written by any refused request. The route lists come from the route
 * table itself, so a new write route is covered the day it is added.
 */
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { permissionOf } from "../../packages/server/src/permissions.js";
import { routes } from "../../packages/server/src/routes.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { PASSWORD, signIn, withKey } from "../teams/support.js";
import { snapshotTables } from "./support.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;
const apiRoutes = routes.filter((route) => route.auth === "account");
const changing = apiRoutes.filter((route) => route.method !== "GET");
const writeRoutes = changing.filter((route) => ["write", "owner"].includes(permissionOf(route)));

describe("roles, scopes and cookies on every route", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let websiteId = 0;
  let otherUserId = 0;
  let ownerSession = "";
  const keys: Record<string, string> = {};

  /** `{id}` filled with something that exists, so a refusal is about permission, not a missing thing. */
  const pathOf = (path: string) => path.replace("{id}", String(path.startsWith("/api/v1/users") ? otherUserId : websiteId));

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    const { accountId } = await tally.accounts.create({ name: "acme" });
    websiteId = (await tally.websites.create(accountId, { domain: "acme.test" })).id;
    const owner = await tally.team.users.add(accountId, { email: "owner@acme.test", password: PASSWORD, role: "owner" });
    const viewer = await tally.team.users.add(accountId, { email: "viewer@acme.test", password: PASSWORD, role: "viewer" });
    otherUserId = (await tally.team.users.add(accountId, { email: "admin@acme.test", role: "admin" })).id;
    keys.viewerWrite = (await tally.team.users.createKey(viewer.id, { name: "v", scope: "write" })).key;
    keys.ownerRead = (await tally.team.users.createKey(owner.id, { name: "r", scope: "read" })).key;
    served = await nodeHttp.serve(tally);
    ownerSession = await signIn(served, "owner@acme.test", PASSWORD);
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("covers the write routes the table has", () => {
    expect(writeRoutes.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(["POST /api/v1/websites", "PUT /api/v1/websites/{id}", "DELETE /api/v1/websites/{id}", "PUT /api/v1/account", "POST /api/v1/users/invitations", "DELETE /api/v1/users/{id}"]),
    );
  });

  it.each([
    ["a viewer's write-scoped key", "viewerWrite"],
    ["an owner's read key", "ownerRead"],
  ])("refuses %s on every write route with 403 and a clear message, changing nothing", async (_name, which) => {
    const before = snapshotTables(fixture.file);
    for (const route of writeRoutes) {
      const answer = await withKey(served, keys[which]!, route.method, pathOf(route.path), { domain: "x.test", role: "viewer", email: "x@acme.test", privacy: 0, required: true });
      expect({ route: `${route.method} ${route.path}`, status: answer.status }).toEqual({ route: `${route.method} ${route.path}`, status: 403 });
      expect(answer.body.message).toMatch(/can only read|Only an owner/);
    }
    expect(snapshotTables(fixture.file)).toEqual(before);
    // Reading still works.
    expect((await withKey(served, keys[which]!, "GET", `/api/v1/websites/${websiteId}`)).status).toBe(200);
  });

  it("refuses a session cookie on every state-changing route from another site, or as a form, changing nothing", async () => {
    const before = snapshotTables(fixture.file);
    for (const route of changing) {
      const path = pathOf(route.path);
      const crossSite = await served.fetch(path, {
        method: route.method,
        headers: { cookie: `tally_session=${ownerSession}`, "sec-fetch-site": "cross-site", "content-type": "application/json" },
        body: JSON.stringify({ domain: "evil.test", email: "evil@evil.test" }),
      });
      expect({ route: `${route.method} ${route.path}`, status: crossSite.status }).toEqual({ route: `${route.method} ${route.path}`, status: 403 });
      // A browser without Fetch Metadata: its Origin says where the form was.
      const otherOrigin = await served.fetch(path, { method: route.method, headers: { cookie: `tally_session=${ownerSession}`, origin: "https://evil.example", "content-type": "application/json" }, body: "{}" });
      expect(otherOrigin.status).toBe(403);
      const formBody = await served.fetch(path, {
        method: route.method,
        headers: { cookie: `tally_session=${ownerSession}`, "sec-fetch-site": "same-origin", "content-type": "application/x-www-form-urlencoded" },
        body: "domain=evil.test&email=evil%40evil.test",
      });
      expect({ route: `${route.method} ${route.path}`, status: formBody.status }).toEqual({ route: `${route.method} ${route.path}`, status: 415 });
    }
    for (const path of ["/login", "/login-code", "/logout", "/signup", "/forgot-password", "/reset-password", "/invite"]) {
      const response = await served.fetch(path, {
        method: "POST",
        headers: { cookie: `tally_session=${ownerSession}`, origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
        body: "email=owner%40acme.test&password=x",
        redirect: "manual",
      });
      expect({ path, status: response.status }).toEqual({ path, status: 403 });
    }
    expect(snapshotTables(fixture.file)).toEqual(before);
    // The session itself was not signed out by the forged /logout.
    expect((await served.fetch("/api/v1/me", { headers: { cookie: `tally_session=${ownerSession}` } })).status).toBe(200);
  });
});
