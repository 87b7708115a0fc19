/**
 * Response headers, through every transport:
 * - the share-page cookie's attributes come from the mount and the stored domain only: a
 *   share URL like `/share/x;Domain=evil.test;SameSite=None;Secure;@victim.example/api/auth`
 *   (which names victim.example once normalised) once answered a cookie whose Path
 *   carried those attributes;
 * - `X-Content-Type-Options: nosniff` on every answer (API, errors, /collect, /script.js,
 *   the dashboard and its assets, redirects), `Cross-Origin-Opener-Policy` on HTML.
 */
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHROME } from "./support.js";

describe.each(transports)("response headers through $name", (transport) => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let key = "";
  let mount = "";

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    const created = await tally.accounts.create();
    key = created.key;
    await tally.websites.create(created.accountId, { domain: "victim.example", privacy: 2, password: "open sesame", exclude_bots: 0 });
    served = await transport.serve(tally, { rateLimit: { limit: 1000, windowMs: 60_000 } });
    mount = new URL(served.base).pathname.replace(/\/$/, "");
  });
  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  const unlock = (path: string) =>
    served.fetch(path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "password=open+sesame" });

  it("the share cookie's Path is the mount and the stored domain, whatever the request path said", async () => {
    const injected = await unlock("/share/x;Domain=evil.test;SameSite=None;Secure;@victim.example/api/auth");
    expect(injected.status).toBe(200);
    const header = injected.headers.get("set-cookie") ?? "";
    const attributes = header
      .split(";")
      .slice(1)
      .map((part) => part.trim());
    expect(attributes).toEqual([`Path=${mount}/share/victim.example`, `Max-Age=${30 * 86_400}`, "HttpOnly", "SameSite=Lax"]);
    expect(header).not.toMatch(/domain=|samesite=none|secure/i);
    // The domain as a user types it gets the same cookie path.
    const typed = await unlock("/share/WWW.Victim.Example/api/auth");
    expect(typed.headers.get("set-cookie")).toContain(`Path=${mount}/share/victim.example;`);
  });

  it("X-Content-Type-Options: nosniff on every answer; Cross-Origin-Opener-Policy on HTML", async () => {
    const auth = { authorization: `Bearer ${key}` };
    const hit = { method: "POST", headers: { "content-type": "text/plain", "user-agent": CHROME } };
    const requests: [string, string, RequestInit][] = [
      ["API 200", "/api/v1/account", { headers: auth }],
      ["API 401", "/api/v1/account", {}],
      ["API 422", "/api/v1/websites", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{}" }],
      ["API 405", "/api/v1/account", { method: "DELETE", headers: auth }],
      ["unknown route 404", "/nothing/here", {}],
      ["collect 202", "/collect", { ...hit, body: JSON.stringify({ u: "https://victim.example/" }) }],
      ["collect 400", "/collect", { ...hit, body: "{not json" }],
      ["collect 404", "/collect", { ...hit, body: JSON.stringify({ u: "https://nobody.example/" }) }],
      ["collect 413", "/collect", { ...hit, body: JSON.stringify({ u: "https://victim.example/", r: "x".repeat(20_000) }) }],
      ["collect preflight", "/collect", { method: "OPTIONS" }],
      ["script", "/script.js", {}],
      ["dashboard", "/", {}],
      ["share page", "/share/victim.example", {}],
      ["share API 401", "/share/victim.example/api/website", {}],
      ["share auth 422", "/share/victim.example/api/auth", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
      ["missing asset", "/assets/nope.js", {}],
    ];
    const missing: string[] = [];
    for (const [name, path, init] of requests) {
      const response = await served.fetch(path, init);
      await response.arrayBuffer();
      if (response.headers.get("x-content-type-options") !== "nosniff") missing.push(`${name} (${response.status})`);
      if ((response.headers.get("content-type") ?? "").startsWith("text/html")) {
        expect(response.headers.get("cross-origin-opener-policy"), name).toBe("same-origin");
      }
    }
    // The script's 304, the dashboard's assets and its redirect.
    const script = await served.fetch("/script.js");
    const revalidated = await served.fetch("/script.js", { headers: { "if-none-match": script.headers.get("etag") ?? "" } });
    expect(revalidated.status).toBe(304);
    if (revalidated.headers.get("x-content-type-options") !== "nosniff") missing.push("script 304");
    const html = await (await served.fetch("/")).text();
    const asset = /src="\.\/(assets\/[^"]+)"/.exec(html)?.[1];
    const assetResponse = await served.fetch(`/${asset}`);
    if (assetResponse.headers.get("x-content-type-options") !== "nosniff") missing.push("asset");
    const redirect = await served.fetch("/share/victim.example/", { redirect: "manual" });
    expect(redirect.status).toBe(308);
    if (redirect.headers.get("x-content-type-options") !== "nosniff") missing.push("redirect");
    expect(missing).toEqual([]);
  });
});
