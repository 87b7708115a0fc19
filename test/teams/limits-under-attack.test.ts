/**
 * Sign-in limits under attack, on SQLite and PostgreSQL: bursts sent all at once cost at
 * most the limit in checks (each attempt is reserved in the database before it is
 * checked), for passwords, two-factor codes, sign-up keys and share passwords; on
 * PostgreSQL also with the burst split over two `tally serve` processes. An attacker
 * elsewhere cannot lock a person out: past the limit an e-mail slows down, and the person
 * signing in from their usual address still gets in. Password checks past a small queue
 * are refused at once with a 503. Real node:http, real databases, real processes.
 */
import { createTally, type Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { createTempTally, createTestTally, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { assertCliBuilt, spawnServe, type ServeProcess } from "../postgres/cluster.js";
import { CHEAP_PASSWORDS, PASSWORD, sessionFrom, signInFrom, statusCounts, totpCode, withKey } from "./support.js";

const nodeHttp = transports.find((transport) => transport.name === "node:http")!;
const BURST = 40;
const burst = (send: (i: number) => Promise<Response>) => Promise.all(Array.from({ length: BURST }, (_, i) => send(i)));

describe.each(DIALECTS)("sign-in limits under attack on %s", (dialect) => {
  let stored: TestTally;
  let tally: Tally;
  let served: Served;
  let accountId = 0;
  let accountKey = "";

  /** A user who signed in once from `usual` (their familiar place). */
  async function person(email: string, usual: string) {
    const user = await tally.team.users.add(accountId, { email, password: PASSWORD, role: "viewer" });
    expect((await signInFrom(served, usual, { email, password: PASSWORD })).status).toBe(303);
    return user;
  }

  beforeAll(async () => {
    const sent: unknown[] = [];
    stored = await createTestTally(dialect, {
      trustProxy: true,
      // Room in the password queue for a whole burst: here the limits decide, not the queue (tested below).
      passwords: { ...CHEAP_PASSWORDS, queued: BURST },
      publicUrl: "https://stats.acme.test",
      mail: { send: async (message) => void sent.push(message) },
    });
    tally = stored.tally;
    ({ accountId, key: accountKey } = await tally.accounts.create({ name: "acme" }));
    served = await nodeHttp.serve(tally);
  });
  afterAll(async () => {
    await served.close();
    await stored.dispose();
  });

  it("checks a burst of wrong passwords from one address at most ten times; the right one then waits there, and gets in from the usual address", async () => {
    await person("ada@acme.test", "203.0.113.10");
    const answers = await burst((i) => signInFrom(served, "198.51.100.7", { email: "ada@acme.test", password: `guess number ${i}` }));
    expect(statusCounts(answers)).toEqual({ 401: 10, 429: BURST - 10 });
    expect((await signInFrom(served, "198.51.100.7", { email: "ada@acme.test", password: PASSWORD })).status).toBe(429);
    const usual = await signInFrom(served, "203.0.113.10", { email: "ada@acme.test", password: PASSWORD });
    expect(usual.status).toBe(303);
    expect(sessionFrom(usual)).not.toBeNull();
  });

  it("checks a burst from forty addresses ten times; then the e-mail slows down elsewhere, and the person still gets in from the usual address", async () => {
    await person("bob@acme.test", "203.0.113.20");
    const answers = await burst((i) => signInFrom(served, `198.51.100.${100 + i}`, { email: "bob@acme.test", password: `guess ${i}` }));
    expect(statusCounts(answers)).toEqual({ 401: 10, 429: BURST - 10 });
    const elsewhere = await signInFrom(served, "192.0.2.50", { email: "bob@acme.test", password: PASSWORD });
    expect(elsewhere.status).toBe(429);
    // A slow-down, not a block: the next attempt from anywhere comes within minutes, not at the window's end.
    expect(Number(elsewhere.headers.get("retry-after"))).toBeLessThanOrEqual(180);
    expect((await signInFrom(served, "203.0.113.20", { email: "bob@acme.test", password: PASSWORD })).status).toBe(303);
  });

  it("checks a burst of wrong two-factor codes at most five times; the right code after it signs no one in", async () => {
    const user = await person("cy@acme.test", "203.0.113.30");
    const { secret } = await tally.team.twoFactor.begin(user.id);
    await tally.team.twoFactor.confirm(user.id, totpCode(secret, -1));
    const first = await signInFrom(served, "198.51.100.9", { email: "cy@acme.test", password: PASSWORD });
    expect(first.headers.get("location")).toBe("./login-code");
    const pending = sessionFrom(first)!;
    const answers = await burst((i) => signInFrom(served, "198.51.100.9", { code: String(100000 + i) }, pending, "/login-code"));
    // Five checked; the others refused, or (once a refusal ended the pending sign-in) sent back to the password.
    expect(statusCounts(answers)[401]).toBe(5);
    for (const answer of answers.filter((each) => each.status !== 401)) {
      expect(answer.status === 429 || answer.headers.get("location") === "./login").toBe(true);
      expect(sessionFrom(answer)).toBeNull();
    }
    const right = await signInFrom(served, "198.51.100.9", { code: totpCode(secret) }, pending, "/login-code");
    expect(sessionFrom(right)).toBeNull();
    // The password again, from there: its codes are still spent.
    const again = sessionFrom(await signInFrom(served, "198.51.100.9", { email: "cy@acme.test", password: PASSWORD }))!;
    expect((await signInFrom(served, "198.51.100.9", { code: totpCode(secret) }, again, "/login-code")).status).toBe(429);
  });

  it("checks a burst of sign-up keys and of share passwords at most as often as their limits allow", async () => {
    const signUps = await burst((i) =>
      signInFrom(
        served,
        "198.51.100.40",
        { key: `tly_not-a-key-${i}-at-all`, email: `x${i}@acme.test`, password: PASSWORD, password_confirmation: PASSWORD },
        undefined,
        "/signup",
      ),
    );
    expect(statusCounts(signUps)).toEqual({ 401: 30, 429: BURST - 30 });
    const website = await withKey(served, accountKey, "POST", "/api/v1/websites", {
      domain: `locked-${dialect}.test`,
      privacy: 2,
      password: "the share password",
    });
    expect(website.status).toBe(201);
    const shares = await burst((i) =>
      served.fetch(`/share/locked-${dialect}.test/api/auth`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.41" },
        body: JSON.stringify({ password: `wrong ${i}` }),
      }),
    );
    expect(statusCounts(shares)).toEqual({ 422: 10, 429: BURST - 10 });
  });

  it("lets no one elsewhere block a person's password reset: the usual address may still ask", async () => {
    await person("dee@acme.test", "203.0.113.40");
    const forgot = (ip: string) => signInFrom(served, ip, { email: "dee@acme.test" }, undefined, "/forgot-password");
    for (let i = 0; i < 5; i++) expect((await forgot(`198.51.100.${60 + i}`)).status).toBe(200);
    expect((await forgot("198.51.100.70")).status).toBe(429);
    expect((await forgot("203.0.113.40")).status).toBe(200);
  });
});

describe("password checks past a small queue", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let served: Served;

  beforeAll(async () => {
    // Costly enough that ten checks sent at once overlap; one runs and two wait, the rest are refused at once.
    fixture = createTempTally({ trustProxy: true, passwords: { cost: { logN: 14, r: 8, p: 2 }, concurrent: 1, queued: 2 } });
    served = await nodeHttp.serve(fixture.tally);
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("are refused at once with a 503 and Retry-After, and the refused attempts do not count", async () => {
    const send = (i: number) => signInFrom(served, `192.0.2.${i + 1}`, { email: `flood${i}@acme.test`, password: "not the password" });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(i)));
    expect(statusCounts(answers)).toEqual({ 401: 3, 503: 7 });
    for (const answer of answers.filter((each) => each.status === 503)) expect(answer.headers.get("retry-after")).toBe("1");
    // Nothing was counted for a refused one: its ten wrong passwords, one at a time, are all still checked.
    const refused = answers.findIndex((answer) => answer.status === 503);
    for (let round = 0; round < 10; round++) expect((await send(refused)).status).toBe(401);
    expect((await send(refused)).status).toBe(429);
  });
});

describe.skipIf(!DIALECTS.includes("postgres"))("sign-in limits across two tally serve processes on one PostgreSQL", () => {
  let database: TestDatabase;
  const processes: ServeProcess[] = [];
  let pair: [Served, Served];

  const servedBy = (process: ServeProcess): Served => ({
    base: process.base,
    fetch: (path, init) => fetch(`${process.base}${path}`, init),
    close: async () => {},
  });

  beforeAll(async () => {
    assertCliBuilt();
    database = await createTestDatabase("postgres");
    // The users' hashes are made cheaply here: the cost travels with each hash, so the servers check them as cheaply.
    const maker = createTally({ database: database.url, passwords: CHEAP_PASSWORDS });
    const { accountId } = await maker.accounts.create({ name: "acme" });
    await maker.team.users.add(accountId, { email: "eve@acme.test", password: PASSWORD, role: "viewer" });
    await maker.close();
    const env = { DATABASE_URL: database.url, TALLY_API_KEY: "tly_limits_two_processes_0123456789abcdef" };
    processes.push(...(await Promise.all([spawnServe(env), spawnServe(env)])));
    pair = [servedBy(processes[0]!), servedBy(processes[1]!)];
  }, 60_000);
  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await database?.dispose();
  });

  it("checks a burst split over both processes at most ten times", async () => {
    expect((await signInFrom(pair[1], "203.0.113.77", { email: "eve@acme.test", password: PASSWORD })).status).toBe(303);
    const answers = await burst((i) => signInFrom(pair[i % 2]!, "198.51.100.77", { email: "eve@acme.test", password: `guess ${i}` }));
    // Each process checks one password at a time and lets four wait: past that, a 503 (not counted).
    const counts = statusCounts(answers);
    expect(Object.keys(counts).every((status) => ["401", "429", "503"].includes(status))).toBe(true);
    expect(counts[401]).toBeLessThanOrEqual(10);
    // One at a time, alternating processes, the rest of the ten: then both refuse.
    let checked = counts[401] ?? 0;
    for (let i = 0; checked < 10; i++) {
      expect((await signInFrom(pair[i % 2]!, "198.51.100.77", { email: "eve@acme.test", password: `late guess ${i}` })).status).toBe(401);
      checked++;
    }
    expect((await signInFrom(pair[0], "198.51.100.77", { email: "eve@acme.test", password: PASSWORD })).status).toBe(429);
    expect((await signInFrom(pair[1], "203.0.113.77", { email: "eve@acme.test", password: PASSWORD })).status).toBe(303);
  });
});
