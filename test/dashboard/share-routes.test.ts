// Share pages and the dashboard shell over HTTP, embedded under /analytics: through the
// bare fetch handler and real Express and Fastify servers on port 0.
import { dashboardModules } from "@tally-analytics/dashboard";
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, form, type ApiClient } from "../support/api-client.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { generateTraffic } from "./demo-data.js";

const EMBEDDED = transports.filter((t) => ["fetch handler", "express", "fastify"].includes(t.name));
const NOT_FOUND = { message: "Resource not found.", status: 404 };
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
/** Everything generated (the last 20 days), in any time zone. */
const RANGE = `from=${day(-40)}&to=${day(1)}`;

/** The `name=value` of a Set-Cookie header, and its attributes. */
/** The signature with its first character changed: six bits of the signature itself, never padding bits. */
const tampered = (signature: string) => (signature.startsWith("A") ? "B" : "A") + signature.slice(1);

function parseSetCookie(header: string | null): { pair: string; attributes: string[] } {
  const [pair = "", ...attributes] = (header ?? "").split(";").map((part) => part.trim());
  return { pair, attributes };
}

describe.each(EMBEDDED)("share pages and dashboard through $name", (transport) => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let owner: ApiClient;
  let stranger: ApiClient;
  let anonymous: ApiClient;
  let ownerAccount = 0;
  const sites: Record<string, number> = {};

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    const alice = await tally.accounts.create({ name: "alice" });
    const bob = await tally.accounts.create({ name: "bob" });
    ownerAccount = alice.accountId;
    for (const [domain, privacy] of [
      ["public.example", 0],
      ["private.example", 1],
      ["secret.example", 2],
      ["limited.example", 2],
    ] as const) {
      const site = await tally.websites.create(alice.accountId, { domain, privacy, ...(privacy === 2 ? { password: "open sesame" } : {}) });
      sites[domain] = site.id;
      await generateTraffic(tally, { domain, days: 20, sessionsPerDay: 4, seed: site.id });
    }
    served = await transport.serve(tally, {
      // The host app's own login: a cookie naming alice.
      authenticate: (request) => ((request.headers.get("cookie") ?? "").includes("host_session=alice") ? alice.accountId : null),
    });
    owner = apiClient(served, alice.key);
    stranger = apiClient(served, bob.key);
    anonymous = apiClient(served, null);
  });

  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  async function expectedStats(domain: string, query: string) {
    const input = Object.fromEntries(new URLSearchParams(query));
    const page = await tally.stats.queryWebsite(sites[domain] ?? 0, input);
    return page.data;
  }

  async function unlock(domain: string, password: string, client: ApiClient = anonymous) {
    return client.post(`/share/${domain}/api/auth`, form({ password }));
  }

  describe("dashboard shell", () => {
    it("redirects the bare mount to its slash form, relatively", async () => {
      if (transport.name === "fetch handler") {
        const response = await served.fetch("", { redirect: "manual" });
        expect(response.status).toBe(308);
        expect(response.headers.get("location")).toBe("analytics/");
      } else {
        const response = await fetch(served.base, { redirect: "manual" });
        expect(response.status).toBe(308);
        expect(new URL(response.headers.get("location") ?? "", served.base).pathname).toBe("/analytics/");
      }
    });

    it("serves the HTML with relative asset URLs and a Content-Security-Policy", async () => {
      const response = await served.fetch("/");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
      const html = await response.text();
      expect(html).toContain('data-base="./"');
      expect(html).toMatch(/<script type="module" src="\.\/assets\/dashboard\.js\?v=[\w-]{16}"><\/script>/);
      // The modules it imports at once are fetched beside it, not after it.
      for (const file of dashboardModules) expect(html).toContain(`<link rel="modulepreload" href="./assets/${file}">`);
      expect(html).toMatch(/<link rel="stylesheet" href="\.\/assets\/dashboard\.css\?v=[\w-]{16}">/);
    });

    it("serves assets with an ETag, a year of caching when versioned, and 304 on revalidation", async () => {
      const html = await (await served.fetch("/")).text();
      for (const [, path, type] of [
        [null, /src="\.\/(assets\/dashboard\.js\?v=[^"]+)"/.exec(html)?.[1], "text/javascript"],
        [null, /href="\.\/(assets\/dashboard\.css\?v=[^"]+)"/.exec(html)?.[1], "text/css"],
      ] as const) {
        const response = await served.fetch(`/${path}`, { headers: { "accept-encoding": "gzip" } });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toContain(type);
        expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
        const etag = response.headers.get("etag") ?? "";
        // The file as compressed at build time, with an ETag of that form.
        expect(etag).toMatch(/^"[\w-]{16}-gzip"$/);
        expect(response.headers.get("content-encoding")).toBe("gzip");
        const again = await served.fetch(`/${path}`, { headers: { "if-none-match": etag } });
        expect(again.status).toBe(304);
      }
      const unknown = await anonymous.get("/assets/nope.js");
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ message: "Not found.", status: 404 });
    });
  });

  describe("privacy 0: public", () => {
    it("anyone reads the page, the website's zone, stats and realtime", async () => {
      const page = await served.fetch("/share/public.example");
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('data-base="../"');
      expect(html).toContain('data-share="public.example"');
      expect(html).toContain('src="../assets/dashboard.js?v=');

      const website = await anonymous.get("/share/public.example/api/website");
      expect(website.status).toBe(200);
      expect(website.body.data).toEqual({ domain: "public.example", timezone: "UTC" });
      expect(website.headers.get("cache-control")).toBe("no-store");

      for (const query of [
        `name=visitors&${RANGE}&per_page=100`,
        `name=page&${RANGE}&search=blog`,
        `name=browser&${RANGE}&sort_by=value&sort=asc`,
      ]) {
        const response = await anonymous.get(`/share/public.example/api/stats?${query}`);
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual(await expectedStats("public.example", query));
        expect(response.body.meta?.path).toBe(`${served.base}/share/public.example/api/stats`);
      }
      const realtime = await anonymous.get("/share/public.example/api/realtime");
      expect(realtime.body).toEqual({ data: { visitors: 3 }, status: 200 });
      expect(await owner.get(`/api/v1/realtime/${sites["public.example"]}`)).toMatchObject({
        status: 200,
        body: { data: { visitors: 3 } },
      });
    });

    it("validates stats queries like the account API", async () => {
      const badName = await anonymous.get(`/share/public.example/api/stats?name=nope&${RANGE}`);
      expect(badName.status).toBe(422);
      expect(Object.keys(badName.body.errors ?? {})).toEqual(["name"]);
      const badRange = await anonymous.get("/share/public.example/api/stats?name=page&from=2026-01-02&to=2026-01-01");
      expect(badRange.body.errors).toEqual({ to: ["The to must be a date after or equal to from."] });
    });

    it("accepts the domain as a user would type it", async () => {
      expect((await anonymous.get("/share/WWW.Public.Example/api/website")).status).toBe(200);
    });
  });

  describe("privacy 1: private", () => {
    it("is a 404 to others, exactly like a missing website", async () => {
      const missingPage = await served.fetch("/share/missing.example");
      const privatePage = await served.fetch("/share/private.example");
      expect(privatePage.status).toBe(404);
      expect(missingPage.status).toBe(404);
      expect((await privatePage.text()).replaceAll("private", "missing")).toBe(await missingPage.text());
      for (const path of ["api/website", `api/stats?name=page&${RANGE}`, "api/realtime"]) {
        for (const client of [anonymous, stranger]) {
          const response = await client.get(`/share/private.example/${path}`);
          expect(response.status).toBe(404);
          expect(response.body).toEqual(NOT_FOUND);
          expect((await client.get(`/share/missing.example/${path}`)).body).toEqual(NOT_FOUND);
        }
      }
      expect((await unlock("private.example", "anything")).body).toEqual(NOT_FOUND);
    });

    it("is readable by its owner, with an API key or the host's own login", async () => {
      expect((await owner.get("/share/private.example/api/website")).status).toBe(200);
      const hosted = await anonymous.get("/share/private.example/api/website", { cookie: "host_session=alice" });
      expect(hosted.status).toBe(200);
      expect((await served.fetch("/share/private.example", { headers: { cookie: "host_session=alice" } })).status).toBe(200);
      const stats = await anonymous.get(`/share/private.example/api/stats?name=visitors&${RANGE}`, { cookie: "host_session=alice" });
      expect(stats.body.data).toEqual(await expectedStats("private.example", `name=visitors&${RANGE}`));
    });
  });

  describe("privacy 2: password", () => {
    it("asks for the password, then a signed HttpOnly cookie scoped to the page grants access", async () => {
      const page = await served.fetch("/share/secret.example");
      expect(page.status).toBe(200); // the page shows its password form
      const locked = await anonymous.get("/share/secret.example/api/website");
      expect(locked.status).toBe(401);
      expect(locked.body).toEqual({ message: "This page is protected by a password.", status: 401 });

      const wrong = await unlock("secret.example", "wrong");
      expect(wrong.status).toBe(422);
      expect(wrong.body.errors).toEqual({ password: ["The password is incorrect."] });
      expect(wrong.headers.get("set-cookie")).toBeNull();
      expect((await unlock("secret.example", "")).body.errors).toEqual({ password: ["The password field is required."] });

      const right = await unlock("secret.example", "open sesame");
      expect(right.status).toBe(200);
      const cookie = parseSetCookie(right.headers.get("set-cookie"));
      expect(cookie.pair).toMatch(/^tally_share=\d+\.[\w-]{43}$/);
      expect(cookie.attributes).toEqual(
        expect.arrayContaining([`Path=${new URL(served.base).pathname}/share/secret.example`, "HttpOnly", "SameSite=Lax"]),
      );
      expect(cookie.attributes).toContain(`Max-Age=${30 * 86_400}`);

      const query = `name=page&${RANGE}`;
      const stats = await anonymous.get(`/share/secret.example/api/stats?${query}`, { cookie: cookie.pair });
      expect(stats.status).toBe(200);
      expect(stats.body.data).toEqual(await expectedStats("secret.example", query));
      expect((await anonymous.get("/share/secret.example/api/realtime", { cookie: `other=1; ${cookie.pair}` })).status).toBe(200);

      // The cookie opens only this website, and only its share API: never the management API.
      const [expires, signature = ""] = cookie.pair.slice("tally_share=".length).split(".");
      expect((await anonymous.get("/share/limited.example/api/website", { cookie: cookie.pair })).status).toBe(401);
      expect((await anonymous.get("/api/v1/websites", { cookie: cookie.pair })).status).toBe(401);
      // Tampered: a later expiry or a changed signature.
      expect(
        (await anonymous.get("/share/secret.example/api/website", { cookie: `tally_share=${Number(expires) + 1}.${signature}` })).status,
      ).toBe(401);
      expect(
        (await anonymous.get("/share/secret.example/api/website", { cookie: `tally_share=${expires}.${tampered(signature)}` })).status,
      ).toBe(401);
      // The owner never needs the password.
      expect((await owner.get("/share/secret.example/api/website")).status).toBe(200);
    });

    it("a new password, or leaving privacy 2, revokes every cookie", async () => {
      const id = sites["secret.example"];
      const first = parseSetCookie((await unlock("secret.example", "open sesame")).headers.get("set-cookie")).pair;
      expect((await anonymous.get("/share/secret.example/api/website", { cookie: first })).status).toBe(200);

      expect((await owner.put(`/api/v1/websites/${id}`, form({ password: "new secret" }))).status).toBe(200);
      expect((await anonymous.get("/share/secret.example/api/website", { cookie: first })).status).toBe(401);
      expect((await unlock("secret.example", "open sesame")).status).toBe(422);

      const second = parseSetCookie((await unlock("secret.example", "new secret")).headers.get("set-cookie")).pair;
      expect((await anonymous.get("/share/secret.example/api/website", { cookie: second })).status).toBe(200);
      // Private, then password again with the very same password: the old cookie stays dead.
      await owner.put(`/api/v1/websites/${id}`, form({ privacy: 1 }));
      expect((await anonymous.get("/share/secret.example/api/website", { cookie: second })).status).toBe(404);
      await owner.put(`/api/v1/websites/${id}`, form({ privacy: 2, password: "new secret" }));
      expect((await anonymous.get("/share/secret.example/api/website", { cookie: second })).status).toBe(401);
      // Public: no cookie needed at all.
      await owner.put(`/api/v1/websites/${id}`, form({ privacy: 0 }));
      expect((await anonymous.get("/share/secret.example/api/website")).status).toBe(200);
      await owner.put(`/api/v1/websites/${id}`, form({ privacy: 2, password: "open sesame" }));
    });

    it("rate limits password attempts per website and client: 10 per 15 minutes, then 429", async () => {
      for (let attempt = 0; attempt < 10; attempt++) expect((await unlock("limited.example", `guess ${attempt}`)).status).toBe(422);
      const limited = await unlock("limited.example", "open sesame");
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ message: "Too Many Attempts.", status: 429 });
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(800);
      expect(limited.headers.get("set-cookie")).toBeNull();
      // Other websites are counted apart.
      expect((await unlock("secret.example", "open sesame")).status).toBe(200);
    });
  });

  describe("read-only", () => {
    it("share URLs take no management actions", async () => {
      for (const method of ["PUT", "DELETE", "PATCH"]) {
        for (const path of ["/share/public.example", "/share/public.example/api/website", "/share/public.example/api/stats"]) {
          const response = await anonymous.call(method, path);
          expect(response.status).toBe(405);
          expect(response.headers.get("allow")).toBe("GET, HEAD");
        }
      }
      expect((await anonymous.get("/share/public.example/api/websites")).status).toBe(404);
      expect((await owner.get(`/api/v1/websites/${sites["public.example"]}`)).body.data).toMatchObject({ privacy: 0 });
    });

    it("the realtime API is per account like stats", async () => {
      expect((await stranger.get(`/api/v1/realtime/${sites["public.example"]}`)).body).toEqual(NOT_FOUND);
      expect((await anonymous.get(`/api/v1/realtime/${sites["public.example"]}`)).status).toBe(401);
      expect(ownerAccount).toBeGreaterThan(0);
    });
  });
});
