// A team's first walk, in headless Chromium through the real pages (typing and clicking): the
// owner sets up their user with the first-run key, invites a viewer from the Team page (the
// invitation is listed as pending; another one is revoked there); the viewer accepts,
// chooses a password, turns on two-factor sign-in, signs out and in again with both, sees
// statistics, is shown no way to change anything and is refused by the API when trying
// anyway, and sets up a new app with a recovery code; the owner removes them and their
// next request is refused.
import type { Tally } from "@tally-analytics/core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";
import { PASSWORD, totpCode } from "../teams/support.js";
import { addDays, dashboardPages, serveTallyAndSite, todayIn } from "./dashboard-pages.js";

warnIfSkipped("teams-browser");

/** A call of the API from the page itself (its cookie, its origin), as a curious viewer would try. */
const fromPage = (page: Page, method: string, path: string, body?: unknown) =>
  page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(path, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as { message?: string } };
    },
    { method, path, body },
  );

describe.skipIf(skip)("a team in the dashboard, in Chromium", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let key = "";
  let siteId = 0;
  let server: Served;
  let base = "";
  const pages = dashboardPages();
  let owner: Page;
  let viewer: Page;
  let inviteLink = "";
  let secret = "";
  let recovery = "";

  beforeAll(async () => {
    fixture = createTempTally({ flushIntervalMs: 50 });
    tally = fixture.tally;
    let accountId = 0;
    ({ accountId, key } = await tally.accounts.create({ name: "Acme" }));
    siteId = (await tally.websites.create(accountId, { domain: "acme.test" })).id;
    for (const path of ["/", "/pricing", "/"])
      await tally.collect({
        url: `https://acme.test${path}`,
        ip: "198.51.100.7",
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      });
    await tally.flush();
    ({ server } = await serveTallyAndSite(tally));
    base = `${server.base}/analytics`;
    await pages.launch();
    owner = await pages.open();
    viewer = await pages.open();
  }, 60_000);
  afterAll(async () => {
    await pages.close();
    await server?.close();
    await fixture?.dispose();
  });

  it("the owner sets up their user with the first-run key, from the sign-in pages", async () => {
    // Signed out, the dashboard opens on the sign-in page (its key form is a link away).
    await owner.goto(`${base}/`);
    await owner.waitForURL(`${base}/login`);
    await owner.click("text=First time here?");
    await owner.fill('input[name="key"]', key);
    await owner.fill('input[name="email"]', "owner@acme.test");
    await owner.fill('input[name="password"]', PASSWORD);
    await owner.fill('input[name="password_confirmation"]', PASSWORD);
    await owner.click('button[type="submit"]');
    await owner.waitForSelector(".website-link");
    expect(await owner.textContent(".topbar .account")).toBe("owner@acme.test");
    const cookie = (await owner.context().cookies()).find((entry) => entry.name === "tally_session")!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/analytics/" });
  });

  it("the owner invites a viewer from the Team page (no mail set up: the link is shown)", async () => {
    await owner.click(".topbar a.team");
    await owner.fill('.team-page input[name="email"]', "viewer@acme.test");
    await owner.selectOption('.team-page select[name="role"]', "viewer");
    await owner.click('.team-page form button[type="submit"]');
    inviteLink = (await (await owner.waitForSelector(".invited code")).textContent()) ?? "";
    expect(inviteLink).toMatch(/\/analytics\/invite\?token=[\w-]{43}$/);
    const listed = await owner.waitForSelector('.pending-invitations li[data-email="viewer@acme.test"]');
    expect(await listed.textContent()).toContain("invited by owner@acme.test");
  });

  it("the owner revokes a pending invitation from the Team page: its link stops working", async () => {
    await owner.fill('.team-page input[name="email"]', "changed-mind@acme.test");
    await owner.click('.team-page form button[type="submit"]');
    await owner.waitForSelector('.pending-invitations li[data-email="changed-mind@acme.test"]');
    const link = (await owner.textContent(".invited code")) ?? "";
    await owner.click('.pending-invitations li[data-email="changed-mind@acme.test"] button.danger');
    await owner.waitForSelector('.pending-invitations li[data-email="changed-mind@acme.test"]', { state: "detached" });
    const revoked = await pages.open();
    await revoked.goto(link);
    expect(await revoked.textContent("h1")).toBe("This link does not work");
  });

  it("the viewer accepts, chooses a password and turns on two-factor sign-in", async () => {
    await viewer.goto(inviteLink);
    expect(await viewer.textContent("main")).toContain("viewer@acme.test");
    await viewer.fill('input[name="password"]', PASSWORD);
    await viewer.fill('input[name="password_confirmation"]', PASSWORD);
    await viewer.click('button[type="submit"]');
    await viewer.waitForSelector(".website-link");
    await viewer.click(".topbar .account");
    await viewer.click("button.set-up-two-factor");
    secret = ((await (await viewer.waitForSelector(".two-factor .copy-field code")).textContent()) ?? "").trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await viewer.fill('.two-factor input[name="code"]', totpCode(secret));
    await viewer.click('.two-factor button[type="submit"]');
    expect(await viewer.locator(".recovery-codes li").count()).toBe(10);
    recovery = ((await viewer.textContent(".recovery-codes li")) ?? "").trim();
  });

  it("the viewer signs out, then in with the password and a code, and sees the statistics", async () => {
    await viewer.click(".topbar .sign-out button");
    await viewer.waitForURL(`${base}/login`);
    await viewer.fill('input[name="email"]', "viewer@acme.test");
    await viewer.fill('input[name="password"]', PASSWORD);
    await viewer.click('button[type="submit"]');
    await viewer.waitForURL(`${base}/login-code`);
    // The code that turned it on was this step's: the next one, as the app shows 30 s later.
    await viewer.fill('input[name="code"]', totpCode(secret, 1));
    await viewer.click('button[type="submit"]');
    await viewer.waitForSelector(".website-link");
    await viewer.click(".website-link");
    await viewer.waitForSelector(".overview .chart");
    expect(await viewer.textContent("h1")).toBe("acme.test");
  });

  it("shows the viewer no way to change anything, and the API refuses them anyway", async () => {
    expect(await viewer.locator(".settings-link").first().isVisible()).toBe(false);
    expect(await viewer.locator(".topbar a.team").count()).toBe(0);
    await viewer.goto(`${base}/#/new`);
    await viewer.waitForSelector(".website-link");
    await viewer.goto(`${base}/#/websites/${siteId}/settings`);
    await viewer.waitForSelector(".website-link");
    for (const [method, path, body] of [
      ["POST", "/analytics/api/v1/websites", { domain: "mine.test" }],
      ["PUT", `/analytics/api/v1/websites/${siteId}`, { privacy: 0 }],
      ["DELETE", `/analytics/api/v1/websites/${siteId}`, undefined],
      ["POST", "/analytics/api/v1/users/invitations", { email: "friend@acme.test" }],
    ] as const) {
      const answer = await fromPage(viewer, method, path, body);
      expect({ path, status: answer.status }).toEqual({ path, status: 403 });
      expect(answer.body.message).toMatch(/can only read|Only an owner/);
    }
    const today = todayIn("UTC");
    const totals = await fromPage(viewer, "GET", `/analytics/api/v1/stats/${siteId}/totals?from=${addDays(today, -7)}&to=${today}`);
    expect(totals).toMatchObject({ status: 200, body: { data: { pageviews: 3 } } });
  });

  it("the viewer sets up a new app, giving a recovery code for the present one", async () => {
    await viewer.goto(`${base}/`);
    await viewer.click(".topbar .account");
    await viewer.fill('.new-app input[name="code"]', "000000");
    await viewer.click('.new-app button[type="submit"]');
    await viewer.waitForSelector('.new-app [data-error-for="code"]:not(:empty)');
    await viewer.fill('.new-app input[name="code"]', recovery);
    await viewer.click('.new-app button[type="submit"]');
    const fresh = ((await (await viewer.waitForSelector(".two-factor .copy-field code")).textContent()) ?? "").trim();
    expect(fresh).toMatch(/^[A-Z2-7]{32}$/);
    expect(fresh).not.toBe(secret);
  });

  it("the owner removes the viewer: their next request is refused", async () => {
    await owner.reload();
    owner.once("dialog", (dialog) => void dialog.accept());
    await owner.click('tr[data-email="viewer@acme.test"] button.danger');
    await owner.waitForSelector('tr[data-email="viewer@acme.test"]', { state: "detached" });
    expect((await fromPage(viewer, "GET", "/analytics/api/v1/websites")).status).toBe(401);
    await viewer.reload();
    await viewer.waitForURL(`${base}/login`);
  });
});
