// Single sign-on with OpenID Connect, end to end in Chromium, against a
// real provider (oidc-provider, its development login and consent pages) in this process.
// A user is matched by the e-mail the provider verified; an unverified address is refused;
// someone new joins with the configured role, or is refused when none is configured.
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Tally } from "@tally-analytics/core";
import type { HandlerOptions } from "@tally-analytics/server";
import { toNodeHandler } from "@tally-analytics/server/node";
import Provider from "oidc-provider";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import { dashboardPages } from "../dashboard/dashboard-pages.js";

warnIfSkipped("sso-browser");

/** The provider's people: the login typed on its page names one. */
const PEOPLE: Record<string, { email: string; email_verified: boolean }> = {
  ada: { email: "ada@acme.test", email_verified: true },
  mallory: { email: "ada@acme.test", email_verified: false },
  newcomer: { email: "newcomer@acme.test", email_verified: true },
};

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** A server on a free port whose handler is set once the port is known (each side's URL names the other). */
async function serverOnPort(): Promise<{ origin: string; use(listener: Listener): void; close(): Promise<void> }> {
  let listener: Listener = (_request, response) => response.end();
  const server = createServer((request, response) => listener(request, response));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    use: (next) => (listener = next),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

describe.skipIf(skip)("single sign-on with OpenID Connect, in Chromium", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let accountId = 0;
  let provider: Awaited<ReturnType<typeof serverOnPort>>;
  let tallyServer: Awaited<ReturnType<typeof serverOnPort>>;
  const pages = dashboardPages();

  function serveTally(sso: HandlerOptions["sso"]): void {
    tallyServer.use(toNodeHandler(tally, { sso }) as Listener);
  }

  /** Through Tally's sign-in page, the provider's login and consent pages, and back. */
  async function signInAs(login: string): Promise<Page> {
    const page = await pages.open();
    // The provider's dev pages import a web font: nothing leaves this machine.
    await page.route(/^https:\/\//, (route) => route.abort());
    await page.goto(`${tallyServer.origin}/login`);
    await page.click("text=Sign in with single sign-on");
    await page.waitForSelector('input[name="login"]');
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', "anything");
    await page.click('button[type="submit"]');
    await page.click('button:has-text("Continue")');
    await page.waitForURL((url) => url.origin === tallyServer.origin);
    return page;
  }

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    ({ accountId } = await tally.accounts.create({ name: "acme" }));
    await tally.websites.create(accountId, { domain: "acme.test" });
    await tally.team.users.add(accountId, { email: "ada@acme.test", role: "admin" });
    provider = await serverOnPort();
    tallyServer = await serverOnPort();
    const oidc = new Provider(provider.origin, {
      clients: [
        {
          client_id: "tally",
          client_secret: "a-long-client-secret-for-tally",
          redirect_uris: [`${tallyServer.origin}/sso/callback`],
          grant_types: ["authorization_code"],
          response_types: ["code"],
        },
      ],
      claims: { openid: ["sub"], email: ["email", "email_verified"] },
      cookies: { keys: ["a-test-cookie-key-of-the-provider"] },
      async findAccount(_context, id) {
        const person = PEOPLE[id];
        return person ? { accountId: id, claims: async () => ({ sub: id, ...person }) } : undefined;
      },
    });
    provider.use(oidc.callback() as Listener);
    serveTally({ issuer: provider.origin, clientId: "tally", clientSecret: "a-long-client-secret-for-tally" });
    await pages.launch();
  }, 60_000);
  afterAll(async () => {
    await pages.close();
    await tallyServer?.close();
    await provider?.close();
    await fixture?.dispose();
  });

  it("signs in the user whose verified e-mail the provider gives, into the dashboard", async () => {
    const page = await signInAs("ada");
    await page.waitForSelector(".website-link");
    expect(await page.textContent(".topbar .account")).toBe("ada@acme.test");
    const cookie = (await page.context().cookies()).find((entry) => entry.name === "tally_session")!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    const me = await page.evaluate(async () => (await fetch("/api/v1/me")).json());
    expect(me.data).toMatchObject({ role: "admin", via: "session", user: { email: "ada@acme.test" } });
  });

  it("refuses an address the provider has not verified, even one a user has", async () => {
    const page = await signInAs("mallory");
    expect(await page.textContent("main")).toContain("has not verified the address ada@acme.test");
    expect((await page.context().cookies()).find((entry) => entry.name === "tally_session")).toBeUndefined();
  });

  it("refuses someone new unless a role for newcomers is configured", async () => {
    const refused = await signInAs("newcomer");
    expect(await refused.textContent("main")).toContain("No Tally user has the address newcomer@acme.test");
    serveTally({
      issuer: provider.origin,
      clientId: "tally",
      clientSecret: "a-long-client-secret-for-tally",
      newUsers: { accountId, role: "viewer" },
    });
    const joined = await signInAs("newcomer");
    await joined.waitForSelector(".website-link");
    expect((await tally.team.users.findByEmail("newcomer@acme.test"))?.role).toBe("viewer");
  });

  it("refuses a callback whose flow did not start in this browser", async () => {
    const page = await pages.open();
    const response = await page.goto(`${tallyServer.origin}/sso/callback?code=stolen&state=guessed`);
    expect(response?.status()).toBe(400);
    expect(await page.textContent("main")).toContain("did not start here");
  });
});
