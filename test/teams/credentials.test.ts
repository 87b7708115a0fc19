/**
 * Every credential a person holds obeys the same rules: an account's two-factor policy
 * holds for their API keys, the Stats API v2 and share pages, not only for the session
 * cookie; a new two-factor set-up asks for the current factor; signing out everywhere
 * ends the person's own keys too; each key and person has a rate limit of its own; and
 * two-factor secrets are stored encrypted with a key derived from the server secret.
 * Real node:http, real SQLite files.
 */
import { readFileSync } from "node:fs";
import { createTally, type Tally } from "@tally-analytics/core";
import { recoveryCode } from "@tally-analytics/core/internal";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHEAP_PASSWORDS, PASSWORD, postForm, signIn, totpCode, withKey, withSession } from "./support.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;
const SECRET = "a server secret of more than thirty-two characters";

describe("credentials under the account's rules", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let accountId = 0;
  let ownerKey = "";

  /** A user who signed in; their session. */
  async function member(email: string, role: "owner" | "viewer" = "viewer") {
    const user = await tally.team.users.add(accountId, { email, password: PASSWORD, role });
    return { user, session: await signIn(served, email, PASSWORD) };
  }

  /** Turns two-factor sign-in on through the API; answers the secret. */
  async function setUpTwoFactor(session: string): Promise<string> {
    const { secret } = (await withSession(served, session, "POST", "/api/v1/me/two-factor")).body.data as { secret: string };
    expect((await withSession(served, session, "POST", "/api/v1/me/two-factor/confirm", { code: totpCode(secret, -1) })).status).toBe(200);
    return secret;
  }

  beforeAll(async () => {
    fixture = createTempTally({ passwords: CHEAP_PASSWORDS, secret: SECRET });
    tally = fixture.tally;
    ({ accountId, key: ownerKey } = await tally.accounts.create({ name: "acme" }));
    await tally.websites.create(accountId, { domain: "private.acme.test", privacy: 1 });
    served = await nodeHttp.serve(tally, { rateLimit: { limit: 8, windowMs: 60_000 } });
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("holds a required two-factor sign-in for keys, the Stats API v2 and share pages, until the person sets it up", async () => {
    const { user, session } = await member("confined@acme.test");
    const earlier = (await tally.team.users.createKey(user.id, { name: "made before", scope: "read" })).key;
    await tally.team.setRequireTwoFactor(accountId, true);
    try {
      const minted = await withSession(served, session, "POST", "/api/v1/me/keys", { name: "side door", scope: "read" });
      expect(minted.status).toBe(403);
      expect((await withKey(served, earlier, "GET", "/api/v1/websites")).status).toBe(403);
      expect((await withKey(served, earlier, "GET", "/api/v1/me")).status).toBe(200);
      const query = { site_id: "private.acme.test", metrics: ["visitors"], date_range: "7d" };
      expect((await withKey(served, earlier, "POST", "/api/v2/query", query)).status).toBe(403);
      // A private share page: the confined key is no one's.
      expect((await withKey(served, earlier, "GET", "/share/private.acme.test/api/website")).status).toBe(404);
      expect((await withKey(served, ownerKey, "GET", "/share/private.acme.test/api/website")).status).toBe(200);

      await setUpTwoFactor(session);
      expect((await withKey(served, earlier, "GET", "/api/v1/websites")).status).toBe(200);
      expect((await withKey(served, earlier, "POST", "/api/v2/query", query)).status).toBe(200);
      expect((await withSession(served, session, "POST", "/api/v1/me/keys", { name: "now", scope: "read" })).status).toBe(201);
    } finally {
      await tally.team.setRequireTwoFactor(accountId, false);
    }
  });

  it("asks for the current factor before a new two-factor set-up replaces it", async () => {
    const { session } = await member("enrolled@acme.test");
    const secret = await setUpTwoFactor(session);
    const without = await withSession(served, session, "POST", "/api/v1/me/two-factor");
    expect(without.status).toBe(422);
    expect((await withSession(served, session, "POST", "/api/v1/me/two-factor", { code: "000000" })).status).toBe(422);
    const replaced = await withSession(served, session, "POST", "/api/v1/me/two-factor", { code: totpCode(secret) });
    expect(replaced.status).toBe(200);
    const fresh = (replaced.body.data as { secret: string }).secret;
    expect(fresh).not.toBe(secret);
  });

  it("revokes the person's own keys when they are signed out everywhere (password reset, reset-2fa)", async () => {
    const { user } = await member("stolen@acme.test");
    const viaReset = (await tally.team.users.createKey(user.id, { name: "from a stolen session", scope: "write" })).key;
    const token = await tally.team.tokens.reset(user.id);
    const reset = await postForm(served, "/reset-password", {
      token,
      password: "a brand new password",
      password_confirmation: "a brand new password",
    });
    expect(await reset.text()).toContain("your API keys were revoked");
    expect((await withKey(served, viaReset, "GET", "/api/v1/me")).status).toBe(401);

    const viaTwoFactor = (await tally.team.users.createKey(user.id, { name: "another", scope: "read" })).key;
    await tally.team.resetTwoFactor("stolen@acme.test");
    expect((await withKey(served, viaTwoFactor, "GET", "/api/v1/me")).status).toBe(401);
  });

  it("gives each key and each person a rate limit of their own: a viewer's key spent holds no one else back", async () => {
    const { user, session } = await member("busy@acme.test");
    const busy = (await tally.team.users.createKey(user.id, { name: "busy", scope: "read" })).key;
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await withKey(served, busy, "GET", "/api/v1/websites")).status);
    expect(statuses).toEqual([...Array(8).fill(200), 429]);
    expect((await withKey(served, ownerKey, "GET", "/api/v1/websites")).status).toBe(200);
    expect((await withSession(served, session, "GET", "/api/v1/websites")).status).toBe(200);
    const { session: owner } = await member("boss@acme.test", "owner");
    expect((await withSession(served, owner, "GET", "/api/v1/users")).status).toBe(200);
  });

  it("stores two-factor secrets encrypted with a key derived from the server secret", async () => {
    const { user, session } = await member("sealed@acme.test");
    const secret = await setUpTwoFactor(session);
    const stored = new Database(fixture.file, { readonly: true });
    const row = stored.prepare("select totp_secret from users where id = ?").get(user.id) as { totp_secret: string };
    stored.close();
    expect(row.totp_secret).toMatch(/^v1\./);
    expect(row.totp_secret).not.toContain(secret);
    for (const file of [fixture.file, `${fixture.file}-wal`]) expect(readFileSync(file).includes(secret)).toBe(false);
    // Another server secret cannot read it; the right one can.
    const other = createTally({ database: `file:${fixture.file}`, secret: "another secret, also long enough to be one" });
    await expect(other.team.twoFactor.verify(user.id, totpCode(secret))).rejects.toThrow(/server secret/);
    await other.close();
    expect(await tally.team.twoFactor.verify(user.id, totpCode(secret, 1))).toBe(true);
  });

  it("encrypts, at the next start, a secret stored before secrets were encrypted", async () => {
    const { user } = await member("legacy@acme.test");
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const writable = new Database(fixture.file);
    writable.prepare("update users set totp_secret = ? where id = ?").run(secret, user.id);
    writable.close();
    const reopened = createTally({ database: `file:${fixture.file}`, secret: SECRET });
    await reopened.ready();
    const readable = new Database(fixture.file, { readonly: true });
    const row = readable.prepare("select totp_secret from users where id = ?").get(user.id) as { totp_secret: string };
    readable.close();
    expect(row.totp_secret).toMatch(/^v1\./);
    expect(await reopened.team.twoFactor.verify(user.id, totpCode(secret))).toBe(true);
    await reopened.close();
  });
});

describe("recovery codes", () => {
  it("draw each character uniformly from their alphabet", () => {
    const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) for (const char of recoveryCode().replace(/-/g, "")) counts.set(char, (counts.get(char) ?? 0) + 1);
    const mean = (chars: string) => [...chars].reduce((sum, char) => sum + (counts.get(char) ?? 0), 0) / chars.length;
    // A byte taken modulo 31 makes the first eight characters 9/8 as likely as the others.
    expect(mean(alphabet.slice(0, 8)) / mean(alphabet.slice(8))).toBeLessThan(1.05);
    expect(mean(alphabet.slice(0, 8)) / mean(alphabet.slice(8))).toBeGreaterThan(0.95);
  });
});
