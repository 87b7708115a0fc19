/**
 * What one anonymous client may ask for.
 * - Public routes that read the database (share pages, their API, the password form) are
 *   counted per client address: past `publicRateLimit` a 429 with Retry-After; /collect
 *   and /script.js are never counted. On by default (600 a minute), in `tally serve` too.
 * - Refused API keys count against the client's address wherever they are tried: on
 *   /api/v1 and on share routes (a Bearer key there used to be checked without limit).
 * - Failures count per IPv4 address and per IPv6 /64, passwords and keys alike: a
 *   client holding a /64 cannot get a fresh budget from each of its 2^64 addresses.
 */
import type { Tally } from "@tally-analytics/core";
import type { HandlerOptions } from "@tally-analytics/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressKey } from "@tally-analytics/server/internal";
import { apiClient, expectJson, form } from "../support/api-client.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHROME, killAllChildren, spawnServe, tempDirectory } from "./support.js";

const fetchHandler = transports.find((t) => t.name === "fetch handler")!;
const WRONG_KEY = "tly_wrong-key-wrong-key-wrong-key-wrong-key-00";
const RANGE = "from=2026-01-01&to=2026-12-31";

describe("limits on public routes and failed credentials", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let ownerKey = "";
  const served: Served[] = [];

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    const owner = await tally.accounts.create({ name: "owner" });
    ownerKey = owner.key;
    await tally.websites.create(owner.accountId, { domain: "public.example", privacy: 0, exclude_bots: 0 });
    await tally.websites.create(owner.accountId, { domain: "private.example", privacy: 1 });
    await tally.websites.create(owner.accountId, { domain: "secret.example", privacy: 2, password: "open sesame" });
  });
  afterAll(async () => {
    killAllChildren();
    await fixture.dispose();
  });

  /** The fetch handler behind a proxy we trust (one hop): each call says which client it forwards. */
  async function serve(options: HandlerOptions) {
    const behindProxy = behindOneProxy(tally);
    const one = await fetchHandler.serve(behindProxy, options);
    served.push(one);
    return (client: string, key: string | null = null) => {
      const api = apiClient(one, key);
      const headers = { "x-forwarded-for": client };
      return {
        get: (path: string) => api.get(path, headers),
        post: (path: string, init: RequestInit) =>
          api.call("POST", path, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } }),
        raw: (path: string, init: RequestInit = {}) =>
          one.fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } }),
      };
    };
  }

  it("Public routes: past publicRateLimit per client address a share read is 429 with Retry-After; /collect and /script.js are never limited", async () => {
    const as = await serve({ publicRateLimit: { limit: 5, windowMs: 60_000 } });
    const client = as("203.0.113.10");
    const reads = [
      "/share/public.example",
      "/share/public.example/api/website",
      `/share/public.example/api/stats?name=page&${RANGE}`,
      `/share/public.example/api/totals?${RANGE}`,
      "/share/public.example/api/realtime",
    ];
    for (const [i, path] of reads.entries()) {
      const response = await client.raw(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBe("5");
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(4 - i));
    }
    for (const path of [...reads.slice(1), "/share/private.example/api/stats?name=page&" + RANGE]) {
      const refused = await client.get(path);
      expectJson(refused, 429);
      expect(refused.body).toEqual({ message: "Too Many Attempts.", status: 429 });
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    expectJson(await client.post("/share/secret.example/api/auth", form({ password: "open sesame" })), 429);
    expect((await client.raw("/share/public.example")).status).toBe(429);

    // The tracker's routes stay open to the same client.
    for (let i = 0; i < 20; i++) {
      const hit = await client.raw("/collect", {
        method: "POST",
        headers: { "content-type": "text/plain", "user-agent": CHROME },
        body: JSON.stringify({ u: "https://public.example/" }),
      });
      expect(hit.status).toBe(202);
      expect(hit.headers.get("x-ratelimit-limit")).toBeNull();
      expect((await client.raw("/script.js")).status).toBe(200);
    }
    // Another client has its own budget; the owner's API is not touched by it.
    expect((await as("203.0.113.11").raw(reads[1]!)).status).toBe(200);
    expectJson(await as("203.0.113.10", ownerKey).get("/api/v1/account"), 200);
  });

  it("Public routes: refused credentials are anonymous database reads too: without rateLimit, key guessing stops at publicRateLimit", async () => {
    const as = await serve({ publicRateLimit: { limit: 3, windowMs: 60_000 } });
    for (let i = 0; i < 3; i++) expectJson(await as("203.0.113.30", WRONG_KEY).get("/api/v1/account"), 401);
    const refused = await as("203.0.113.30", WRONG_KEY).get("/api/v1/account");
    expectJson(refused, 429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expectJson(await as("203.0.113.30", ownerKey).get("/api/v1/account"), 200);
  });

  it("Public routes: limited by default (600 a minute per address), off with publicRateLimit: false", async () => {
    const byDefault = await (await serve({}))("203.0.113.20").raw("/share/public.example/api/website");
    expect(byDefault.headers.get("x-ratelimit-limit")).toBe("600");
    const off = await (await serve({ publicRateLimit: false }))("203.0.113.20").raw("/share/public.example/api/website");
    expect(off.status).toBe(200);
    expect(off.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("Brute force: wrong Bearer keys on share routes count like /api/v1 failures, against one budget per address; a right key still works", async () => {
    const as = await serve({ rateLimit: { limit: 3, windowMs: 60_000 }, publicRateLimit: false });
    const guesser = (path: string) => as("198.51.100.30", WRONG_KEY).get(path);
    // The owner-only read of a private website, with a guessed key: a 404 like a missing website…
    expectJson(await guesser(`/share/private.example/api/stats?name=page&${RANGE}`), 404);
    expectJson(await guesser("/share/private.example/api/website"), 404);
    expectJson(await guesser("/api/v1/account"), 401);
    // …until the address has failed three times, wherever it tried.
    for (const path of ["/share/private.example/api/website", "/share/secret.example/api/website", "/api/v1/websites"]) {
      const refused = await guesser(path);
      expectJson(refused, 429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    // The right key, from the same address, is never held back; other addresses are counted apart.
    expectJson(await as("198.51.100.30", ownerKey).get("/share/private.example/api/website"), 200);
    expectJson(await as("198.51.100.31", WRONG_KEY).get("/share/private.example/api/website"), 404);
    // A share read without any key is no failed sign-in.
    expectJson(await as("198.51.100.32").get("/share/private.example/api/website"), 404);
    expectJson(await as("198.51.100.32").get("/share/private.example/api/website"), 404);
    expectJson(await as("198.51.100.32").get("/share/private.example/api/website"), 404);
    expectJson(await as("198.51.100.32").get("/share/private.example/api/website"), 404);
  });

  it("Brute force: failures count per IPv6 /64 (and per IPv4 address), for API keys and share passwords", async () => {
    const as = await serve({ rateLimit: { limit: 3, windowMs: 60_000 }, publicRateLimit: false });
    // Three addresses of one /64, written three ways: one budget.
    for (const client of ["2001:db8:7:1::1", "2001:db8:7:1:ffff:ffff:ffff:fffe", "2001:0db8:0007:0001::abcd"]) {
      expectJson(await as(client, WRONG_KEY).get("/api/v1/account"), 401);
    }
    expectJson(await as("2001:db8:7:1::99", WRONG_KEY).get("/api/v1/account"), 429);
    expectJson(await as("2001:db8:7:1::99", WRONG_KEY).get("/share/private.example/api/website"), 429);
    // The next /64, and IPv4 neighbours, are other clients.
    expectJson(await as("2001:db8:7:2::1", WRONG_KEY).get("/api/v1/account"), 401);
    for (let i = 0; i < 3; i++) expectJson(await as("192.0.2.40", WRONG_KEY).get("/api/v1/account"), 401);
    expectJson(await as("192.0.2.40", WRONG_KEY).get("/api/v1/account"), 429);
    expectJson(await as("192.0.2.41", WRONG_KEY).get("/api/v1/account"), 401);

    // Share passwords: 10 per website and 15 minutes, per /64 likewise.
    for (let i = 0; i < 10; i++) {
      expectJson(
        await as(`2001:db8:9:9::${(i + 1).toString(16)}`).post("/share/secret.example/api/auth", form({ password: `guess ${i}` })),
        422,
      );
    }
    const locked = await as("2001:db8:9:9:1:2:3:4").post("/share/secret.example/api/auth", form({ password: "open sesame" }));
    expectJson(locked, 429);
    expect(locked.headers.get("set-cookie")).toBeNull();
    expectJson(await as("2001:db8:9:a::1").post("/share/secret.example/api/auth", form({ password: "open sesame" })), 200);
  });

  it("addressKey: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64 however written", () => {
    expect(addressKey("198.51.100.7")).toBe("198.51.100.7");
    expect(addressKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("2001:0DB8:0000:0000:0001::")).toBe("2001:db8:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
    expect(addressKey(undefined)).toBe("unknown");
  });

  it("tally serve: share reads are limited per address by default", async () => {
    const dir = tempDirectory("tally-public-limit-");
    try {
      const server = await spawnServe({ DATABASE_URL: `file:${dir.path}/tally.sqlite` });
      const response = await fetch(`${server.base}/share/nothing.example/api/website`);
      expect(response.status).toBe(404);
      expect(response.headers.get("x-ratelimit-limit")).toBe("600");
      await server.stop();
    } finally {
      dir.remove();
    }
  });
});

/** The same Tally, seen as running behind one proxy hop (the fetch handler's socket is 127.0.0.1). */
function behindOneProxy(tally: Tally): Tally {
  return { ...tally, options: { ...tally.options, trustProxy: true } };
}
