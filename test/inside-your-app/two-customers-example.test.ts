// examples/two-customers (analytics inside a SaaS app): the example itself, started as a
// user would (`node server.mjs`), proves through the API that each customer reads only
// their own site: the app's sign-in cookie is Tally's authenticate hook.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const EXAMPLE = fileURLToPath(new URL("../../examples/two-customers/", import.meta.url));
const directory = mkdtempSync(join(tmpdir(), "tally-two-customers-"));
// Yesterday to tomorrow: the example's hits are timed when it starts, whatever the clock says.
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe("examples/two-customers", () => {
  let child: ChildProcess;
  let origin: string;

  beforeAll(async () => {
    child = spawn(process.execPath, ["server.mjs"], {
      cwd: EXAMPLE,
      env: { ...process.env, PORT: "0", DATABASE_URL: `file:${join(directory, "example.sqlite")}` },
      stdio: ["ignore", "pipe", "inherit"],
    });
    origin = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk;
        const match = /Listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`the example exited with ${code}: ${out}`)));
    });
  }, 60_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
  });

  const as = (customer: string | null, path: string) =>
    fetch(`${origin}${path}`, { headers: customer ? { cookie: `customer=${customer}` } : {}, redirect: "manual" });
  const sitesOf = async (customer: string) =>
    ((await (await as(customer, "/analytics/api/v1/websites")).json()) as { data: { id: number; domain: string }[] }).data;

  it("signs a customer in with the app's own cookie and shows them a page of Tally's components for their site", async () => {
    const signIn = await as(null, "/sign-in/alice");
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get("set-cookie")).toMatch(/^customer=alice;/);
    const [site] = await sitesOf("alice");
    const page = await (await as("alice", "/traffic")).text();
    expect(page).toContain(`<tally-chart api="/analytics/api/v1" site="${site!.id}"`);
    expect((await as(null, "/traffic")).status).toBe(401);
  });

  it("lets each customer read only their own site through the API", async () => {
    const alice = await sitesOf("alice");
    const bob = await sitesOf("bob");
    expect(alice.map((site) => site.domain)).toEqual(["alice-shop.example"]);
    expect(bob.map((site) => site.domain)).toEqual(["bob-books.example"]);
    const pages = (customer: string, site: number) =>
      as(customer, `/analytics/api/v1/stats/${site}?name=page&from=${day(-1)}&to=${day(1)}`);
    const own = await pages("alice", alice[0]!.id);
    expect(own.status).toBe(200);
    expect(((await own.json()) as { data: { value: string; count: number }[] }).data[0]).toEqual({ value: "/shoes", count: 2 });
    expect((await pages("bob", alice[0]!.id)).status).toBe(404);
    expect((await pages("alice", bob[0]!.id)).status).toBe(404);
    expect((await as(null, "/analytics/api/v1/websites")).status).toBe(401);
  });
});
