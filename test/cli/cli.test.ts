import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

/**
 * The real, built binary (`pnpm build` first), run as a user would: in an empty
 * directory, configured by the environment, stopped by signals.
 */
const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const KEY = /^tly_[A-Za-z0-9_-]{43}$/;
const LISTENING = /^Tally is listening on http:\/\/127\.0\.0\.1:(\d+) \(database (.+)\)$/m;
const START_TIMEOUT_MS = 10_000;

/** Only what the test sets: nothing inherited may configure Tally by accident. */
function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", ...extra };
  for (const name of ["DATABASE_URL", "TALLY_API_KEY", "TRUST_PROXY", "GEOIP_DB", "RATE_LIMIT", "HOST"]) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

const directories: string[] = [];
function emptyDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "tally-cli-"));
  directories.push(directory);
  return directory;
}

const children = new Set<ChildProcess>();

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function finished(child: ChildProcess, output: { stdout: string; stderr: string }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      children.delete(child);
      resolve({ code, signal, ...output });
    });
  });
}

function start(args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: environment(env), stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  const output = { stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output.stderr += chunk));
  return { child, output, done: finished(child, output) };
}

/** Runs one command to its end. */
async function tally(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  return start(args, cwd, env).done;
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "");

interface Server {
  base: string;
  /** Milliseconds from spawn to the listening line. */
  startMs: number;
  output: { stdout: string; stderr: string };
  stop(signal: NodeJS.Signals): Promise<Finished>;
}

/** `tally serve`, resolved once it prints its listening line. */
async function serve(cwd: string, env: Record<string, string> = {}): Promise<Server> {
  const began = performance.now();
  const { child, output, done } = start(["serve"], cwd, env);
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within ${START_TIMEOUT_MS} ms:\n${output.stdout}\n${output.stderr}`)), START_TIMEOUT_MS);
    const check = () => {
      const match = LISTENING.exec(output.stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off("data", check);
      resolve(match[1]!);
    };
    child.stdout!.on("data", check);
    done.then((result) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${result.code}) before listening:\n${result.stdout}\n${result.stderr}`));
    }, reject);
  });
  return {
    base: `http://127.0.0.1:${port}`,
    startMs: performance.now() - began,
    output,
    async stop(signal) {
      child.kill(signal);
      return done;
    },
  };
}

async function api(server: Server, key: string, method: string, path: string, body?: Record<string, string>) {
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, accept: "application/json", ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(body ? { body: new URLSearchParams(body) } : {}),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

const dayFrom = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

afterEach(() => {
  // A failed test must not leave a server behind.
  for (const child of children) child.kill("SIGKILL");
  children.clear();
});

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

describe("tally serve", () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`pnpm build\` first`);
  });

  it("on an empty directory: creates the account and database, serves, flushes on SIGTERM, keeps the data", async () => {
    const cwd = emptyDirectory();
    const first = await serve(cwd);
    console.log(`[cli] tally serve on an empty directory: ${first.startMs.toFixed(0)} ms from spawn to the listening line`);

    const out = lines(first.output.stdout);
    expect(out[0]).toBe("Created account 1. Its API key, shown only this once:");
    expect(out[1]).toMatch(KEY);
    expect(out[2]).toMatch(LISTENING);
    expect(out[2]).toContain("(database file:./data/tally.sqlite)");
    const key = out[1]!;
    expect(existsSync(join(cwd, "data", "tally.sqlite"))).toBe(true);

    // The HTTP API answers with that key (rate limited by default in serve).
    const created = await api(first, key, "POST", "/api/v1/websites", { domain: "cli.example" });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-ratelimit-limit")).toBe("600");
    const listed = await api(first, key, "GET", "/api/v1/websites");
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((site: { domain: string }) => site.domain)).toEqual(["cli.example"]);
    expect((await api(first, "tly_not-a-key-of-this-server-at-all-0000000", "GET", "/api/v1/websites")).status).toBe(401);

    // Hits right before SIGTERM are still in the buffer (flushed every second): SIGTERM must write them.
    for (const page of ["/one", "/two", "/two"]) {
      const hit = await fetch(`${first.base}/collect`, {
        method: "POST",
        headers: { "content-type": "text/plain", "user-agent": CHROME },
        body: JSON.stringify({ u: `https://cli.example${page}` }),
      });
      expect(hit.status).toBe(202);
      expect(hit.headers.get("x-tally-dropped")).toBeNull();
    }
    const stopped = await first.stop("SIGTERM");
    expect(stopped.code).toBe(0);
    expect(stopped.signal).toBeNull();
    expect(lines(stopped.stdout).at(-1)).toBe("SIGTERM: finishing requests, writing buffered hits, closing.");
    expect(stopped.stderr).toBe("");

    // Second start on the same directory: no new key, same data, the hits are there.
    const second = await serve(cwd);
    console.log(`[cli] tally serve on an existing directory: ${second.startMs.toFixed(0)} ms from spawn to the listening line`);
    expect(second.output.stdout).not.toContain("Created account");
    expect(second.output.stdout).not.toMatch(/tly_/);
    expect(lines(second.output.stdout)).toHaveLength(1);
    const id = created.body.data.id as number;
    const stats = await api(second, key, "GET", `/api/v1/stats/${id}?name=page&from=${dayFrom(-1)}&to=${dayFrom(1)}`);
    expect(stats.status).toBe(200);
    expect(stats.body.data).toEqual([
      { value: "/two", count: 2 },
      { value: "/one", count: 1 },
    ]);
    const pageviews = await api(second, key, "GET", `/api/v1/stats/${id}?name=pageviews&from=${dayFrom(-1)}&to=${dayFrom(1)}`);
    expect(pageviews.body.data.reduce((sum: number, row: { count: number }) => sum + row.count, 0)).toBe(3);

    const interrupted = await second.stop("SIGINT");
    expect(interrupted.code).toBe(0);
    expect(lines(interrupted.stdout).at(-1)).toBe("SIGINT: finishing requests, writing buffered hits, closing.");
  });

  it("TALLY_API_KEY: an account with exactly that key exists, and no key is printed", async () => {
    const cwd = emptyDirectory();
    const configured = "my-own-secret-key-for-ci-0123456789abcdef";
    const server = await serve(cwd, { TALLY_API_KEY: configured });
    expect(server.output.stdout).not.toContain("Created account");
    expect(lines(server.output.stdout)).toHaveLength(1);
    const account = await api(server, configured, "GET", "/api/v1/account");
    expect(account.status).toBe(200);
    expect(account.body.data).toMatchObject({ id: 1 });
    expect((await server.stop("SIGINT")).code).toBe(0);

    // Restarting with the same key does not create a second account.
    const again = await serve(cwd, { TALLY_API_KEY: configured });
    expect((await api(again, configured, "GET", "/api/v1/account")).body.data).toMatchObject({ id: 1 });
    expect((await again.stop("SIGTERM")).code).toBe(0);
  });

  it("a TALLY_API_KEY that is too short refuses to start, with a message", async () => {
    const result = await tally(["serve"], emptyDirectory(), { TALLY_API_KEY: "short" });
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain("listening");
    expect(result.stderr).toContain("The key must be at least 16 characters.");
  });

  it("DATABASE_URL=file:./other/x.sqlite is honoured", async () => {
    const cwd = emptyDirectory();
    const env = { DATABASE_URL: "file:./other/x.sqlite" };
    const server = await serve(cwd, env);
    expect(server.output.stdout).toContain("(database file:./other/x.sqlite)");
    expect(existsSync(join(cwd, "other", "x.sqlite"))).toBe(true);
    expect(existsSync(join(cwd, "data"))).toBe(false);
    const key = lines(server.output.stdout)[1]!;
    expect(key).toMatch(KEY);
    expect((await api(server, key, "POST", "/api/v1/websites", { domain: "other.example" })).status).toBe(201);
    expect((await server.stop("SIGTERM")).code).toBe(0);

    // The other commands read the same variable.
    const listed = await tally(["websites", "list", "--json"], cwd, env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((site: { domain: string }) => site.domain)).toEqual(["other.example"]);
    expect(existsSync(join(cwd, "data"))).toBe(false);
  });
});

describe("tally keys, websites, migrate", () => {
  let cwd: string;
  let ciKey: string;
  let extraKey: string;
  let otherKey: string;

  beforeAll(() => {
    cwd = emptyDirectory();
  });

  it("migrate creates the database and exits 0", async () => {
    const result = await tally(["migrate"], cwd);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe("The database is up to date.\n");
    expect(existsSync(join(cwd, "data", "tally.sqlite"))).toBe(true);
    expect((await tally(["migrate"], cwd)).code).toBe(0);
  });

  it("keys create --name ci prints the key alone on its last line", async () => {
    const result = await tally(["keys", "create", "--name", "ci"], cwd);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const out = lines(result.stdout);
    expect(out[0]).toBe("Created account 1. Store this key now, it is not shown again:");
    expect(out.at(-1)).toMatch(KEY);
    ciKey = out.at(-1)!;
  });

  it("keys create --account 1 adds a key to account 1; without it, a new account", async () => {
    const added = await tally(["keys", "create", "--account", "1"], cwd);
    expect(added.code).toBe(0);
    expect(lines(added.stdout)[0]).toBe("New key for account 1. Store this key now, it is not shown again:");
    extraKey = lines(added.stdout).at(-1)!;
    expect(extraKey).toMatch(KEY);
    expect(extraKey).not.toBe(ciKey);

    const other = await tally(["keys", "create", "--name=other"], cwd);
    expect(lines(other.stdout)[0]).toBe("Created account 2. Store this key now, it is not shown again:");
    otherKey = lines(other.stdout).at(-1)!;
    expect(otherKey).toMatch(KEY);
  });

  it("keys create --account for a missing account, or a non-numeric one, fails with a message", async () => {
    const missing = await tally(["keys", "create", "--account", "99"], cwd);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain("Resource not found.");

    const word = await tally(["keys", "create", "--account", "one"], cwd);
    expect(word.code).toBe(2);
    expect(word.stderr).toContain("--account takes an account id");
  });

  it("the keys authenticate; keys revoke <first 12 chars> makes one a 401, also on a running server", async () => {
    const revoked = await tally(["keys", "revoke", ciKey.slice(0, 12)], cwd);
    expect(revoked).toMatchObject({ code: 0, stdout: "Revoked 1 key.\n", stderr: "" });

    // A server started afterwards: no new account (there are some), the revoked key is refused.
    const server = await serve(cwd);
    expect(server.output.stdout).not.toContain("Created account");
    const refused = await api(server, ciKey, "GET", "/api/v1/account");
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: "Unauthenticated.", status: 401 });
    const viaExtra = await api(server, extraKey, "GET", "/api/v1/account");
    expect(viaExtra.status).toBe(200);
    expect(viaExtra.body.data).toMatchObject({ id: 1, name: "ci" });
    const viaOther = await api(server, otherKey, "GET", "/api/v1/account");
    expect(viaOther.body.data).toMatchObject({ id: 2, name: "other" });
    expect((await api(server, extraKey, "POST", "/api/v1/websites", { domain: "listed.example" })).status).toBe(201);
    expect((await api(server, extraKey, "POST", "/api/v1/websites", { domain: "second.example", timezone: "Europe/Berlin" })).status).toBe(201);

    // Revoked while the server runs: refused at once (keys are not cached).
    expect((await tally(["keys", "revoke", otherKey.slice(0, 12)], cwd)).code).toBe(0);
    expect((await api(server, otherKey, "GET", "/api/v1/account")).status).toBe(401);
    expect((await api(server, extraKey, "GET", "/api/v1/account")).status).toBe(200);
    expect((await server.stop("SIGTERM")).code).toBe(0);
  });

  it("keys revoke with an unknown or too short prefix, or none, fails with a message", async () => {
    const unknown = await tally(["keys", "revoke", "tly_zzzzzzzz"], cwd);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("No active key starts with tly_zzzzzzzz");

    const again = await tally(["keys", "revoke", ciKey.slice(0, 12)], cwd);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(`No active key starts with ${ciKey.slice(0, 12)}`);

    const short = await tally(["keys", "revoke", "tly_"], cwd);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain("Give at least the first 12 characters of the key.");

    const none = await tally(["keys", "revoke"], cwd);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("usage: tally keys revoke KEY_PREFIX");

    // The key that was not revoked still works.
    const server = await serve(cwd);
    expect((await api(server, extraKey, "GET", "/api/v1/account")).status).toBe(200);
    await server.stop("SIGTERM");
  });

  it("websites list prints a table with the domains", async () => {
    const result = await tally(["websites", "list"], cwd);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const out = lines(result.stdout);
    expect(out[0]).toMatch(/^ID\s+ACCOUNT\s+DOMAIN\s+PRIVACY\s+TIMEZONE\s+CREATED$/);
    expect(out).toHaveLength(3);
    expect(out[1]).toMatch(/^1\s+1\s+listed\.example\s+1\s+UTC\s+\d{4}-\d{2}-\d{2}T/);
    expect(out[2]).toMatch(/^2\s+1\s+second\.example\s+1\s+Europe\/Berlin\s+/);
    // Columns line up.
    expect(out[1]!.indexOf("listed.example")).toBe(out[0]!.indexOf("DOMAIN"));
    expect(out[2]!.indexOf("second.example")).toBe(out[0]!.indexOf("DOMAIN"));

    const empty = await tally(["websites", "list", "--account", "2"], cwd);
    expect(empty).toMatchObject({ code: 0, stdout: "No websites yet.\n" });
  });

  it("websites list --json is valid JSON", async () => {
    const result = await tally(["websites", "list", "--json"], cwd);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(rows).toEqual([
      expect.objectContaining({ id: 1, account_id: 1, domain: "listed.example", timezone: "UTC", password: false }),
      expect.objectContaining({ id: 2, account_id: 1, domain: "second.example", timezone: "Europe/Berlin" }),
    ]);
    const forAccount = await tally(["websites", "list", "--account", "1", "--json"], cwd);
    expect(JSON.parse(forAccount.stdout)).toHaveLength(2);
  });

  it("an unknown command exits 2 with the usage; help exits 0", async () => {
    const unknown = await tally(["frobnicate"], cwd);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toContain("usage: tally <command>");
    expect(unknown.stdout).toContain("keys create");

    const bad = await tally(["websites", "delete"], cwd);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("usage: tally websites list");

    for (const args of [[], ["help"], ["--help"]]) {
      const help = await tally(args, cwd);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("usage: tally <command>");
    }
  });

  it("an invalid PORT is a usage error", async () => {
    const result = await tally(["serve"], cwd, { PORT: "70000" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('PORT must be 0-65535, got "70000"');
  });
});
