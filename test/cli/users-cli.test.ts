/**
 * `tally users add|list|role|remove|reset-2fa`, through the built binary on a
 * real SQLite file; the result is checked through a Tally opened on the same file.
 */
import { join } from "node:path";
import { createTally } from "@tally-analytics/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bash } from "../support/shell.js";
import { assertBuilt, BIN, emptyDirectory, killChildren, lines, removeDirectories, tally } from "./support.js";

/** The binary with a password piped to its standard input, as `--password-stdin` expects (and as a shell would). */
const withStdin = (args: string[], cwd: string, env: Record<string, string>, input: string) =>
  bash(`printf '%s\\n' '${input}' | node '${BIN}' ${args.join(" ")}`, cwd, env);

describe("tally users", () => {
  let cwd = "";
  let env: Record<string, string> = {};
  beforeAll(() => {
    assertBuilt();
    cwd = emptyDirectory();
    env = { DATABASE_URL: `file:${join(cwd, "tally.sqlite")}` };
  });
  afterEach(killChildren);
  afterAll(removeDirectories);

  it("adds, lists, changes, resets and removes people", async () => {
    expect((await tally(["keys", "create", "--name", "acme"], cwd, env)).code).toBe(0);

    const invited = await tally(["users", "add", "Guest@Acme.test", "--role", "viewer"], cwd, {
      ...env,
      PUBLIC_URL: "https://stats.acme.test/",
    });
    expect(invited.code).toBe(0);
    expect(lines(invited.stdout).at(-1)).toMatch(/^https:\/\/stats\.acme\.test\/invite\?token=[\w-]{43}$/);
    // Without PUBLIC_URL: the address tally serve listens on here, and a line saying so.
    const local = await tally(["users", "add", "local@acme.test"], cwd, { ...env, PORT: "4310" });
    expect(lines(local.stdout).slice(-2)).toEqual([
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:4310\/invite\?token=[\w-]{43}$/),
      "(PUBLIC_URL is not set: the link is tally serve's local address; set it to your Tally's public address.)",
    ]);
    expect((await tally(["users", "remove", "local@acme.test"], cwd, env)).code).toBe(0);
    const pending = await tally(["users", "list", "--pending", "--json"], cwd, env);
    expect(JSON.parse(pending.stdout)).toEqual([
      expect.objectContaining({ account_id: 1, email: "guest@acme.test", role: "viewer", invited_by: null }),
    ]);
    expect((await tally(["users", "list", "--pending"], cwd, env)).stdout).toMatch(
      /^ACCOUNT\s+EMAIL\s+ROLE.*\n1\s+guest@acme\.test\s+viewer\s+all\s+-\s+\d{4}-/,
    );
    const revoked = await tally(["users", "remove", "guest@acme.test"], cwd, env);
    expect(revoked).toMatchObject({ code: 0, stdout: expect.stringContaining("Revoked the pending invitation of guest@acme.test") });
    expect((await tally(["users", "list", "--pending"], cwd, env)).stdout).toContain("No pending invitations.");

    const added = await withStdin(
      ["users", "add", "ada@acme.test", "--role", "admin", "--password-stdin"],
      cwd,
      env,
      "a very long password",
    );
    expect(added).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Added ada@acme\.test to account 1 as admin/) });
    const short = await withStdin(["users", "add", "bob@acme.test", "--password-stdin"], cwd, env, "short");
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(/at least 10 characters/);

    const badRole = await tally(["users", "role", "ada@acme.test", "boss"], cwd, env);
    expect(badRole.code).toBe(2);
    expect((await tally(["users", "role", "ada@acme.test", "owner", "--websites", "all"], cwd, env)).code).toBe(0);

    const listed = await tally(["users", "list", "--json"], cwd, env);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ email: "ada@acme.test", role: "owner", websites: null, two_factor: false }),
    ]);

    const opened = createTally({ database: env.DATABASE_URL! });
    try {
      expect((await opened.team.signIn("ada@acme.test", "a very long password")).stage).toBe("full");
    } finally {
      await opened.close();
    }
    const reset = await tally(["users", "reset-2fa", "ada@acme.test"], cwd, env);
    expect(reset).toMatchObject({ code: 0, stdout: expect.stringContaining("Two-factor sign-in of ada@acme.test is off") });
    expect(reset.stdout).toContain("their API keys are revoked");
    const lastOwner = await tally(["users", "remove", "ada@acme.test"], cwd, env);
    expect(lastOwner.code).not.toBe(0);
    expect(lastOwner.stderr).toMatch(/at least one owner/);
    expect((await tally(["users", "role", "ada@acme.test", "viewer"], cwd, env)).code).not.toBe(0);
    const missing = await tally(["users", "remove", "nobody@acme.test"], cwd, env);
    expect(missing.stderr).toMatch(/No user with the address nobody@acme\.test/);
  });

  it("refuses an incomplete single sign-on setup before starting", async () => {
    const refused = await tally(["serve"], cwd, { ...env, OIDC_ISSUER: "https://id.acme.test" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together.");
    const badRole = await tally(["serve"], cwd, {
      ...env,
      OIDC_ISSUER: "https://id.acme.test",
      OIDC_CLIENT_ID: "tally",
      OIDC_CLIENT_SECRET: "s",
      OIDC_DEFAULT_ROLE: "boss",
    });
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain("OIDC_DEFAULT_ROLE must be owner, admin or viewer");
  });
});
