import * as OTPAuth from "otpauth";
import { afterEach, describe, expect, it } from "vitest";
import { createTally, type Tally } from "../index.js";
import { UnauthorizedError, ValidationError } from "../shared/errors.js";

const code = (secret: string, timestamp = Date.now()) => OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp });

describe("users of an account", () => {
  let tally: Tally;
  afterEach(() => tally.close());

  it("sign in with a password; a wrong one and an unknown address get the same refusal", async () => {
    tally = createTally({ database: ":memory:" });
    const { accountId } = await tally.accounts.create();
    const user = await tally.team.users.add(accountId, { email: "Ada@Example.com", password: "correct horse battery", role: "owner" });
    expect(user).toMatchObject({ email: "ada@example.com", role: "owner", password: true, two_factor: false, websites: null });
    const signedIn = await tally.team.signIn("ada@example.com", "correct horse battery");
    expect(signedIn.stage).toBe("full");
    expect((await tally.team.sessionAccess(signedIn.token))?.access).toMatchObject({ accountId, role: "owner", userId: user.id });
    const wrong = await tally.team.signIn("ada@example.com", "wrong password!!").catch((error: unknown) => error);
    const unknown = await tally.team.signIn("nobody@example.com", "wrong password!!").catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(UnauthorizedError);
    expect(unknown).toBeInstanceOf(UnauthorizedError);
    expect((wrong as Error).message).toBe((unknown as Error).message);
    await tally.team.sessions.end(signedIn.token);
    expect(await tally.team.sessionAccess(signedIn.token)).toBeNull();
  });

  it("keep one owner, and keys die with their user", async () => {
    tally = createTally({ database: ":memory:" });
    const { accountId, key: accountKey } = await tally.accounts.create();
    expect(await tally.team.users.keyAccess(accountKey)).toEqual({ accountId, role: "owner", scope: "write" });
    const owner = await tally.team.users.add(accountId, { email: "o@example.com", role: "owner" });
    const viewer = await tally.team.users.add(accountId, { email: "v@example.com", role: "viewer", websites: "3,1" });
    expect(viewer.websites).toEqual([1, 3]);
    await expect(tally.team.users.update(accountId, owner.id, { role: "admin" })).rejects.toBeInstanceOf(ValidationError);
    await expect(tally.team.users.remove(accountId, owner.id)).rejects.toBeInstanceOf(ValidationError);
    await expect(tally.team.users.add(accountId, { email: "V@example.com" })).rejects.toBeInstanceOf(ValidationError);
    const key = await tally.team.users.createKey(viewer.id, { name: "ci", scope: "write" });
    expect(await tally.team.users.keyAccess(key.key)).toMatchObject({
      role: "viewer",
      websites: [1, 3],
      scope: "write",
      userId: viewer.id,
    });
    await tally.team.users.remove(accountId, viewer.id);
    await expect(tally.team.users.keyAccess(key.key)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("invitation and reset tokens work once", async () => {
    tally = createTally({ database: ":memory:" });
    const { accountId } = await tally.accounts.create();
    const sent = await tally.team.invite(accountId, { email: "new@example.com", role: "admin" }, "https://x.test");
    expect(sent.sent).toBe(false);
    const token = new URL(sent.link!).searchParams.get("token")!;
    expect(await tally.team.tokens.invitation(token)).toMatchObject({ email: "new@example.com", role: "admin" });
    const userId = await tally.team.tokens.accept(token, "a long enough password");
    await expect(tally.team.tokens.accept(token, "a long enough password")).rejects.toBeInstanceOf(ValidationError);
    const reset = await tally.team.tokens.reset(userId);
    const session = await tally.team.signIn("new@example.com", "a long enough password");
    await tally.team.completeReset(reset, "another long password");
    expect(await tally.team.sessionAccess(session.token)).toBeNull();
    await expect(tally.team.completeReset(reset, "a third long password")).rejects.toBeInstanceOf(ValidationError);
    expect((await tally.team.signIn("new@example.com", "another long password")).stage).toBe("full");
  });

  it("two-factor codes are accepted once, recovery codes once", async () => {
    tally = createTally({ database: ":memory:" });
    const { accountId } = await tally.accounts.create();
    const user = await tally.team.users.add(accountId, { email: "t@example.com", password: "a long enough password" });
    const { secret, uri } = await tally.team.twoFactor.begin(user.id);
    expect(uri).toMatch(/^otpauth:\/\/totp\/Tally:t%40example\.com\?/);
    const confirming = code(secret, Date.now() - 30_000);
    const recovery = await tally.team.twoFactor.confirm(user.id, confirming);
    expect(recovery).toHaveLength(10);
    const pending = await tally.team.signIn("t@example.com", "a long enough password");
    expect(pending.stage).toBe("second_factor");
    expect(await tally.team.sessionAccess(pending.token)).toMatchObject({ stage: "second_factor" });
    // The code that confirmed the set-up, and any earlier one, is spent.
    expect(await tally.team.completeSignIn(pending.token, confirming)).toBeNull();
    // A step ahead: within the window whenever this runs, and later than the spent one.
    const next = code(secret, Date.now() + 30_000);
    const full = await tally.team.completeSignIn(pending.token, next);
    expect(full).not.toBeNull();
    expect(await tally.team.sessionAccess(pending.token)).toBeNull();
    const again = await tally.team.signIn("t@example.com", "a long enough password");
    expect(await tally.team.completeSignIn(again.token, next)).toBeNull();
    expect(await tally.team.completeSignIn(again.token, recovery[0]!.toUpperCase())).not.toBeNull();
    const third = await tally.team.signIn("t@example.com", "a long enough password");
    expect(await tally.team.completeSignIn(third.token, recovery[0]!)).toBeNull();
  });
});
