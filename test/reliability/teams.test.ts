/**
 * The reliability proofs for people and sessions: a viewer's key (and any read
 * key) is refused on every route that changes something, a session cookie is refused on
 * every state-changing route when the request comes from another site (or as a form),
 * and nothing was written by any refused request. The route lists come from the route
 * table itself, so a new write route is covered the day it is added.
 */
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { permissionOf, routes } from "@tally-analytics/server/internal";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHEAP_PASSWORDS, PASSWORD, postForm, sessionFrom, signIn, totpCode, withKey } from "../teams/support.js";
import { snapshotTables } from "./support.js";
import type * as NodeCrypto from "node:crypto";

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
    fixture = createTempTally({ passwords: CHEAP_PASSWORDS });
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
      expect.arrayContaining([
        "POST /api/v1/websites",
        "PUT /api/v1/websites/{id}",
        "DELETE /api/v1/websites/{id}",
        "PUT /api/v1/account",
        "POST /api/v1/users/invitations",
        "DELETE /api/v1/users/{id}",
      ]),
    );
  });

  it.each([
    ["a viewer's write-scoped key", "viewerWrite"],
    ["an owner's read key", "ownerRead"],
  ])("refuses %s on every write route with 403 and a clear message, changing nothing", async (_name, which) => {
    const before = snapshotTables(fixture.file);
    for (const route of writeRoutes) {
      const answer = await withKey(served, keys[which]!, route.method, pathOf(route.path), {
        domain: "x.test",
        role: "viewer",
        email: "x@acme.test",
        privacy: 0,
        required: true,
      });
      expect({ route: `${route.method} ${route.path}`, status: answer.status }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 403,
      });
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
      expect({ route: `${route.method} ${route.path}`, status: crossSite.status }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 403,
      });
      // A browser without Fetch Metadata: its Origin says where the form was.
      const otherOrigin = await served.fetch(path, {
        method: route.method,
        headers: { cookie: `tally_session=${ownerSession}`, origin: "https://evil.example", "content-type": "application/json" },
        body: "{}",
      });
      expect(otherOrigin.status).toBe(403);
      const formBody = await served.fetch(path, {
        method: route.method,
        headers: {
          cookie: `tally_session=${ownerSession}`,
          "sec-fetch-site": "same-origin",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "domain=evil.test&email=evil%40evil.test",
      });
      expect({ route: `${route.method} ${route.path}`, status: formBody.status }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 415,
      });
    }
    for (const path of ["/login", "/login-code", "/logout", "/signup", "/forgot-password", "/reset-password", "/invite"]) {
      const response = await served.fetch(path, {
        method: "POST",
        headers: {
          cookie: `tally_session=${ownerSession}`,
          origin: "https://evil.example",
          "content-type": "application/x-www-form-urlencoded",
        },
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

/**
 * User enumeration by timing, proven without timing anything: every password check, for
 * an address with a user or without, runs exactly one scrypt derivation with the same
 * cost parameters (the unknown address is checked against a decoy hash), and the answers
 * are byte for byte the same. Counted by wrapping node:crypto's scrypt itself.
 */
describe("no user enumeration", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let served: Served;
  const derivations: { N: number; r: number; p: number }[] = [];
  let restore = () => {};

  beforeAll(async () => {
    const { createRequire, syncBuiltinESMExports } = await import("node:module");
    const crypto = createRequire(import.meta.url)("node:crypto") as typeof NodeCrypto;
    const original = crypto.scrypt;
    crypto.scrypt = ((...args: Parameters<typeof original>) => {
      const options = args[3] as { N: number; r: number; p: number };
      derivations.push({ N: options.N, r: options.r, p: options.p });
      return (original as (...a: unknown[]) => void)(...args);
    }) as typeof original;
    syncBuiltinESMExports();
    restore = () => {
      crypto.scrypt = original;
      syncBuiltinESMExports();
    };
    fixture = createTempTally();
    const { accountId } = await fixture.tally.accounts.create();
    await fixture.tally.team.users.add(accountId, { email: "real@acme.test", password: PASSWORD, role: "viewer" });
    // A user invited through single sign-on has no password: checked against the decoy too.
    await fixture.tally.team.users.add(accountId, { email: "sso-only@acme.test", role: "viewer" });
    served = await nodeHttp.serve(fixture.tally);
  });
  afterAll(async () => {
    restore();
    await served.close();
    await fixture.dispose();
  });

  it("does the same work and says the same words for a wrong password, a user without one, and no user", async () => {
    const answers: string[] = [];
    const work: (typeof derivations)[] = [];
    for (const email of ["real@acme.test", "sso-only@acme.test", "nobody@acme.test", "NOBODY-ELSE@acme.test"]) {
      // The decoy is made once, lazily: let the first unknown address make it, then count.
      await served.fetch("/login", {
        method: "POST",
        body: new URLSearchParams({ email: `warm-${email}`, password: "x" }),
        headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(served.base).origin },
      });
      derivations.length = 0;
      const response = await served.fetch("/login", {
        method: "POST",
        body: new URLSearchParams({ email, password: "not the password at all" }),
        headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(served.base).origin },
        redirect: "manual",
      });
      expect(response.status).toBe(401);
      answers.push((await response.text()).replace(/value="[^"]*"/g, ""));
      work.push([...derivations]);
    }
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toContain("These credentials do not match our records.");
    for (const each of work) expect(each).toEqual([{ N: 2 ** 15, r: 8, p: 3 }]);
  });
});

/**
 * Single use under races: the same reset link, or the same two-factor code, sent twice
 * at once (a double click, an attacker racing the owner) works exactly once; and a
 * session token planted in the browser before sign-in is never the one signed in.
 */
describe("single use, even at once", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let userId = 0;

  beforeAll(async () => {
    fixture = createTempTally({ passwords: CHEAP_PASSWORDS });
    tally = fixture.tally;
    const { accountId } = await tally.accounts.create();
    userId = (await tally.team.users.add(accountId, { email: "racer@acme.test", password: PASSWORD, role: "viewer" })).id;
    served = await nodeHttp.serve(tally);
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("a reset link used twice at once sets one password", async () => {
    const token = await tally.team.tokens.reset(userId);
    const passwords = ["first new password!", "second new password"];
    const answers = await Promise.all(
      passwords.map((password) => postForm(served, "/reset-password", { token, password, password_confirmation: password })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 410]);
    const winner = passwords[answers.findIndex((answer) => answer.status === 200)]!;
    const loser = passwords.find((password) => password !== winner)!;
    expect((await postForm(served, "/login", { email: "racer@acme.test", password: loser })).status).toBe(401);
    expect((await postForm(served, "/login", { email: "racer@acme.test", password: winner })).status).toBe(303);
    await tally.team.users.setPassword(userId, PASSWORD);
  });

  it("a two-factor code sent twice at once (two pending sign-ins) signs in once: replay within its window is refused", async () => {
    const { secret } = await tally.team.twoFactor.begin(userId);
    await tally.team.twoFactor.confirm(userId, totpCode(secret, -1));
    const pending = await Promise.all(
      [0, 1].map(async () => sessionFrom(await postForm(served, "/login", { email: "racer@acme.test", password: PASSWORD }))!),
    );
    const code = totpCode(secret);
    const answers = await Promise.all(pending.map((token) => postForm(served, "/login-code", { code }, token)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 401]);
    // And later, within the same window: refused as well.
    const third = sessionFrom(await postForm(served, "/login", { email: "racer@acme.test", password: PASSWORD }))!;
    expect((await postForm(served, "/login-code", { code }, third)).status).toBe(401);
  });

  it("never signs in the session token a browser arrived with (fixation)", async () => {
    const planted = "P".repeat(43);
    const first = await postForm(served, "/login", { email: "racer@acme.test", password: PASSWORD }, planted);
    const issued = sessionFrom(first)!;
    expect(issued).not.toBe(planted);
    expect((await served.fetch("/api/v1/me", { headers: { cookie: `tally_session=${planted}` } })).status).toBe(401);
  });
});
