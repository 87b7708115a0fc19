import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  assertBuilt,
  CHROME,
  emptyDirectory,
  KEY,
  killChildren,
  LISTENING,
  lines,
  removeDirectories,
  serve,
  tally,
} from "./support.js";

const dayFrom = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

afterEach(killChildren);
afterAll(removeDirectories);

describe("tally serve", () => {
  beforeAll(assertBuilt);

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
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("tally: TALLY_API_KEY must be at least 16 characters (it has 5).\n");
  });

  it("a CLICKHOUSE_URL of no known form, or a cluster without it, refuses to start, with a message", async () => {
    const bad = await tally(["serve"], emptyDirectory(), { CLICKHOUSE_URL: "clickhouse://host" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "tally: CLICKHOUSE_URL: unsupported ClickHouse URL (http(s)://user:password@host:8123/database, or chdb:PATH for ClickHouse embedded through chDB).\n",
    );
    const alone = await tally(["serve"], emptyDirectory(), { CLICKHOUSE_CLUSTER: "two_shards" });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe("tally: CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL.\n");
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
    expect(missing.stderr).toBe("tally keys create: No account 99.\n");

    const word = await tally(["keys", "create", "--account", "one"], cwd);
    expect(word.code).toBe(2);
    expect(word.stderr).toBe(
      'tally keys create: --account must be a positive whole number (an id), got "one" (see tally keys create --help)\n',
    );
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
    expect((await api(server, extraKey, "POST", "/api/v1/websites", { domain: "second.example", timezone: "Europe/Berlin" })).status).toBe(
      201,
    );

    // Revoked while the server runs: refused at once (keys are not cached).
    expect((await tally(["keys", "revoke", otherKey.slice(0, 12)], cwd)).code).toBe(0);
    expect((await api(server, otherKey, "GET", "/api/v1/account")).status).toBe(401);
    expect((await api(server, extraKey, "GET", "/api/v1/account")).status).toBe(200);
    expect((await server.stop("SIGTERM")).code).toBe(0);
  });

  it("keys revoke with an unknown or too short prefix, or none, fails with a message", async () => {
    const unknown = await tally(["keys", "revoke", "tly_zzzzzzzz"], cwd);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("tally: No active key starts with tly_zzzzzzzz.\n");

    const again = await tally(["keys", "revoke", ciKey.slice(0, 12)], cwd);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`tally: No active key starts with ${ciKey.slice(0, 12)}.\n`);

    const short = await tally(["keys", "revoke", "tly_"], cwd);
    expect(short.code).toBe(2);
    expect(short.stderr).toBe(
      "tally keys revoke: KEY_PREFIX must be at least the first 12 characters of the key (tly_ and 8 more), got 4 (see tally keys revoke --help)\n",
    );

    const none = await tally(["keys", "revoke"], cwd);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe("tally keys revoke: missing KEY_PREFIX (see tally keys revoke --help)\n");
    // The usage says how long a prefix must be.
    expect((await tally(["keys", "revoke", "--help"], cwd)).stdout).toContain("KEY_PREFIX is the key's first 12 characters");
    // An update changes only what it is given: its help names no creation defaults.
    const update = (await tally(["websites", "update", "--help"], cwd)).stdout;
    expect(update).toContain("  --privacy 0|1|2           share page: 0 public, 1 private, 2 password\n");
    expect(update.split("Environment:")[0]).not.toContain("default");
    // A required option is not bracketed as optional.
    expect((await tally(["import", "--help"], cwd)).stdout).toMatch(/^usage: tally import FILE --website ID \[--dry-run\]/);

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

  it("websites create, update and delete: settings as in the API, errors in one line", async () => {
    const ambiguous = await tally(["websites", "create", "shop.example"], cwd);
    expect(ambiguous).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "tally websites create: there are 2 accounts: say which with --account ID (see tally websites create --help)\n",
    });
    const created = await tally(
      ["websites", "create", "https://www.Shop.example/", "--account", "2", "--timezone", "Europe/Paris", "--exclude-bots", "0"],
      cwd,
    );
    expect(created).toMatchObject({ code: 0, stderr: "", stdout: "Created website 3: shop.example, account 2, privacy 1, Europe/Paris\n" });

    const updated = await tally(
      ["websites", "update", "3", "--privacy", "0", "--exclude-ips", "10.0.0.0/8, 192.0.2.1", "--retention-days", "30", "--json"],
      cwd,
    );
    expect(updated).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(updated.stdout)).toMatchObject({
      id: 3,
      account_id: 2,
      domain: "shop.example",
      privacy: 0,
      exclude_bots: 0,
      exclude_ips: "10.0.0.0/8\n192.0.2.1",
      timezone: "Europe/Paris",
      retention_days: 30,
    });

    for (const [args, line] of [
      [
        ["websites", "update", "3", "--timezone", "Mars/Olympus"],
        "tally websites update: The timezone must be a valid IANA time zone name.",
      ],
      [["websites", "update", "3", "--privacy", "2"], "tally websites update: The password field is required when privacy is 2."],
      [["websites", "update", "99", "--privacy", "0"], "tally websites update: No website 99."],
      [["websites", "create", "shop.example", "--account", "1"], "tally websites create: The domain has already been taken."],
      [["websites", "create", "new.example", "--account", "9"], "tally websites create: No account 9."],
      [
        ["websites", "delete", "3"],
        "tally websites delete: deleting website 3 (shop.example) deletes all its statistics: add --yes to confirm (see tally websites delete --help)",
      ],
    ] as const) {
      expect(await tally([...args], cwd), args.join(" ")).toMatchObject({ code: 2, stdout: "", stderr: `${line}\n` });
    }
    expect(JSON.parse((await tally(["websites", "list", "--account", "2", "--json"], cwd)).stdout)).toHaveLength(1);

    const deleted = await tally(["websites", "delete", "3", "--yes"], cwd);
    expect(deleted).toMatchObject({ code: 0, stderr: "", stdout: "Deleted website 3 (shop.example) and its statistics.\n" });
    expect((await tally(["websites", "list", "--account", "2"], cwd)).stdout).toBe("No websites yet.\n");

    // No database there: refused in one line, nothing made (a mistyped path never answers from a new database).
    const fresh = emptyDirectory();
    const missing = join(fresh, "no", "such", "dir", "x.sqlite");
    expect(await tally(["websites", "list"], fresh, { DATABASE_URL: `file:${missing}` })).toEqual({
      code: 2,
      signal: null,
      stdout: "",
      stderr: `tally: DATABASE_URL: no database at ${missing} (tally serve, tally migrate or tally keys create makes one)\n`,
    });
    expect(existsSync(join(fresh, "no"))).toBe(false);
    // A new install has one account: --account is not needed; with none, the message says what to do.
    expect((await tally(["migrate"], fresh)).code).toBe(0);
    expect(await tally(["websites", "create", "solo.example"], fresh)).toMatchObject({
      code: 2,
      stderr: "tally websites create: there is no account yet: create one with tally keys create (see tally websites create --help)\n",
    });
    expect((await tally(["keys", "create"], fresh)).code).toBe(0);
    expect(await tally(["websites", "create", "solo.example"], fresh)).toMatchObject({
      code: 0,
      stdout: "Created website 1: solo.example, account 1, privacy 1, UTC\n",
    });
  }, 90_000); // about twenty CLI processes, each starting Node and opening the database: slow on a loaded machine

  it("an unknown command is one line on stderr and exit 2; help exits 0", async () => {
    const unknown = await tally(["frobnicate"], cwd);
    expect(unknown).toMatchObject({ code: 2, stdout: "", stderr: 'tally: unknown command "frobnicate" (see tally --help)\n' });

    const bad = await tally(["websites", "delete"], cwd);
    expect(bad).toMatchObject({ code: 2, stderr: "tally websites delete: missing ID (see tally websites delete --help)\n" });

    for (const args of [[], ["help"], ["--help"], ["-h"]]) {
      const help = await tally(args, cwd);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("usage: tally <command>");
      expect(help.stdout).toContain("keys create");
    }
  });

  it("an invalid PORT is a usage error", async () => {
    const result = await tally(["serve"], cwd, { PORT: "70000" });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('tally: PORT must be 0-65535, got "70000".\n');
  });
});
