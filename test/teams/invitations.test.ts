/**
 * Invitations know who sent them, are listed and revocable, and end with their sender's
 * removal or demotion; an e-mail address is unique within an account only, so one account
 * learns nothing of another's users and cannot claim their addresses, and a person in
 * several accounts chooses which to open. Real node:http, real SQLite.
 */
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHEAP_PASSWORDS, PASSWORD, postForm, sessionFrom, signIn, withSession } from "./support.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;

describe("invitations and addresses across accounts", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let acme = 0;
  let globex = 0;
  let acmeOwner = "";
  let globexOwner = "";

  /** Sends an invitation as `session` and answers its token (no mail here: the link comes back). */
  async function invite(session: string, email: string, role = "viewer"): Promise<string> {
    const sent = await withSession(served, session, "POST", "/api/v1/users/invitations", { email, role });
    expect(sent.status).toBe(201);
    return new URL((sent.body.data as { link: string }).link).searchParams.get("token")!;
  }
  const accept = (token: string, password = PASSWORD) => postForm(served, "/invite", { token, password, password_confirmation: password });
  const pending = async (session: string) =>
    (await withSession(served, session, "GET", "/api/v1/users/invitations")).body.data as { email: string; invited_by: string | null }[];
  const accountOf = async (session: string) => (await tally.team.sessionAccess(session))?.access.accountId;

  beforeAll(async () => {
    fixture = createTempTally({ passwords: CHEAP_PASSWORDS });
    tally = fixture.tally;
    acme = (await tally.accounts.create({ name: "Acme" })).accountId;
    globex = (await tally.accounts.create({ name: "Globex" })).accountId;
    await tally.team.users.add(acme, { email: "owner@acme.test", password: PASSWORD, role: "owner" });
    await tally.team.users.add(globex, { email: "owner@globex.test", password: PASSWORD, role: "owner" });
    served = await nodeHttp.serve(tally);
    acmeOwner = await signIn(served, "owner@acme.test", PASSWORD);
    globexOwner = await signIn(served, "owner@globex.test", PASSWORD);
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("lists pending invitations with their sender, and revokes one: its link stops working", async () => {
    const token = await invite(acmeOwner, "guest@acme.test");
    expect(await pending(acmeOwner)).toEqual([
      expect.objectContaining({ email: "guest@acme.test", role: "viewer", invited_by: "owner@acme.test", websites: null }),
    ]);
    expect(JSON.stringify(await pending(acmeOwner))).not.toContain(token);
    const revoked = await withSession(served, acmeOwner, "DELETE", "/api/v1/users/invitations/guest@acme.test");
    expect(revoked).toMatchObject({ status: 200, body: { email: "guest@acme.test", object: "invitation", deleted: true } });
    expect(await pending(acmeOwner)).toEqual([]);
    expect((await accept(token)).status).toBe(410);
    expect((await withSession(served, acmeOwner, "DELETE", "/api/v1/users/invitations/guest@acme.test")).status).toBe(404);
  });

  it("ends the invitations an owner sent when they are removed or demoted: a removed owner cannot come back through one", async () => {
    for (const ending of ["remove", "demote"] as const) {
      const rogue = await tally.team.users.add(acme, { email: `rogue-${ending}@acme.test`, password: PASSWORD, role: "owner" });
      const rogueSession = await signIn(served, `rogue-${ending}@acme.test`, PASSWORD);
      const backdoor = await invite(rogueSession, `rogue-${ending}@elsewhere.test`, "owner");
      if (ending === "remove") expect((await withSession(served, acmeOwner, "DELETE", `/api/v1/users/${rogue.id}`)).status).toBe(200);
      else expect((await withSession(served, acmeOwner, "PUT", `/api/v1/users/${rogue.id}`, { role: "viewer" })).status).toBe(200);
      expect((await pending(acmeOwner)).map((invitation) => invitation.email)).not.toContain(`rogue-${ending}@elsewhere.test`);
      expect((await accept(backdoor)).status).toBe(410);
    }
  });

  it("tells one account nothing of another's users, and lets it claim none of their addresses", async () => {
    await tally.team.users.add(acme, { email: "ada@acme.test", password: PASSWORD, role: "admin" });
    // Globex's owner invites Acme's admin: an invitation like any other, no "already a user" answer.
    const token = await invite(globexOwner, "ada@acme.test");
    // Without mail the owner holds the link, and accepts it with a password of their own.
    const claimed = await accept(token, "globex owner's own password");
    expect(claimed.status).toBe(303);
    expect(await accountOf(sessionFrom(claimed)!)).toBe(globex);
    // Acme's Ada is untouched: her password opens Acme, and nothing of Globex's.
    const ada = await signIn(served, "ada@acme.test", PASSWORD);
    expect(await accountOf(ada)).toBe(acme);
    const globexUsers = (await withSession(served, globexOwner, "GET", "/api/v1/users")).body.data as { email: string; role: string }[];
    expect(globexUsers.find((user) => user.email === "ada@acme.test")).toMatchObject({ role: "viewer" });
    // Within one account an address is still taken once.
    const twice = await withSession(served, acmeOwner, "POST", "/api/v1/users/invitations", { email: "ada@acme.test" });
    expect(twice.status).toBe(422);
  });

  it("lets a person whose password opens several accounts choose which", async () => {
    await tally.team.users.add(acme, { email: "both@example.test", password: PASSWORD, role: "viewer" });
    await tally.team.users.add(globex, { email: "both@example.test", password: PASSWORD, role: "admin" });
    const first = await postForm(served, "/login", { email: "both@example.test", password: PASSWORD });
    expect(first.headers.get("location")).toBe("./login-account");
    const choosing = sessionFrom(first)!;
    // Choosing is not signed in.
    expect((await withSession(served, choosing, "GET", "/api/v1/me")).status).toBe(401);
    const page = await (await served.fetch("/login-account", { headers: { cookie: `tally_session=${choosing}` } })).text();
    expect(page).toContain("Acme (viewer)");
    expect(page).toContain("Globex (admin)");
    const globexUser = (await tally.team.users.findByEmail("both@example.test", globex))!;
    const someoneElse = (await tally.team.users.findByEmail("owner@acme.test"))!;
    expect((await postForm(served, "/login-account", { user: String(someoneElse.id) }, choosing)).headers.get("location")).toBe("./login");
    const again = sessionFrom(await postForm(served, "/login", { email: "both@example.test", password: PASSWORD }))!;
    const chosen = await postForm(served, "/login-account", { user: String(globexUser.id) }, again);
    expect(chosen.headers.get("location")).toBe("./");
    expect(await accountOf(sessionFrom(chosen)!)).toBe(globex);
  });
});
