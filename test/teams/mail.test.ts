/**
 * Invitations (single use, 7 days) and password resets (single use,
 * one hour) go out through the mail setup reports use, to a real SMTP server; links point
 * at the configured public URL whatever Host a request claims; an unknown address gets
 * the same page and no mail. Real node:http, real SQLite.
 */
import Database from "better-sqlite3";
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtp, type TestSmtp } from "../support/smtp.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { PASSWORD, postForm, sessionFrom, signIn, withKey, withSession } from "./support.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;
const PUBLIC_URL = "https://stats.acme.test/analytics";

/** The one link of a message, as a path and query to ask the test server for. */
function linkIn(text: string): { href: string; local: string; token: string } {
  const href = /https:\/\/\S+/.exec(text)?.[0] ?? "";
  const url = new URL(href);
  return { href, local: `${url.pathname.replace("/analytics", "")}${url.search}`, token: url.searchParams.get("token") ?? "" };
}

describe("invitations and password resets by e-mail", () => {
  let smtp: TestSmtp;
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let ownerKey = "";
  let accountId = 0;

  /** Moves every token's expiry into the past, as if its time had run out. */
  const expireTokens = () => {
    const db = new Database(fixture.file);
    db.prepare("update user_tokens set expires_at = ?").run(Date.now() - 1);
    db.close();
  };

  beforeAll(async () => {
    smtp = await startSmtp();
    fixture = createTempTally({ mail: { url: smtp.url, from: "Tally <tally@acme.test>" }, publicUrl: PUBLIC_URL, reportIntervalMs: 0 });
    tally = fixture.tally;
    ({ accountId, key: ownerKey } = await tally.accounts.create({ name: "acme" }));
    await tally.team.users.add(accountId, { email: "owner@acme.test", password: PASSWORD, role: "owner" });
    served = await nodeHttp.serve(tally);
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
    await smtp.close();
  });

  it("mails an invitation whose link works once", async () => {
    const answer = await withKey(served, ownerKey, "POST", "/api/v1/users/invitations", { email: "new@acme.test", role: "viewer" });
    expect(answer).toMatchObject({ status: 201, body: { data: { email: "new@acme.test", sent: true } } });
    expect((answer.body.data as Record<string, unknown>).link).toBeUndefined();
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toMatchObject({ text: "new@acme.test" });
    expect(mail!.from?.text).toContain("tally@acme.test");
    expect(mail!.subject).toBe("You are invited to Tally");
    const link = linkIn(mail!.text ?? "");
    expect(link.href.startsWith(`${PUBLIC_URL}/invite?token=`)).toBe(true);
    expect(mail!.html).toContain(link.href.replace(/&/g, "&amp;"));

    expect((await served.fetch(link.local)).status).toBe(200);
    const accepted = await postForm(served, "/invite", { token: link.token, password: PASSWORD, password_confirmation: PASSWORD });
    expect(accepted.status).toBe(303);
    expect((await withSession(served, sessionFrom(accepted)!, "GET", "/api/v1/me")).body.data).toMatchObject({
      role: "viewer",
      user: { email: "new@acme.test" },
    });
    expect((await served.fetch(link.local)).status).toBe(410);
    expect((await postForm(served, "/invite", { token: link.token, password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(
      410,
    );
  });

  it("refuses an invitation after 7 days", async () => {
    await withKey(served, ownerKey, "POST", "/api/v1/users/invitations", { email: "late@acme.test" });
    const link = linkIn((await smtp.waitFor(2))[1]!.text ?? "");
    expireTokens();
    expect((await postForm(served, "/invite", { token: link.token, password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(
      410,
    );
    expect(await tally.team.users.findByEmail("late@acme.test")).toBeNull();
  });

  it("resets a password once through a mailed link, ends every session, and says the same for an unknown address", async () => {
    const before = smtp.messages.length;
    const session = await signIn(served, "owner@acme.test", PASSWORD);
    const unknown = await postForm(served, "/forgot-password", { email: "nobody@acme.test" });
    // A forged Host changes nothing: the link is the configured URL's.
    const known = await served.fetch("/forgot-password", {
      method: "POST",
      body: new URLSearchParams({ email: "owner@acme.test" }),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: new URL(served.base).origin,
        "x-forwarded-host": "evil.example",
      },
    });
    expect(known.status).toBe(unknown.status);
    expect(await known.text()).toBe(await unknown.text());
    // The unknown address was asked first: only the known one's mail came.
    const messages = await smtp.waitFor(before + 1);
    expect(smtp.messages.length).toBe(before + 1);
    const mail = messages[before]!;
    expect(mail.to).toMatchObject({ text: "owner@acme.test" });
    const link = linkIn(mail.text ?? "");
    expect(link.href.startsWith(`${PUBLIC_URL}/reset-password?token=`)).toBe(true);

    const NEW = "an entirely new password";
    expect((await served.fetch(link.local)).status).toBe(200);
    const done = await postForm(served, "/reset-password", { token: link.token, password: NEW, password_confirmation: NEW });
    expect(done.status).toBe(200);
    expect((await withSession(served, session, "GET", "/api/v1/me")).status).toBe(401);
    // Reuse of the link: refused, the password stays the new one.
    expect(
      (await postForm(served, "/reset-password", { token: link.token, password: PASSWORD, password_confirmation: PASSWORD })).status,
    ).toBe(410);
    expect((await postForm(served, "/login", { email: "owner@acme.test", password: PASSWORD })).status).toBe(401);
    await signIn(served, "owner@acme.test", NEW);
  });

  it("refuses a reset link after one hour", async () => {
    const before = smtp.messages.length;
    await postForm(served, "/forgot-password", { email: "new@acme.test" });
    const link = linkIn((await smtp.waitFor(before + 1))[before]!.text ?? "");
    expireTokens();
    expect((await served.fetch(link.local)).status).toBe(410);
    expect(
      (
        await postForm(served, "/reset-password", {
          token: link.token,
          password: "whatever long enough",
          password_confirmation: "whatever long enough",
        })
      ).status,
    ).toBe(410);
  });
});
