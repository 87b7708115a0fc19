import { tallyInternals, type Tally } from "@tally-analytics/core/internal";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { apiClient, expectInvalid, expectJson, form, jsonBody, website, websites, type ApiClient } from "../support/api-client.js";
import { apiMatrix } from "../support/matrix.js";
import { servedWithTwoAccounts } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(apiMatrix)("websites API over $name", ({ transport, dialect }) => {
  let tally: Tally;
  let dispose: () => Promise<void>;
  let served: Served;
  let alice: ApiClient;
  let bob: ApiClient;
  let anonymous: ApiClient;
  let aliceId: number;
  const cleanups: (() => Promise<void>)[] = [];

  /** Serves the same Tally once more with other options (rate limit, hooks). */
  async function serveWith(options: Parameters<typeof transport.serve>[1], target: Tally = tally): Promise<Served> {
    const extra = await transport.serve(target, options);
    cleanups.push(() => extra.close());
    return extra;
  }

  beforeAll(async () => {
    ({ tally, served, aliceId, alice, bob, anonymous, dispose } = await servedWithTwoAccounts(transport, dialect));
  });

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
    await dispose();
  });

  describe("authentication", () => {
    it("401 without a key, with an unknown key and with another scheme", async () => {
      const unknown = apiClient(served, "tly_this-key-does-not-exist-anywhere-at-all");
      for (const response of [
        await anonymous.get("/api/v1/websites"),
        await unknown.get("/api/v1/websites"),
        await unknown.post("/api/v1/websites", form({ domain: "x.example" })),
        await anonymous.get("/api/v1/account", { authorization: "Basic YWxpY2U6c2VjcmV0" }),
      ]) {
        expectJson(response, 401);
        expect(response.body).toEqual({ message: "Unauthenticated.", status: 401 });
      }
    });

    it("GET /api/v1/account returns the key's account", async () => {
      const response = await alice.get("/api/v1/account");
      expectJson(response, 200);
      expect(response.body).toEqual({
        data: { id: aliceId, name: "alice", created_at: expect.stringMatching(ISO), email: null, report_period: "week" },
        status: 200,
      });
    });

    it("the authenticate hook names the account, and falls back to the key when it returns null", async () => {
      const hooked = await serveWith({
        authenticate: (request) => {
          const id = request.headers.get("x-host-account");
          return id === null ? null : Number(id);
        },
      });
      const viaHook = await apiClient(hooked, null).get("/api/v1/account", { "x-host-account": String(aliceId) });
      expectJson(viaHook, 200);
      expect((viaHook.body.data as { id: number }).id).toBe(aliceId);

      const viaKey = await apiClient(hooked, (await tally.accounts.create({ name: "carol" })).key).get("/api/v1/account");
      expect((viaKey.body.data as { name: string }).name).toBe("carol");

      const unknownAccount = await apiClient(hooked, null).get("/api/v1/account", { "x-host-account": "987654" });
      expect(unknownAccount.body).toEqual({ message: "Unauthenticated.", status: 401 });
      expectJson(await apiClient(hooked, null).get("/api/v1/account"), 401);
    });
  });

  describe("routing", () => {
    it("unknown routes are a JSON 404", async () => {
      // `{base}/` is the dashboard (test/dashboard); everything else unknown is JSON.
      for (const path of ["/api/v1/nothing", "/assets/nothing.js", "/api/v2/websites", "/api/v1/websites/1/extra", "/nope"]) {
        const response = await alice.get(path);
        expectJson(response, 404);
        expect(response.body).toEqual({ message: "Not found.", status: 404 });
      }
    });

    it("a known path with the wrong method is 405 with Allow", async () => {
      const list = await alice.call("PATCH", "/api/v1/websites");
      expectJson(list, 405);
      expect(list.body).toEqual({ message: "Method not allowed.", status: 405 });
      expect(list.headers.get("allow")).toBe("GET, HEAD, POST");

      const item = await anonymous.post("/api/v1/websites/1", form({ privacy: 0 }));
      expectJson(item, 405);
      expect(item.headers.get("allow")).toBe("GET, HEAD, PUT, DELETE");
    });

    it("an id that is not a positive integer is a 404", async () => {
      for (const id of ["abc", "1.5", "0", "-1", "1e3", "99999999999999999999", "%31"]) {
        const response = await alice.get(`/api/v1/websites/${id}`);
        expectJson(response, 404);
        expect(response.body).toEqual({ message: "Resource not found.", status: 404 });
      }
      expectJson(await alice.put("/api/v1/websites/abc", form({ privacy: 0 })), 404);
      expectJson(await alice.delete("/api/v1/websites/abc"), 404);
    });

    it("a malformed escape in the path is a 404 (Fastify answers 400 before Tally sees it)", async () => {
      const response = await alice.get("/api/v1/websites/%E0%A4%A");
      if (transport.rejectsMalformedPaths) return void expect(response.status).toBe(400);
      expectJson(response, 404);
      expect(response.body).toEqual({ message: "Resource not found.", status: 404 });
    });

    it("a body over the limit is 413", async () => {
      const response = await alice.post("/api/v1/websites", form({ domain: "big.example", exclude_params: "x".repeat(70_000) }));
      expectJson(response, 413);
      expect(response.body).toEqual({ message: "The request body is too large.", status: 413 });
      // The connection may be closed after a 413; the next request still works.
      expectJson(await alice.get("/api/v1/account"), 200);
    });
  });

  describe("POST /api/v1/websites", () => {
    it("creates with every default", async () => {
      const response = await alice.post("/api/v1/websites", form({ domain: "defaults.example" }));
      expectJson(response, 201);
      expect(response.body).toEqual({
        data: {
          id: expect.any(Number),
          domain: "defaults.example",
          privacy: 1,
          password: false,
          email: 0,
          exclude_bots: 1,
          exclude_params: "",
          exclude_ips: "",
          timezone: "UTC",
          retention_days: 730,
          page_names: "path",
          aliases: "",
          include_subdomains: 0,
          created_at: expect.stringMatching(ISO),
          updated_at: expect.stringMatching(ISO),
        },
        status: 201,
      });
    });

    it.each([
      ["HTTPS://WWW.Normal-Case.Example:8443/some/path?q=1#top", "normal-case.example"],
      ["www.WWW-prefixed.example", "www-prefixed.example"],
      ["http://user@sub.domain.example/", "sub.domain.example"],
      ["bücher.example", "xn--bcher-kva.example"],
      ["https://Bücher-Zwei.example/shop", "xn--bcher-zwei-9db.example"],
      ["192.168.10.20", "192.168.10.20"],
      ["http://10.1.2.3:8080/x", "10.1.2.3"],
      ["2001:DB8::10", "[2001:db8::10]"],
      ["http://[2001:db8::11]/", "[2001:db8::11]"],
      ["[2001:db8:0:0:0:0:0:12]", "[2001:db8::12]"],
      ["localhost", "localhost"],
    ])("normalises the domain %s → %s", async (input, expected) => {
      const response = await alice.post("/api/v1/websites", form({ domain: input }));
      expectJson(response, 201);
      expect(website(response).domain).toBe(expected);
    });

    // Core's normalizeDomain drops the port only after the bracket check, so this is refused today.
    it("normalises a bracketed IPv6 host with a port", async () => {
      const response = await alice.post("/api/v1/websites", form({ domain: "http://[2001:db8::13]:8080/" }));
      expect(website(response).domain).toBe("[2001:db8::13]");
    });

    it.each(["not a domain", "-leading.example", "under_score.example", "1.2.3", "256.1.1.1", "http://", "exa$mple.com", "a..b.example"])(
      "rejects the domain %j",
      async (input) => {
        expectInvalid(await alice.post("/api/v1/websites", form({ domain: input })), {
          domain: ["The domain must be a valid domain name or IP address."],
        });
      },
    );

    it("requires a domain", async () => {
      const required = { domain: ["The domain field is required."] };
      expectInvalid(await alice.post("/api/v1/websites", form({ privacy: 0 })), required);
      expectInvalid(await alice.post("/api/v1/websites", form({ domain: "  " })), required);
      expectInvalid(await alice.post("/api/v1/websites"), required);
    });

    it("keeps domains unique across accounts, after normalisation", async () => {
      expectJson(await alice.post("/api/v1/websites", form({ domain: "taken.example" })), 201);
      const taken = { domain: ["The domain has already been taken."] };
      expectInvalid(await bob.post("/api/v1/websites", form({ domain: "https://www.TAKEN.example/" })), taken);
      expectInvalid(await alice.post("/api/v1/websites", jsonBody({ domain: "taken.example" })), taken);
    });

    it("accepts every privacy, email and exclude_bots value", async () => {
      for (const [index, privacy] of [0, 1].entries()) {
        for (const email of [0, 1]) {
          for (const excludeBots of [0, 1]) {
            const domain = `flags-${index}${email}${excludeBots}.example`;
            const response = await alice.post("/api/v1/websites", form({ domain, privacy, email, exclude_bots: excludeBots }));
            expectJson(response, 201);
            expect(website(response)).toMatchObject({ domain, privacy, email, exclude_bots: excludeBots, password: false });
          }
        }
      }
    });

    it("names every broken choice at once", async () => {
      expectInvalid(
        await alice.post(
          "/api/v1/websites",
          form({ domain: "choices.example", privacy: 3, email: 2, exclude_bots: "yes", include_subdomains: 2 }),
        ),
        {
          privacy: ["The selected privacy is invalid."],
          email: ["The selected email is invalid."],
          exclude_bots: ["The selected exclude bots is invalid."],
          include_subdomains: ["The selected include subdomains is invalid."],
        },
      );
    });

    it("counts its subdomains when include_subdomains is 1 (form or JSON), not by default", async () => {
      const formed = await alice.post("/api/v1/websites", form({ domain: "subdomains-form.example", include_subdomains: "1" }));
      expectJson(formed, 201);
      expect(website(formed).include_subdomains).toBe(1);
      const json = await alice.post("/api/v1/websites", jsonBody({ domain: "subdomains-json.example", include_subdomains: 1 }));
      expect(website(json).include_subdomains).toBe(1);
      const id = website(json).id;
      expect(website(await alice.put(`/api/v1/websites/${id}`, jsonBody({ include_subdomains: 0 }))).include_subdomains).toBe(0);
      expect(website(await alice.put(`/api/v1/websites/${id}`, form({ privacy: 0 }))).include_subdomains).toBe(0);
      expectInvalid(await alice.put(`/api/v1/websites/${id}`, jsonBody({ include_subdomains: true })), {
        include_subdomains: ["The include subdomains field must be a string."],
      });
    });

    it("requires a password for privacy 2, stores it, and only ever says whether one is set", async () => {
      expectInvalid(await alice.post("/api/v1/websites", form({ domain: "secret.example", privacy: 2 })), {
        password: ["The password field is required when privacy is 2."],
      });
      expectInvalid(await alice.post("/api/v1/websites", form({ domain: "secret.example", privacy: 2, password: "x".repeat(129) })), {
        password: ["The password must be between 1 and 128 characters."],
      });
      const created = await alice.post("/api/v1/websites", form({ domain: "secret.example", privacy: 2, password: "hunter2-secret" }));
      expectJson(created, 201);
      expect(website(created)).toMatchObject({ privacy: 2, password: true });
      expect(created.text).not.toContain("hunter2");

      const fetched = await alice.get(`/api/v1/websites/${website(created).id}`);
      expect(website(fetched).password).toBe(true);
      expect(fetched.text).not.toContain("hunter2");
      expect(await tallyInternals(tally).websites.checkPassword(website(created).id, "hunter2-secret")).toBe(true);

      const publicSite = await alice.post("/api/v1/websites", form({ domain: "not-secret.example", privacy: 1, password: "unused" }));
      expect(website(publicSite)).toMatchObject({ privacy: 1, password: false });
    });

    it("stores exclude_ips one per line from commas and newlines, IPv4, IPv6 and CIDR", async () => {
      const response = await alice.post(
        "/api/v1/websites",
        form({ domain: "ips.example", exclude_ips: "192.168.0.1, 10.0.0.0/8\n2001:db8::/32\r\n::1,\n" }),
      );
      expectJson(response, 201);
      expect(website(response).exclude_ips).toBe("192.168.0.1\n10.0.0.0/8\n2001:db8::/32\n::1");
    });

    it("names each invalid exclude_ips entry", async () => {
      expectInvalid(await alice.post("/api/v1/websites", form({ domain: "bad-ips.example", exclude_ips: "10.0.0.1, nope\n10.0.0.0/33" })), {
        exclude_ips: [
          'The exclude ips entry "nope" is not a valid IP address or CIDR.',
          'The exclude ips entry "10.0.0.0/33" is not a valid IP address or CIDR.',
        ],
      });
    });

    it("stores exclude_params one per line, & included", async () => {
      const response = await alice.post("/api/v1/websites", form({ domain: "params.example", exclude_params: "utm_source, ref\n&" }));
      expectJson(response, 201);
      expect(website(response).exclude_params).toBe("utm_source\nref\n&");
      expectInvalid(await alice.post("/api/v1/websites", form({ domain: "bad-params.example", exclude_params: "ok\nhas space" })), {
        exclude_params: ['The exclude params entry "has space" is not a valid parameter name.'],
      });
    });

    it("accepts IANA time zones only", async () => {
      const response = await alice.post("/api/v1/websites", form({ domain: "tz.example", timezone: "Europe/Berlin" }));
      expect(website(response).timezone).toBe("Europe/Berlin");
      expectInvalid(await alice.post("/api/v1/websites", form({ domain: "bad-tz.example", timezone: "Mars/Olympus_Mons" })), {
        timezone: ["The timezone must be a valid IANA time zone name."],
      });
    });

    it("accepts a JSON body with numbers", async () => {
      const response = await alice.post(
        "/api/v1/websites",
        jsonBody({ domain: "json.example", privacy: 0, email: 1, exclude_bots: 0, exclude_ips: "1.2.3.4", timezone: "Asia/Tokyo" }),
      );
      expectJson(response, 201);
      expect(website(response)).toMatchObject({
        domain: "json.example",
        privacy: 0,
        email: 1,
        exclude_bots: 0,
        exclude_ips: "1.2.3.4",
        timezone: "Asia/Tokyo",
      });
      expectInvalid(await alice.post("/api/v1/websites", jsonBody({ domain: "json-bad.example", privacy: true })), {
        privacy: ["The privacy field must be a string."],
      });
    });

    it("refuses a JSON body that is not an object, or not JSON, with 400", async () => {
      const array = await alice.post("/api/v1/websites", jsonBody(["a"]));
      expectJson(array, 400);
      expect(array.body).toEqual({ message: "The request body must be a JSON object.", status: 400 });
      // express.json() (strict) refuses these itself, with Express's own 400 page.
      if (transport.hostParsesBodies) return;
      for (const value of ["text", 42, null]) {
        const response = await alice.post("/api/v1/websites", jsonBody(value));
        expectJson(response, 400);
        expect(response.body).toEqual({ message: "The request body must be a JSON object.", status: 400 });
      }
      const broken = await alice.post("/api/v1/websites", { body: "{nope", headers: { "content-type": "application/json" } });
      expectJson(broken, 400);
      expect(broken.body).toEqual({ message: "The request body is not valid JSON.", status: 400 });
    });

    it("refuses other media types with 415", async () => {
      const response = await alice.post("/api/v1/websites", { body: "domain=plain.example", headers: { "content-type": "text/plain" } });
      expectJson(response, 415);
    });

    it("takes the last value of a repeated form field", async () => {
      const response = await alice.post(
        "/api/v1/websites",
        form([
          ["domain", "first.example"],
          ["domain", "last.example"],
          ["privacy", "2"],
          ["privacy", "0"],
        ]),
      );
      expectJson(response, 201);
      expect(website(response)).toMatchObject({ domain: "last.example", privacy: 0 });
    });
  });

  describe("GET, PUT and DELETE /api/v1/websites/{id}", () => {
    let id: number;
    beforeAll(async () => {
      const created = await alice.post(
        "/api/v1/websites",
        form({ domain: "crud.example", exclude_ips: "10.0.0.1", exclude_params: "ref", timezone: "Europe/Paris" }),
      );
      id = website(created).id;
    });

    it("views a website", async () => {
      const response = await alice.get(`/api/v1/websites/${id}`);
      expectJson(response, 200);
      expect(response.body).toEqual({ data: expect.objectContaining({ id, domain: "crud.example" }), status: 200 });
    });

    it("updates only the fields sent and ignores domain", async () => {
      const before = website(await alice.get(`/api/v1/websites/${id}`));
      const response = await alice.put(`/api/v1/websites/${id}`, form({ privacy: 0, domain: "changed.example" }));
      expectJson(response, 200);
      expect(website(response)).toEqual({ ...before, privacy: 0, updated_at: expect.stringMatching(ISO) });
      expect(website(response).updated_at >= before.updated_at).toBe(true);

      const json = await alice.put(
        `/api/v1/websites/${id}`,
        jsonBody({ email: 1, exclude_bots: 0, exclude_ips: "", exclude_params: "&", timezone: "UTC" }),
      );
      expectJson(json, 200);
      expect(website(json)).toMatchObject({
        domain: "crud.example",
        privacy: 0,
        email: 1,
        exclude_bots: 0,
        exclude_ips: "",
        exclude_params: "&",
        timezone: "UTC",
      });
    });

    it("validates updates field by field", async () => {
      expectInvalid(await alice.put(`/api/v1/websites/${id}`, form({ privacy: 9, exclude_ips: "x" })), {
        privacy: ["The selected privacy is invalid."],
        exclude_ips: ['The exclude ips entry "x" is not a valid IP address or CIDR.'],
      });
      expectInvalid(await alice.put(`/api/v1/websites/${id}`, form({ privacy: 2 })), {
        password: ["The password field is required when privacy is 2."],
      });
      expectInvalid(await alice.put(`/api/v1/websites/${id}`, jsonBody({ page_names: "ids" })), {
        page_names: ["The page names must be one of: path, route."],
      });
      expectInvalid(await alice.put(`/api/v1/websites/${id}`, jsonBody({ page_names: 1 })), {
        page_names: ["The page names field must be a string."],
      });
      expect(website(await alice.put(`/api/v1/websites/${id}`, form({ page_names: " route " })))).toMatchObject({ page_names: "route" });
      expect(website(await alice.put(`/api/v1/websites/${id}`, form({ privacy: 0 })))).toMatchObject({ page_names: "route" });
    });

    it("keeps a password across updates until privacy leaves 2", async () => {
      const locked = await alice.put(`/api/v1/websites/${id}`, form({ privacy: 2, password: "pw" }));
      expect(website(locked)).toMatchObject({ privacy: 2, password: true });
      const other = await alice.put(`/api/v1/websites/${id}`, form({ exclude_bots: 1 }));
      expect(website(other)).toMatchObject({ privacy: 2, password: true, exclude_bots: 1 });
      const open = await alice.put(`/api/v1/websites/${id}`, form({ privacy: 0 }));
      expect(website(open)).toMatchObject({ privacy: 0, password: false });
    });

    it("hides another account's website behind the same 404", async () => {
      const notFound = { message: "Resource not found.", status: 404 };
      for (const response of [
        await bob.get(`/api/v1/websites/${id}`),
        await bob.put(`/api/v1/websites/${id}`, form({ privacy: 0 })),
        await bob.delete(`/api/v1/websites/${id}`),
        await alice.get("/api/v1/websites/987654"),
      ]) {
        expectJson(response, 404);
        expect(response.body).toEqual(notFound);
      }
      expectJson(await alice.get(`/api/v1/websites/${id}`), 200);
    });

    it("deletes, then the website is gone", async () => {
      const response = await alice.delete(`/api/v1/websites/${id}`);
      expectJson(response, 200);
      expect(response.body).toEqual({ id, object: "website", deleted: true, status: 200 });
      expectJson(await alice.get(`/api/v1/websites/${id}`), 404);
      expectJson(await alice.put(`/api/v1/websites/${id}`, form({ privacy: 1 })), 404);
      expectJson(await alice.delete(`/api/v1/websites/${id}`), 404);
    });
  });

  describe("GET /api/v1/websites", () => {
    let lister: ApiClient;
    const domains = Array.from({ length: 27 }, (_, i) => `site${String(i + 1).padStart(2, "0")}.example`);
    const url = (query: string) => `${served.base}/api/v1/websites${query}`;

    beforeAll(async () => {
      lister = apiClient(served, (await tally.accounts.create({ name: "lister" })).key);
      // Created out of alphabetical order so sorting by id and by domain differ.
      for (const domain of [...domains].reverse()) await lister.post("/api/v1/websites", form({ domain }));
    });

    it("pages 10 at a time, newest first, with absolute links", async () => {
      const first = await lister.get("/api/v1/websites");
      expectJson(first, 200);
      expect(websites(first).map((site) => site.domain)).toEqual(domains.slice(0, 10));
      expect(first.body.links).toEqual({ first: url("?page=1"), last: url("?page=3"), prev: null, next: url("?page=2") });
      expect(first.body.meta).toEqual({ current_page: 1, from: 1, last_page: 3, path: url(""), per_page: 10, to: 10, total: 27 });

      const last = await lister.get("/api/v1/websites?page=3");
      expect(websites(last).map((site) => site.domain)).toEqual(domains.slice(20));
      expect(last.body.links).toMatchObject({ prev: url("?page=2"), next: null });
      expect(last.body.meta).toMatchObject({ current_page: 3, from: 21, to: 27, last_page: 3 });
    });

    it("an empty page beyond the end", async () => {
      const beyond = await lister.get("/api/v1/websites?page=9");
      expectJson(beyond, 200);
      expect(beyond.body.data).toEqual([]);
      expect(beyond.body.meta).toMatchObject({ current_page: 9, from: null, to: null, last_page: 3, total: 27 });
      expect(beyond.body.links).toMatchObject({ next: null, last: url("?page=3") });
    });

    it("per_page, keeping the other query parameters in links", async () => {
      const response = await lister.get("/api/v1/websites?per_page=25&sort=asc&page=2");
      expect(websites(response).map((site) => site.domain)).toEqual([domains[1], domains[0]]);
      expect(response.body.links).toEqual({
        first: url("?per_page=25&sort=asc&page=1"),
        last: url("?per_page=25&sort=asc&page=2"),
        prev: url("?per_page=25&sort=asc&page=1"),
        next: null,
      });
      expect(response.body.meta).toMatchObject({ per_page: 25, from: 26, to: 27, last_page: 2 });
      for (const perPage of [50, 100]) {
        const all = await lister.get(`/api/v1/websites?per_page=${perPage}`);
        expect(all.body.meta).toMatchObject({ per_page: perPage, last_page: 1, total: 27 });
      }
    });

    it("sorts by id or domain, either way", async () => {
      const byIdAsc = await lister.get("/api/v1/websites?sort=asc&per_page=100");
      expect(websites(byIdAsc).map((site) => site.domain)).toEqual([...domains].reverse());
      const byDomainAsc = await lister.get("/api/v1/websites?sort_by=domain&sort=asc&per_page=100");
      expect(websites(byDomainAsc).map((site) => site.domain)).toEqual(domains);
      const byDomainDesc = await lister.get("/api/v1/websites?sort_by=domain&per_page=100");
      expect(websites(byDomainDesc).map((site) => site.domain)).toEqual([...domains].reverse());
    });

    it("searches a case-insensitive substring of the domain", async () => {
      const response = await lister.get("/api/v1/websites?search=SITE1&search_by=domain&sort_by=domain&sort=asc");
      expect(websites(response).map((site) => site.domain)).toEqual(domains.slice(9, 19));
      expect(response.body.meta).toMatchObject({ total: 10, last_page: 1 });
      const none = await lister.get("/api/v1/websites?search=zzz");
      expect(none.body.data).toEqual([]);
      expect(none.body.meta).toMatchObject({ total: 0, from: null, to: null, last_page: 1 });
      expect(none.body.links).toMatchObject({ prev: null, next: null, last: url("?search=zzz&page=1") });
    });

    it("lists only the caller's websites", async () => {
      const response = await bob.get("/api/v1/websites?per_page=100");
      expect(websites(response).some((site) => domains.includes(site.domain))).toBe(false);
    });

    it.each([
      ["per_page=15", { per_page: { given: "15", used: "10" } }],
      ["per_page=ten", { per_page: { given: "ten", used: "10" } }],
      ["sort_by=name", { sort_by: { given: "name", used: "id" } }],
      ["sort=up", { sort: { given: "up", used: "desc" } }],
      ["search_by=url", { search_by: { given: "url", used: "domain" } }],
    ])("answers %s with the default, saying so in meta and a Warning", async (query, fallbacks) => {
      const response = await lister.get(`/api/v1/websites?${query}`);
      const strict = await lister.get("/api/v1/websites");
      expectJson(response, 200);
      expect(response.body.data).toEqual(strict.body.data);
      expect(response.body.meta.fallbacks).toEqual(fallbacks);
      const [name, { given, used }] = Object.entries(fallbacks)[0]!;
      expect(response.headers.get("warning")).toBe(`299 - "${name}=${given} is not supported; ${name}=${used} was used"`);
      expect(strict.body.meta.fallbacks).toBeUndefined();
      expect(strict.headers.get("warning")).toBeNull();
    });

    it("puts the page figures beside meta too", async () => {
      const response = await lister.get("/api/v1/websites?page=2");
      const { current_page, last_page, per_page, total, from, to } = response.body.meta;
      expect(response.body).toMatchObject({ current_page, last_page, per_page, total, from, to });
      expect(response.body).toMatchObject({ current_page: 2, last_page: 3, per_page: 10, total: 27, from: 11, to: 20 });
    });

    it.each([
      ["page=0", { page: ["The page must be an integer greater than 0."] }],
      ["page=-1", { page: ["The page must be an integer greater than 0."] }],
      ["page=abc", { page: ["The page must be an integer greater than 0."] }],
      ["page=1.5", { page: ["The page must be an integer greater than 0."] }],
      ["per_page=7&page=x&sort=no", { page: ["The page must be an integer greater than 0."] }],
    ])("rejects %s", async (query, errors) => {
      expectInvalid(await lister.get(`/api/v1/websites?${query}`), errors);
    });
  });

  describe("rate limit", () => {
    it("is off by default", async () => {
      const response = await alice.get("/api/v1/account");
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    });

    it("counts per account, with headers on every response, then 429 with Retry-After", async () => {
      const limited = await serveWith({ rateLimit: { limit: 3, windowMs: 60_000 } });
      const client = apiClient(limited, (await tally.accounts.create({ name: "busy" })).key);
      const remaining: (string | null)[] = [];
      for (const path of ["/api/v1/account", "/api/v1/websites?per_page=7", "/api/v1/websites/987654"]) {
        const response = await client.get(path);
        expect(response.headers.get("x-ratelimit-limit")).toBe("3");
        remaining.push(response.headers.get("x-ratelimit-remaining"));
      }
      expect(remaining).toEqual(["2", "1", "0"]);

      const refused = await client.get("/api/v1/account");
      expectJson(refused, 429);
      expect(refused.body).toEqual({ message: "Too Many Attempts.", status: 429 });
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");

      const other = await apiClient(limited, (await tally.accounts.create({ name: "calm" })).key).get("/api/v1/account");
      expectJson(other, 200);
      expect(other.headers.get("x-ratelimit-remaining")).toBe("2");
    });

    it("counts failed sign-ins per address: wrong keys get 401 up to the limit, then 429; a right key still works", async () => {
      const limited = await serveWith({ rateLimit: { limit: 3, windowMs: 60_000 } });
      const guesser = apiClient(limited, "tly_not-a-real-key-at-all-0000000000000000");
      for (let i = 0; i < 3; i++) expectJson(await guesser.get("/api/v1/account"), 401);
      const refused = await guesser.get("/api/v1/account");
      expectJson(refused, 429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expectJson(await apiClient(limited, (await tally.accounts.create({ name: "honest" })).key).get("/api/v1/account"), 200);
    });
  });

  describe("unexpected errors", () => {
    it("are a bare 500, reported through onError", async () => {
      const broken: Tally = {
        ...tally,
        websites: new Proxy(tally.websites, {
          get: (target, key, receiver) =>
            key === "list" ? () => Promise.reject(new Error("database exploded at /secret/path")) : Reflect.get(target, key, receiver),
        }),
      };
      const onError = vi.fn();
      const client = apiClient(await serveWith({ onError }, broken), (await tally.accounts.create()).key);
      const response = await client.get("/api/v1/websites");
      expectJson(response, 500);
      expect(response.body).toEqual({ message: "Server error.", status: 500 });
      expect(response.text).not.toContain("secret");
      expect(onError).toHaveBeenCalledTimes(1);
      expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(Error);
    });
  });
});
