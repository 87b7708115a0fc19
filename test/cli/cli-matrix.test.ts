/**
 * Every `tally` command (the CLI's own table) × --help, bad flags and bad configuration,
 * run through the built binary in an empty directory: help never runs the command, a
 * bad command line or environment is one line on stderr and exit 2 before anything is
 * created, an expected failure is one line and exit 1, a stack only with DEBUG.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { COMMANDS, type Command } from "@tally-analytics/cli";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DIALECTS, POSTGRES_ADMIN_URL } from "../support/databases.js";
import { assertBuilt, emptyDirectory, filesIn, killChildren, lines, removeDirectories, serve, tally, type Finished } from "./support.js";

// Dozens of processes per test on a shared machine.
vi.setConfig({ testTimeout: 120_000 });
beforeAll(assertBuilt);
afterEach(killChildren);
afterAll(removeDirectories);

/**
 * Arguments that pass each command's own checks, so a case reaches what it tests. A new
 * command needing arguments must be added here (its cases fail with "missing …" until then).
 */
const VALID_ARGUMENTS: Record<string, string[]> = {
  "keys revoke": ["tly_abcdefgh"],
  "users add": ["ada@example.com", "--role", "viewer"],
  "users role": ["ada@example.com", "admin"],
  "users remove": ["ada@example.com"],
  "users reset-2fa": ["ada@example.com"],
  "websites create": ["example.com"],
  "websites update": ["1", "--timezone", "UTC"],
  "websites delete": ["1", "--yes"],
  "reports set": ["--account", "1", "--period", "week"],
  "reports send": ["--dry-run"],
  "alerts list": ["1"],
  "alerts add": ["1", "--kind", "visitors", "--threshold", "5", "--email", "ops@example.com"],
  "alerts update": ["1", "1", "--enabled", "0"],
  "alerts delete": ["1", "1"],
  "alerts deliveries": ["1"],
  import: ["export.csv.gz", "--website", "1"],
  export: ["--website", "1"],
  copy: ["--from", "file:a.sqlite", "--to", "file:b.sqlite"],
};
const argsOf = (command: Command) => [...command.name.split(" "), ...(VALID_ARGUMENTS[command.name] ?? [])];
const readsDatabase = COMMANDS.filter((command) => command.environment?.includes("DATABASE_URL"));

/** Runs the cases a few at a time (each is its own process and directory). */
async function runAll<T>(cases: readonly T[], runCase: (item: T) => Promise<void>, concurrency = 4): Promise<void> {
  const queue = [...cases];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await runCase(item);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Refused before anything started: exit code, exactly one line on stderr, nothing on stdout, nothing created. */
function expectRefused(result: Finished, cwd: string, code: number, line: string | RegExp): void {
  expect({ code: result.code, stdout: result.stdout, stderrLines: lines(result.stderr).length }).toEqual({
    code,
    stdout: "",
    stderrLines: 1,
  });
  if (typeof line === "string") expect(result.stderr).toBe(`${line}\n`);
  else expect(result.stderr).toMatch(line);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(filesIn(cwd)).toEqual([]);
}

describe("tally <command> --help", () => {
  it("the command list names every command of the table", async () => {
    const help = await tally(["--help"], emptyDirectory());
    expect(help.code).toBe(0);
    for (const command of COMMANDS) expect(help.stdout).toContain(`\n  ${command.name}`);
  });

  it("--help after the command's arguments prints its usage and never runs it, on every command", async () => {
    await runAll(COMMANDS, async (command) => {
      const cwd = emptyDirectory();
      const result = await tally([...argsOf(command), "--help"], cwd);
      expect(result, command.name).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout.startsWith(`usage: tally ${command.name}`)).toBe(true);
      for (const option of Object.keys(command.options)) expect(result.stdout).toContain(`--${option}`);
      // It did not run: no database, no key, no server.
      expect(filesIn(cwd)).toEqual([]);
      expect(result.stdout).not.toMatch(/tly_[\w-]{20,}|Tally is listening/);
    });
  });

  it("-h wins over a bad flag and a bad environment, on every command", async () => {
    await runAll(COMMANDS, async (command) => {
      const cwd = emptyDirectory();
      const result = await tally([...argsOf(command), "--bogus", "-h"], cwd, { DATABASE_URL: "mysql://x@y/z" });
      expect(result, command.name).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout.startsWith(`usage: tally ${command.name}`)).toBe(true);
      expect(filesIn(cwd)).toEqual([]);
    });
  });

  it("tally help <command> is <command> --help", async () => {
    const cwd = emptyDirectory();
    const [viaHelp, viaFlag] = await Promise.all([
      tally(["help", "websites", "create"], cwd),
      tally(["websites", "create", "--help"], cwd),
    ]);
    expect(viaHelp).toMatchObject({ code: 0, stderr: "" });
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it("tally keys --help lists that group; tally --version and -v print the package version", async () => {
    const group = await tally(["keys", "--help"], emptyDirectory());
    expect(group.code).toBe(0);
    expect(group.stdout).toContain("usage: tally keys <command>");
    expect(group.stdout).toContain("keys revoke KEY_PREFIX");
    expect(group.stdout).not.toContain("websites list");
    const { version } = JSON.parse(readFileSync(new URL("../../packages/cli/package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-v"])
      expect(await tally([flag], emptyDirectory())).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  });
});

describe("a command line that cannot work: one line, exit 2, nothing done", () => {
  it("an unknown option, on every command", async () => {
    await runAll(COMMANDS, async (command) => {
      const cwd = emptyDirectory();
      expectRefused(
        await tally([...argsOf(command), "--bogus"], cwd),
        cwd,
        2,
        `tally ${command.name}: unknown option --bogus (see tally ${command.name} --help)`,
      );
    });
  });

  it("an unexpected argument, on every command", async () => {
    await runAll(COMMANDS, async (command) => {
      const cwd = emptyDirectory();
      expectRefused(
        await tally([...argsOf(command), "extra"], cwd),
        cwd,
        2,
        `tally ${command.name}: unexpected argument "extra" (see tally ${command.name} --help)`,
      );
    });
  });

  it("a string option without its value, and a boolean option with one", async () => {
    const cases = COMMANDS.flatMap((command) =>
      Object.entries(command.options).map(([name, option]) => ({ command, name, type: option.type })),
    );
    expect(cases.length).toBeGreaterThan(10);
    await runAll(cases, async ({ command, name, type }) => {
      const cwd = emptyDirectory();
      const argv = [...argsOf(command), type === "string" ? `--${name}` : `--${name}=yes`];
      const problem = type === "string" ? `--${name} needs a value` : `--${name} takes no value`;
      expectRefused(await tally(argv, cwd), cwd, 2, `tally ${command.name}: ${problem} (see tally ${command.name} --help)`);
    });
  });

  it("a missing argument names it", async () => {
    const needing = COMMANDS.filter((command) => (command.arguments ?? []).length > 0);
    expect(needing.map((command) => command.name)).toEqual(
      expect.arrayContaining(["keys revoke", "websites create", "websites update", "websites delete"]),
    );
    await runAll(needing, async (command) => {
      const cwd = emptyDirectory();
      const missing = command.arguments!.filter((name) => !name.startsWith("[")).join(" ");
      expectRefused(
        await tally(command.name.split(" "), cwd),
        cwd,
        2,
        `tally ${command.name}: missing ${missing} (see tally ${command.name} --help)`,
      );
    });
  });

  it.each([
    [["bogus"], 'tally: unknown command "bogus" (see tally --help)'],
    [["keys", "bogus"], 'tally: unknown command "keys bogus" (keys commands: keys create, keys revoke) (see tally --help)'],
    [["keys"], 'tally: "keys" needs a command: keys create, keys revoke (see tally --help)'],
    [["--bogus"], "tally: unknown option --bogus (see tally --help)"],
    [["serve", "--port", "4000"], "tally serve: unknown option --port; set PORT in the environment instead (see tally serve --help)"],
    [["keys", "create", "--name", ""], "tally keys create: --name may not be empty (see tally keys create --help)"],
    [
      ["keys", "create", "--account", "0"],
      'tally keys create: --account must be a positive whole number (an id), got "0" (see tally keys create --help)',
    ],
    [
      ["websites", "update", "x", "--privacy", "0"],
      'tally websites update: ID must be a positive whole number (an id), got "x" (see tally websites update --help)',
    ],
    [
      ["websites", "update", "1"],
      "tally websites update: nothing to change: give at least one setting (see --help) (see tally websites update --help)",
    ],
  ])("tally %j", async (argv, line) => {
    const cwd = emptyDirectory();
    expectRefused(await tally(argv, cwd), cwd, 2, line);
  });
});

describe("bad configuration: one line naming the variable, exit 2, before anything is created", () => {
  it("DATABASE_URL with a scheme Tally does not support, on every command that reads it", async () => {
    // Every command but copy, which names both of its databases on the command line.
    expect(COMMANDS.filter((command) => !readsDatabase.includes(command)).map((command) => command.name)).toEqual(["copy"]);
    await runAll(readsDatabase, async (command) => {
      const cwd = emptyDirectory();
      const result = await tally(argsOf(command), cwd, { DATABASE_URL: "mysql://x@y/z" });
      expectRefused(
        result,
        cwd,
        2,
        'tally: DATABASE_URL: unsupported database URL scheme "mysql:" (SQLite: file:PATH or :memory:, PostgreSQL: postgres://user@host/db).',
      );
    });
  });

  it.each([
    [
      { TRUST_PROXY: "maybe" },
      'tally: TRUST_PROXY must be true, false, a hop count or comma-separated IP addresses/CIDRs of your proxies, got "maybe".',
    ],
    [
      { TRUST_PROXY: "10.0.0.0/8, 10.1.0.0/33" },
      /^tally: TRUST_PROXY must be .+, got "10\.0\.0\.0\/8, 10\.1\.0\.0\/33" \("10\.1\.0\.0\/33" is not an IP address or CIDR\)\.\n$/,
    ],
    [{ GEOIP_DB: "./GeoLite2-City.mmdb" }, "tally: GEOIP_DB: no file at ./GeoLite2-City.mmdb."],
    [{ PORT: "http" }, 'tally: PORT must be 0-65535, got "http".'],
    [{ RATE_LIMIT: "-1" }, 'tally: RATE_LIMIT must be a whole number of requests per minute (0: no limit), got "-1".'],
    [{ FLUSH_INTERVAL_MS: "0" }, 'tally: FLUSH_INTERVAL_MS must be a whole number of milliseconds from 1 to 86400000, got "0".'],
    [{ TALLY_API_KEY: "too-short" }, "tally: TALLY_API_KEY must be at least 16 characters (it has 9)."],
    [{ DATABASE_URL: "file:" }, /^tally: DATABASE_URL: no file path in the database URL "file:"/],
  ])("tally serve with %j", async (env, line) => {
    const cwd = emptyDirectory();
    expectRefused(await tally(["serve"], cwd, env), cwd, 2, line);
  });

  it("the accepted TRUST_PROXY forms start", async () => {
    for (const value of ["true", "false", "2", "10.0.0.0/8,fd00::/8, 192.168.1.1"]) {
      const server = await serve(emptyDirectory(), { TRUST_PROXY: value });
      expect((await server.stop("SIGTERM")).code).toBe(0);
    }
  });
});

describe("expected failures: one line, exit 1, no stack, no key", () => {
  let blocker: Server;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => blocker.close());

  it("the port is taken: no key is printed, and no account was created", async () => {
    const cwd = emptyDirectory();
    const port = (blocker.address() as { port: number }).port;
    const result = await tally(["serve"], cwd, { PORT: String(port) });
    expect(result).toMatchObject({
      code: 1,
      stdout: "",
      stderr: `tally: cannot listen on 127.0.0.1:${port}: the port is in use (set PORT to another one, or PORT=0 for any free port)\n`,
    });
    // The next start on the same database is the first to create an account.
    const server = await serve(cwd);
    expect(lines(server.output.stdout)[0]).toBe("Created account 1. Its API key, shown only this once:");
    await server.stop("SIGTERM");
  });

  it("HOST that is not an address of this machine", async () => {
    const result = await tally(["serve"], emptyDirectory(), { HOST: "192.0.2.1" });
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(
      /^tally: cannot listen on 192\.0\.2\.1:0: 192\.0\.2\.1 is not an address of this machine \(set HOST\)\n$/,
    );
  });

  it("GEOIP_DB is a file but not a MaxMind database", async () => {
    const cwd = emptyDirectory();
    writeFileSync(join(cwd, "country.mmdb"), "not a database\n");
    const result = await tally(["serve"], cwd, { GEOIP_DB: "country.mmdb" });
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^tally: Cannot open the GeoIP database country\.mmdb: /);
  });

  const postgres = DIALECTS.includes("postgres");
  it.runIf(postgres)("a PostgreSQL database that does not exist, on every command that opens one; DEBUG=1 adds the stack", async () => {
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = "/tally_missing_database";
    url.password = "secret";
    const shown = url.toString().replace(":secret@", ":***@");
    await runAll(readsDatabase, async (command) => {
      const cwd = emptyDirectory();
      const result = await tally(argsOf(command), cwd, { DATABASE_URL: url.toString() });
      expectRefused(result, cwd, 1, `tally: Cannot open the database ${shown}: database "tally_missing_database" does not exist`);
    });
    const debug = await tally(["migrate"], emptyDirectory(), { DATABASE_URL: url.toString(), DEBUG: "1" });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/\n\s+at /);
    expect(debug.stderr).toContain("caused by: ");
    expect(debug.stderr).not.toContain("secret");
  });
});
