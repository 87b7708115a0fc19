/**
 * People sign in with an e-mail and a password (a session cookie), existing API keys keep
 * working as owner keys, roles and key scopes are enforced on the API, and failures say
 * nothing about which addresses exist. Real node:http on port 0, real SQLite; every answer
 * is checked against the OpenAPI document. Passwords are hashed at a cheap cost here (it
 * travels with each hash), so the limits' dozens of checks take a second, not thirty.
 */
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHEAP_PASSWORDS, PASSWORD, postForm, sessionFrom, signIn, withKey, withSession } from "./support.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;

describe("sign-in with users and sessions", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let accountKey = "";
  let accountId = 0;

  beforeAll(async () => {
    fixture = createTempTally({ passwords: CHEAP_PASSWORDS });
    tally = fixture.tally;
    ({ key: accountKey, accountId } = await tally.accounts.create({ name: "acme" }));
    served = await nodeHttp.serve(tally);
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("keeps an existing key working as the owner's, with no user behind it", async () => {
    const me = await withKey(served, accountKey, "GET", "/api/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ user: null, role: "owner", scope: "write", via: "key", websites: null });
    expect((await withKey(served, accountKey, "POST", "/api/v1/websites", { domain: "acme.test" })).status).toBe(201);
  });

  it("sets up the first owner with the account's key, then signs in with a cookie that is HttpOnly, SameSite=Lax and scoped to the mount", async () => {
    const refused = await postForm(served, "/signup", {
      key: "tly_not-a-key-at-all-really",
      email: "owner@acme.test",
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    expect(refused.status).toBe(401);
    const response = await postForm(served, "/signup", {
      key: accountKey,
      email: "Owner@Acme.test",
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("./");
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith("tally_session="))!;
    expect(cookie).toMatch(/; Path=\/; Max-Age=1209600; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toMatch(/Secure/);
    const me = await withSession(served, sessionFrom(response)!, "GET", "/api/v1/me");
    expect(me.body.data).toMatchObject({ role: "owner", via: "session", user: { email: "owner@acme.test", role: "owner" } });
  });

  it("marks the cookie Secure when the request came over HTTPS", async () => {
    const handler = (await import("@tally-analytics/server")).createHandler(tally);
    const request = new Request("https://tally.example/login", {
      method: "POST",
      body: new URLSearchParams({ email: "owner@acme.test", password: PASSWORD }),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://tally.example" },
    });
    const response = await handler(request, { ip: "192.0.2.1" });
    expect(response.status).toBe(303);
    expect(response.headers.getSetCookie()[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });

  it("rotates the session at sign-in: a token planted before (fixation) is never the one signed in, and sign-out ends it on the server", async () => {
    const planted = await signIn(served, "owner@acme.test", PASSWORD);
    const response = await postForm(served, "/login", { email: "owner@acme.test", password: PASSWORD }, planted);
    const fresh = sessionFrom(response)!;
    expect(fresh).not.toBe(planted);
    expect((await withSession(served, planted, "GET", "/api/v1/me")).status).toBe(401);
    expect((await withSession(served, fresh, "GET", "/api/v1/me")).status).toBe(200);
    // A made-up token is never adopted either.
    const madeUp = "A".repeat(43);
    const adopted = await postForm(served, "/login", { email: "owner@acme.test", password: PASSWORD }, madeUp);
    expect(sessionFrom(adopted)).not.toBe(madeUp);

    const out = await postForm(served, "/logout", {}, fresh);
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie()[0]).toMatch(/^tally_session=; .*Max-Age=0/);
    // The browser may keep sending it: the server has forgotten it.
    expect((await withSession(served, fresh, "GET", "/api/v1/me")).status).toBe(401);
  });

  it("gives the same answer for a wrong password and an unknown address", async () => {
    const wrong = await postForm(served, "/login", { email: "owner@acme.test", password: "not the password" });
    const unknown = await postForm(served, "/login", { email: "nobody@acme.test", password: "not the password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const text = (response: string) => response.replace(/value="[^"]*"/g, "");
    expect(text(await wrong.text())).toBe(text(await unknown.text()));
  });

  it("limits failures per e-mail address, from any client: then even the right password waits", async () => {
    await tally.team.users.add(accountId, { email: "target@acme.test", password: PASSWORD, role: "viewer" });
    const handler = (await import("@tally-analytics/server")).createHandler(tally);
    const attempt = (password: string, ip: string) =>
      handler(
        new Request("http://tally.test/login", {
          method: "POST",
          body: new URLSearchParams({ email: "target@acme.test", password }),
          headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://tally.test" },
        }),
        { ip },
      );
    const statuses: number[] = [];
    for (let guess = 0; guess < 10; guess++) statuses.push((await attempt(`guess ${guess}`, `198.51.100.${guess + 1}`)).status);
    expect(statuses).toEqual(Array(10).fill(401));
    const limited = await attempt(PASSWORD, "203.0.113.9");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.getSetCookie()).toEqual([]);
  });

  it("limits failures per client address, across e-mail addresses", async () => {
    const handler = (await import("@tally-analytics/server")).createHandler(tally);
    const attempt = (email: string, ip: string) =>
      handler(
        new Request("http://tally.test/login", {
          method: "POST",
          body: new URLSearchParams({ email, password: "not it at all" }),
          headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://tally.test" },
        }),
        { ip },
      );
    for (let user = 0; user < 30; user++) expect((await attempt(`user${user}@acme.test`, "192.0.2.77")).status).toBe(401);
    expect((await attempt("one-more@acme.test", "192.0.2.77")).status).toBe(429);
    expect((await attempt("one-more@acme.test", "192.0.2.78")).status).toBe(401);
  });

  it("refuses a sign-in form posted from another site (login CSRF)", async () => {
    const response = await served.fetch("/login", {
      method: "POST",
      body: new URLSearchParams({ email: "owner@acme.test", password: PASSWORD }),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      redirect: "manual",
    });
    expect(response.status).toBe(403);
    expect(sessionFrom(response)).toBeNull();
  });
});
