// A first local run in a Hono app: the handler mounted with the Hono adapter learns its mount
// and the client's address without options; in development 127.0.0.1 counts for the app's
// website; the API answers through the app's own sign-in hook (a fetch Request); a handler
// mounted without its prefix, or without an address, says what to pass; every dropped hit
// says why in a header and, with DEBUG=tally, on standard error.
import { serve, type ServerType } from "@hono/node-server";
import type { Tally } from "@tally-analytics/core";
import { createHandler } from "@tally-analytics/server";
import { tallyHono } from "@tally-analytics/server/hono";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
let tally: Tally;
let dispose: () => Promise<void>;
let server: ServerType;
let base = "";
let websiteId = 0;

beforeAll(async () => {
  ({ tally, dispose } = createTempTally({ development: true }));
  const { accountId } = await tally.accounts.create({ name: "shop" });
  websiteId = (await tally.websites.create(accountId, { domain: "shop.example" })).id;
  const app = new Hono();
  // The app's own sign-in: a cookie it set, read from the fetch Request Tally hands the hook.
  const authenticate = (request: Request) => (request.headers.get("cookie") === "session=owner" ? accountId : null);
  app.all("/analytics/*", tallyHono(tally, { authenticate }));
  app.all("/bare/*", (c) => createHandler(tally)(c.req.raw));
  app.all("/no-address/*", (c) => createHandler(tally, { basePath: "/no-address" })(c.req.raw));
  server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  server?.close();
  await dispose?.();
});

const hit = (path: string, page: string, userAgent = CHROME) =>
  fetch(`${base}${path}/collect`, {
    method: "POST",
    headers: { "content-type": "text/plain", "user-agent": userAgent },
    body: JSON.stringify({ u: page }),
  });

describe("Tally in a Hono app, run locally", () => {
  it("counts a pageview on 127.0.0.1 for the app's website, read back through the app's sign-in", async () => {
    const counted = await hit("/analytics", `${base}/pricing`);
    expect(counted.status).toBe(202);
    await tally.flush();
    const day = new Date().toISOString().slice(0, 10);
    const stats = (cookie: string) =>
      fetch(`${base}/analytics/api/v1/stats/${websiteId}?name=page&from=${day}&to=${day}`, { headers: { cookie } });
    const signedIn = await stats("session=owner");
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as { data: unknown }).data).toEqual([{ value: "/pricing", count: 1 }]);
    expect((await stats("session=stranger")).status).toBe(401);
  });

  it("a dropped hit says why: a header, and a line with DEBUG=tally", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => void lines.push(String(line)));
    vi.stubEnv("DEBUG", "tally");
    try {
      const bot = await hit("/analytics", `${base}/pricing`, "curl/8.5.0");
      expect(bot.status).toBe(202);
      expect(bot.headers.get("x-tally-dropped")).toBe("bot");
      const unknown = await hit("/analytics", "https://elsewhere.example/");
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get("x-tally-dropped")).toBe("unknown-website");
    } finally {
      vi.unstubAllEnvs();
      spy.mockRestore();
    }
    expect(lines).toEqual([
      `tally: dropped a hit on ${base.slice("http://".length)}/pricing: a bot's user agent, and the website excludes bots (exclude_bots=0 counts them) (X-Tally-Dropped: bot)`,
      "tally: dropped a hit on elsewhere.example/: no website has the domain elsewhere.example (X-Tally-Dropped: unknown-website)",
    ]);
  });

  it("mounted without its prefix, or without the client's address, it says what to pass", async () => {
    const bare = await fetch(`${base}/bare/api/v1/websites`);
    expect(bare.status).toBe(404);
    expect(((await bare.json()) as { message: string }).message).toBe(
      'Not found. Tally answers /api/v1/websites here if it is mounted under /bare: pass createHandler(tally, { basePath: "/bare" }) (the Express, Fastify and Hono adapters learn the mount themselves).',
    );
    const noAddress = await hit("/no-address", `${base}/`);
    expect(noAddress.status).toBe(400);
    expect(((await noAddress.json()) as { message: string }).message).toMatch(
      /^The client address is unknown: .*createHandler\(tally\)\(request, \{ ip \}\)/,
    );
  });
});
