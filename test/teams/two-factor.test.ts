/**
 * TOTP two-factor sign-in (otpauth) through the API and the sign-in
 * pages: set up with a code, recovery codes shown once, a code accepted once (replay
 * within its window refused), an owner may require it for everyone, and
 * `reset-2fa` turns it off. Real node:http, real SQLite.
 */
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHEAP_PASSWORDS, PASSWORD, postForm, sessionFrom, signIn, totpCode, withSession } from "./support.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;

describe("two-factor sign-in", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let accountId = 0;
  let secret = "";
  let recovery: string[] = [];
  /** The code that turned it on: its step is spent from then on, whenever the test runs. */
  let confirmingCode = "";

  /** Password, then code: the final session token, or null when the code was refused. */
  async function signInWithCode(email: string, code: string): Promise<{ status: number; token: string | null }> {
    const first = await postForm(served, "/login", { email, password: PASSWORD });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("./login-code");
    const pending = sessionFrom(first)!;
    // Half signed in is not signed in.
    expect((await withSession(served, pending, "GET", "/api/v1/me")).status).toBe(401);
    const second = await postForm(served, "/login-code", { code }, pending);
    const token = sessionFrom(second);
    if (token !== null) expect(token).not.toBe(pending);
    return { status: second.status, token };
  }

  beforeAll(async () => {
    fixture = createTempTally({ passwords: CHEAP_PASSWORDS });
    tally = fixture.tally;
    ({ accountId } = await tally.accounts.create({ name: "acme" }));
    await tally.team.users.add(accountId, { email: "owner@acme.test", password: PASSWORD, role: "owner" });
    await tally.team.users.add(accountId, { email: "viewer@acme.test", password: PASSWORD, role: "viewer" });
    served = await nodeHttp.serve(tally);
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("sets up with a code from the new secret and shows ten recovery codes once", async () => {
    const session = await signIn(served, "owner@acme.test", PASSWORD);
    const setup = await withSession(served, session, "POST", "/api/v1/me/two-factor");
    ({ secret } = setup.body.data as { secret: string; uri: string });
    expect((setup.body.data as { uri: string }).uri).toMatch(/^otpauth:\/\/totp\/Tally:owner%40acme\.test\?.*secret=/);
    expect((await withSession(served, session, "POST", "/api/v1/me/two-factor/confirm", { code: "000000" })).status).toBe(422);
    confirmingCode = totpCode(secret, -1);
    const confirmed = await withSession(served, session, "POST", "/api/v1/me/two-factor/confirm", { code: confirmingCode });
    expect(confirmed.status).toBe(200);
    recovery = (confirmed.body.data as { recovery_codes: string[] }).recovery_codes;
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    expect((await withSession(served, session, "GET", "/api/v1/me")).body.data).toMatchObject({ user: { two_factor: true } });
    // Nowhere to read them again.
    expect(JSON.stringify((await withSession(served, session, "GET", "/api/v1/me")).body)).not.toContain(recovery[0]!);
  });

  it("asks for the code after the password, and accepts each code once (replay within its window refused)", async () => {
    const wrong = await signInWithCode("owner@acme.test", "123456");
    expect(wrong).toMatchObject({ status: 401, token: null });
    // The step that confirmed the set-up is spent too.
    expect((await signInWithCode("owner@acme.test", confirmingCode)).token).toBeNull();
    // One step ahead: still within the window a minute from now, and later than the spent one.
    const code = totpCode(secret, 1);
    const good = await signInWithCode("owner@acme.test", code);
    expect(good.status).toBe(303);
    expect((await withSession(served, good.token!, "GET", "/api/v1/me")).status).toBe(200);
    const replay = await signInWithCode("owner@acme.test", code);
    expect(replay).toMatchObject({ status: 401, token: null });
  });

  it("accepts a recovery code once instead", async () => {
    const used = await signInWithCode("owner@acme.test", recovery[0]!);
    expect(used.status).toBe(303);
    expect((await signInWithCode("owner@acme.test", recovery[0]!)).token).toBeNull();
  });

  it("gives five wrong codes per person in 15 minutes, then asks for the password again", async () => {
    const guarded = await tally.team.users.add(accountId, { email: "guarded@acme.test", password: PASSWORD, role: "viewer" });
    const { secret: guardedSecret } = await tally.team.twoFactor.begin(guarded.id);
    await tally.team.twoFactor.confirm(guarded.id, totpCode(guardedSecret, -1));
    const first = await postForm(served, "/login", { email: "guarded@acme.test", password: PASSWORD });
    const pending = sessionFrom(first)!;
    for (let guess = 0; guess < 5; guess++)
      expect((await postForm(served, "/login-code", { code: String(100000 + guess) }, pending)).status).toBe(401);
    // Even the right code now: the pending sign-in is over.
    const limited = await postForm(served, "/login-code", { code: totpCode(guardedSecret) }, pending);
    expect(limited.status).toBe(429);
    expect(limited.headers.getSetCookie()[0]).toMatch(/^tally_session=; /);
    const after = await postForm(served, "/login-code", { code: totpCode(guardedSecret) }, pending);
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toBe("./login");
  });

  it("lets an owner require it: others may only set it up until they have", async () => {
    const owner = await tally.team.sessions.start((await tally.team.users.findByEmail("owner@acme.test"))!.id, "full");
    expect((await withSession(served, owner, "PUT", "/api/v1/account/two-factor", { required: true })).body.data).toEqual({
      required: true,
    });
    const viewer = await signIn(served, "viewer@acme.test", PASSWORD);
    const me = await withSession(served, viewer, "GET", "/api/v1/me");
    expect(me.body.data).toMatchObject({ must_set_up_two_factor: true });
    const blocked = await withSession(served, viewer, "GET", "/api/v1/websites");
    expect(blocked).toMatchObject({ status: 403, body: { message: "This account requires two-factor sign-in: set it up first." } });
    const setup = await withSession(served, viewer, "POST", "/api/v1/me/two-factor");
    const viewerSecret = (setup.body.data as { secret: string }).secret;
    expect((await withSession(served, viewer, "POST", "/api/v1/me/two-factor/confirm", { code: totpCode(viewerSecret) })).status).toBe(200);
    expect((await withSession(served, viewer, "GET", "/api/v1/websites")).status).toBe(200);
    // Required: it cannot be turned off.
    expect((await withSession(served, viewer, "POST", "/api/v1/me/two-factor/disable", { code: totpCode(viewerSecret, 1) })).status).toBe(
      422,
    );
  });

  it("is turned off by reset-2fa, which signs the person out everywhere", async () => {
    const viewer = (await tally.team.users.findByEmail("viewer@acme.test"))!;
    const session = await tally.team.sessions.start(viewer.id, "full");
    await tally.team.resetTwoFactor("viewer@acme.test");
    expect((await withSession(served, session, "GET", "/api/v1/me")).status).toBe(401);
    const again = await postForm(served, "/login", { email: "viewer@acme.test", password: PASSWORD });
    expect(again.headers.get("location")).toBe("./");
  });
});
