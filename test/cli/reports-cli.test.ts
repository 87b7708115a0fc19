// `tally reports set|send` and the mail settings of `tally serve`, through the real built
// binary (`pnpm build` first) on a SQLite file, with a real SMTP server in the test process.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTraffic } from "../dashboard/demo-data.js";
import { startSmtp, type TestSmtp } from "../support/smtp.js";

const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const MAIL_SETTINGS = ["SMTP_URL", "MAIL_FROM", "PUBLIC_URL", "DATABASE_URL", "TALLY_API_KEY", "PORT", "HOST"];

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe("tally reports", () => {
  let directory = "";
  let database = "";
  let smtp: TestSmtp;

  /** Runs the binary to its end; `serving` is called once it says it is listening (then stop it with SIGTERM). */
  function tally(args: string[], env: Record<string, string> = {}, serving?: (base: string, stop: () => void) => void): Promise<Result> {
    const environment: NodeJS.ProcessEnv = { ...process.env };
    for (const name of MAIL_SETTINGS) delete environment[name];
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: directory,
      env: { ...environment, DATABASE_URL: database, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const result: Result = { code: null, stdout: "", stderr: "" };
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      result.stdout += chunk;
      const port = /^Tally is listening on http:\/\/127\.0\.0\.1:(\d+) /m.exec(result.stdout)?.[1];
      if (port !== undefined && serving) serving(`http://127.0.0.1:${port}`, () => child.kill("SIGTERM"));
      if (port !== undefined) serving = undefined;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (result.stderr += chunk));
    return new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code) => resolve({ ...result, code }));
    });
  }

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "tally-reports-cli-"));
    database = `file:${join(directory, "tally.sqlite")}`;
    smtp = await startSmtp();
    const setup = createTally({ database });
    const { accountId } = await setup.accounts.create({ name: "cli" });
    await setup.websites.create(accountId, { domain: "cli.example", email: 1, timezone: "Europe/Paris" });
    await generateTraffic(setup, { domain: "cli.example", days: 70, seed: 5 });
    await setup.close();
  });
  afterAll(async () => {
    await smtp?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("sets an account's address and period, and refuses a bad address", async () => {
    expect(await tally(["reports", "set", "--account", "1", "--email", "alice@mail.test", "--period", "month"])).toMatchObject({
      code: 0,
      stdout: "Account 1: monthly reports to alice@mail.test.\n",
    });
    expect(await tally(["reports", "set", "--account", "1", "--period", "week"])).toMatchObject({
      code: 0,
      stdout: "Account 1: weekly reports to alice@mail.test.\n",
    });
    expect(await tally(["reports", "set", "--account", "1", "--email", "alice"])).toMatchObject({
      code: 2,
      stderr: "tally reports set: The email must be a valid email address.\n",
    });
    expect(await tally(["reports", "set", "--account", "1", "--period", "daily"])).toMatchObject({
      code: 2,
      stderr: 'tally reports set: --period takes week or month, got "daily" (see tally reports set --help)\n',
    });
    expect((await tally(["reports", "set", "--account", "9", "--email", "x@mail.test"])).code).toBe(2);
  });

  it("--dry-run prints the text version, with the figures the statistics give for its range", async () => {
    const result = await tally(["reports", "send", "--dry-run"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^To: alice@mail\.test\nSubject: Weekly Tally report for cli\.example · /);
    const [, from = "", to = ""] = /\((\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2}), each website's own time zone\)/.exec(result.stdout) ?? [];
    const reader = createTally({ database });
    try {
      const totals = await reader.stats.totals(1, 1, { from, to, compare: "previous_period" });
      expect(totals.data.visitors).toBeGreaterThan(0);
      expect(result.stdout).toMatch(
        new RegExp(
          `^Visitors +${totals.data.visitors.toLocaleString("en")} +\\S+ from ${totals.previous?.visitors.toLocaleString("en")}$`,
          "m",
        ),
      );
      expect(result.stdout).toMatch(new RegExp(`^Pageviews +${totals.data.pageviews.toLocaleString("en")} `, "m"));
    } finally {
      await reader.close();
    }
    expect((await tally(["reports", "send", "--dry-run", "--period", "month"])).stdout).toMatch(
      /Subject: Monthly Tally report for cli\.example · \w+ \d{4}\n/,
    );
    expect(smtp.messages).toHaveLength(0);
  });

  it("sends now through SMTP_URL, to --to when given, and says what is missing otherwise", async () => {
    const mail = { SMTP_URL: smtp.url, MAIL_FROM: "Tally <tally@mail.test>", PUBLIC_URL: "https://stats.example/analytics/" };
    expect(await tally(["reports", "send"])).toMatchObject({ code: 2, stderr: expect.stringContaining("E-mail is not configured") });
    expect(await tally(["reports", "send"], { SMTP_URL: smtp.url })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("MAIL_FROM is needed"),
    });
    expect(await tally(["reports", "send", "--to", "nope"], mail)).toMatchObject({
      code: 2,
      stderr: "tally reports send: The to must be a valid email address.\n",
    });

    const sent = await tally(["reports", "send", "--to", "boss@mail.test"], mail);
    expect(sent).toMatchObject({ code: 0, stderr: "" });
    expect(sent.stdout).toMatch(/^Account 1: sent "Weekly Tally report for cli\.example · .+" to boss@mail\.test\.\n$/);
    const [message] = await smtp.waitFor(1);
    expect(message?.to).toMatchObject({ text: "boss@mail.test" });
    expect(message?.from).toMatchObject({ text: '"Tally" <tally@mail.test>' });
    expect(message?.text).toMatch(/Dashboard: https:\/\/stats\.example\/analytics\/#\/websites\/1\?range=custom&from=/);
    expect(message?.text).toMatch(/Stop reports for cli\.example: https:\/\/stats\.example\/analytics\/unsubscribe\/1\.1\./);

    expect((await tally(["reports", "send", "--period", "month"], mail)).stdout).toMatch(/to alice@mail\.test\.\n$/);
    await smtp.waitFor(2);
    expect(smtp.messages[1]?.subject).toMatch(/^Monthly Tally report/);
  });

  it("tally serve says when e-mail reports are on, and refuses a bad PUBLIC_URL", async () => {
    let answered = 0;
    const started = await tally(
      ["serve"],
      { PORT: "0", SMTP_URL: smtp.url, MAIL_FROM: "t@mail.test", PUBLIC_URL: "https://stats.example" },
      (base, stop) => {
        // An answer proves the server is past its start (signal handlers installed): then stop it.
        void fetch(`${base}/api/v1/account`).then((response) => {
          answered = response.status;
          stop();
        });
      },
    );
    expect(answered).toBe(401);
    expect(started).toMatchObject({ code: 0 });
    expect(started.stdout).toContain("E-mail reports are on (links to https://stats.example).");
    expect(await tally(["serve"], { PORT: "0", SMTP_URL: smtp.url, MAIL_FROM: "t@mail.test", PUBLIC_URL: "stats.example" })).toMatchObject({
      code: 2,
      stderr: 'tally: PUBLIC_URL must be an http:// or https:// URL, got "stats.example".\n',
    });
  });
});
