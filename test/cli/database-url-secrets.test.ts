/**
 * A database password is never printed, in whatever form the URL carries it: after
 * `user:`, with raw `@`, `/` or `?` in it, percent-encoded, as `?password=` (or any
 * parameter named like a secret, its name percent-encoded or not), or in a `key=value`
 * connection string. Checked on the masking itself, on the line `tally serve` prints when
 * it listens (a real PostgreSQL), and on the error it prints when it cannot connect.
 */
import { redactDatabaseUrl } from "@tally-analytics/core/internal";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../support/databases.js";
import { assertBuilt, emptyDirectory, killChildren, LISTENING, removeDirectories, serve, tally } from "./support.js";

const FORMS: [string, string][] = [
  ["postgres://tally:s3cret-one@db.example:5432/tally", "postgres://tally:***@db.example:5432/tally"],
  ["postgres://tally:s3cret@with@ats@db.example/tally", "postgres://tally:***@db.example/tally"],
  ["postgresql://tally:s3cret/with?slash@db.example/tally", "postgresql://tally:***@db.example/tally"],
  ["postgres://tally:s3cret%40encoded@db.example/tally", "postgres://tally:***@db.example/tally"],
  ["postgres://:s3cret-no-user@db.example/tally", "postgres://:***@db.example/tally"],
  ["postgres://tally@db.example/tally?sslmode=require&password=s3cret", "postgres://tally@db.example/tally?sslmode=require&password=***"],
  ["postgres://tally@db.example/tally?pass%77ord=s3cret", "postgres://tally@db.example/tally?pass%77ord=***"],
  ["postgres://db.example/tally?sslpassword=s3cret&sslkey=/keys/s3cret.key", "postgres://db.example/tally?sslpassword=***&sslkey=***"],
  ["host=db.example user=tally password=s3cret dbname=tally", "host=db.example user=tally password=*** dbname=tally"],
  ["host=db.example password='s3cret with spaces' dbname=tally", "host=db.example password=*** dbname=tally"],
  ["file:./data/tally.sqlite", "file:./data/tally.sqlite"],
];

describe("database URLs as printed", () => {
  it.each(FORMS)("masks %s", (url, printed) => {
    expect(redactDatabaseUrl(url)).toBe(printed);
    expect(redactDatabaseUrl(url)).not.toMatch(/s3cret/);
  });
});

describe("tally serve's output", () => {
  let cwd = "";
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    assertBuilt();
    cwd = emptyDirectory();
    if (DIALECTS.includes("postgres")) database = await createTestDatabase("postgres");
  });
  afterEach(killChildren);
  afterAll(async () => {
    removeDirectories();
    await database?.dispose();
  });

  it.skipIf(!DIALECTS.includes("postgres"))("never holds the password of the database it listens with", async () => {
    // The test server trusts local connections: the passwords are carried, and ignored.
    const url = new URL(database!.url);
    url.password = "pw%40listening-secret";
    url.searchParams.set("password", "query-listening-secret");
    const server = await serve(cwd, { DATABASE_URL: url.toString() });
    const { stdout, stderr } = await server.stop("SIGTERM");
    expect(stdout).toMatch(LISTENING);
    expect(LISTENING.exec(stdout)![2]).toContain(":***@");
    expect(`${stdout}\n${stderr}`).not.toMatch(/listening-secret/);
  });

  it("never holds the password of a database it cannot open", async () => {
    const refused = await tally(["serve"], cwd, {
      DATABASE_URL: "postgres://tally:raw@refused-secret@127.0.0.1:9/tally?sslpassword=refused-secret-too&connect_timeout=2",
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Cannot open the database postgres:\/\/tally:\*\*\*@127\.0\.0\.1:9\/tally\?sslpassword=\*\*\*/);
    expect(`${refused.stdout}\n${refused.stderr}`).not.toMatch(/refused-secret/);
  });
});
