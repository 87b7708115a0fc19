/**
 * An app that signs its users in through `authenticate(request)` (a
 * session cookie) must not let another site act for them. A plain cross-origin HTML
 * form POST once created a website in the victim's account. For requests the hook signs
 * in, a POST, PUT, PATCH or DELETE must be same-origin (`Sec-Fetch-Site`, or `Origin`
 * when the browser sends no Fetch Metadata) and must not be a form body, unless the app
 * opts in with `acceptSessionForms`. API keys are untouched: no browser attaches an
 * Authorization header to another site's request.
 */
import { tallyInternals, type Tally } from "@tally-analytics/core/internal";
import type { HandlerOptions } from "@tally-analytics/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, expectJson, type ApiResponse } from "../support/api-client.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { snapshotTables } from "./support.js";

const SESSION = { cookie: "session=alice" };
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const JSON_TYPE = { "content-type": "application/json" };

describe.each(transports)("CSRF through $name", (transport) => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let alice = 0;
  let aliceKey = "";
  const servers: Served[] = [];

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    const created = await tally.accounts.create({ name: "alice" });
    alice = created.accountId;
    aliceKey = created.key;
  });
  afterAll(async () => {
    for (const served of servers) await served.close();
    await fixture.dispose();
  });

  async function serve(options: HandlerOptions = {}) {
    const served = await transport.serve(tally, {
      ...options,
      authenticate: (request) => ((request.headers.get("cookie") ?? "").includes("session=alice") ? alice : null),
    });
    servers.push(served);
    const origin = new URL(served.base).origin;
    const client = apiClient(served, null);
    const call = (method: string, path: string, headers: Record<string, string>, body?: string): Promise<ApiResponse> =>
      client.call(method, path, { headers, ...(body === undefined ? {} : { body }) });
    return { served, origin, call };
  }

  it("refuses a cross-site form POST signed in by the session cookie, and changes nothing", async () => {
    const { call } = await serve();
    await tally.flush();
    const before = snapshotTables(fixture.file);
    const attacks: [string, Record<string, string>][] = [
      ["browser form from another site", { ...SESSION, ...FORM, origin: "https://evil.test", "sec-fetch-site": "cross-site" }],
      [
        "a sibling subdomain (same site, other origin)",
        { ...SESSION, ...FORM, origin: "https://blog.victim.test", "sec-fetch-site": "same-site" },
      ],
      ["an older browser: Origin only", { ...SESSION, ...FORM, origin: "https://evil.test" }],
      ["a sandboxed frame: Origin null", { ...SESSION, ...FORM, origin: "null" }],
      ["JSON from another site", { ...SESSION, ...JSON_TYPE, origin: "https://evil.test", "sec-fetch-site": "cross-site" }],
    ];
    for (const [name, headers] of attacks) {
      const body =
        headers["content-type"] === FORM["content-type"]
          ? "domain=evil-created.example"
          : JSON.stringify({ domain: "evil-created.example" });
      const response = await call("POST", "/api/v1/websites", headers, body);
      expectJson(response, 403);
      expect(response.body.message, name).toBe("Cross-site request refused: send it from the same origin.");
    }
    const site = await tally.websites.create(alice, { domain: "victim.example" });
    const cross = { ...SESSION, ...JSON_TYPE, origin: "https://evil.test", "sec-fetch-site": "cross-site" };
    expectJson(await call("PUT", `/api/v1/websites/${site.id}`, cross, JSON.stringify({ privacy: 0 })), 403);
    expectJson(await call("DELETE", `/api/v1/websites/${site.id}`, cross), 403);
    expect((await tally.websites.get(alice, site.id)).privacy).toBe(1);
    await tally.websites.delete(alice, site.id);
    await tally.flush();
    expect(snapshotTables(fixture.file).websites).toEqual(before.websites);
    // Reading is not refused: a cross-site GET cannot see the answer anyway.
    expectJson(await call("GET", "/api/v1/account", { ...SESSION, origin: "https://evil.test", "sec-fetch-site": "cross-site" }), 200);
  });

  it("takes same-origin JSON from the session; refuses a same-origin form body (415) unless acceptSessionForms", async () => {
    const { call, origin } = await serve();
    const sameOrigin = { ...SESSION, origin, "sec-fetch-site": "same-origin" };
    const form = await call("POST", "/api/v1/websites", { ...sameOrigin, ...FORM }, "domain=form-refused.example");
    expectJson(form, 415);
    expect(form.body.message).toMatch(/Send application\/json/);
    expectJson(
      await call("POST", "/api/v1/websites", { ...sameOrigin, ...JSON_TYPE }, JSON.stringify({ domain: "session-json.example" })),
      201,
    );
    // Origin alone, matching; no Fetch Metadata and no Origin at all (not a browser).
    expectJson(
      await call("POST", "/api/v1/websites", { ...SESSION, ...JSON_TYPE, origin }, JSON.stringify({ domain: "session-origin.example" })),
      201,
    );
    expectJson(
      await call("POST", "/api/v1/websites", { ...SESSION, ...JSON_TYPE }, JSON.stringify({ domain: "session-tool.example" })),
      201,
    );

    const optedIn = await serve({ acceptSessionForms: true });
    const sameOriginHere = { ...SESSION, origin: optedIn.origin, "sec-fetch-site": "same-origin" };
    expectJson(await optedIn.call("POST", "/api/v1/websites", { ...sameOriginHere, ...FORM }, "domain=session-form.example"), 201);
    // Opting in to forms never lets another site in.
    expectJson(
      await optedIn.call(
        "POST",
        "/api/v1/websites",
        { ...SESSION, ...FORM, origin: "https://evil.test", "sec-fetch-site": "cross-site" },
        "domain=x.example",
      ),
      403,
    );
    expect(await tallyInternals(tally).websites.findByDomain("form-refused.example")).toBeFalsy();
    expect(await tallyInternals(tally).websites.findByDomain("session-form.example")).toBeTruthy();
  });

  it("leaves API keys alone: a Bearer request is not a browser session", async () => {
    const { served } = await serve();
    const withKey = apiClient(served, aliceKey);
    const response = await withKey.call("POST", "/api/v1/websites", {
      headers: { ...FORM, origin: "https://tools.example", "sec-fetch-site": "cross-site" },
      body: "domain=with-key.example",
    });
    expectJson(response, 201);
  });
});
