// The Alerts card of a website's settings in headless Chromium, through its real UI: add a
// rule (its refusal shown beside the field first), see the webhook's signing key, read the
// delivery log after it fired, pause it.
import type { Alert, Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { createTempTally } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";
import { dashboardPages, screenshotPath, serveTallyAndSite } from "../dashboard/dashboard-pages.js";

warnIfSkipped("alerts-browser");

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

describe.skipIf(skip)("the Alerts card, in Chromium", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let server: Served;
  let receiver: WebhookReceiver;
  let accountId = 0;
  let key = "";
  let site = 0;
  const pages = dashboardPages();

  beforeAll(async () => {
    fixture = createTempTally({ alerts: { intervalMs: 0 } });
    tally = fixture.tally;
    ({ accountId, key } = await tally.accounts.create({ name: "Shop" }));
    site = (await tally.websites.create(accountId, { domain: "shop.test" })).id;
    receiver = await startWebhookReceiver();
    ({ server } = await serveTallyAndSite(tally));
    await pages.launch();
  });
  afterAll(async () => {
    await pages.close();
    await server?.close();
    await receiver?.close();
    await fixture?.dispose();
  });

  it("adds a rule, shows its signing key and its deliveries, and pauses it", async () => {
    const page = await pages.open({ signedInWith: key, locale: "en-GB" });
    await page.goto(`${server.base}/analytics/#/websites/${site}/settings`);
    const card = page.locator("section.alerts-card");
    await expect.poll(() => card.locator("tbody").first().textContent()).toBe("No alerts yet.");
    await card.locator('select[name="kind"]').selectOption("visitors");
    await card.locator('input[name="webhook_url"]').fill(receiver.url);
    await card.locator('button[type="submit"]').click();
    // No threshold: the API's 422 beside the field.
    await expect.poll(() => card.locator('[data-error-for="threshold"]').textContent()).toBe("The threshold field is required (visitors).");
    await card.locator('input[name="threshold"]').fill("2");
    await card.locator('button[type="submit"]').click();
    await expect.poll(() => card.locator("tr[data-alert] td").first().textContent()).toBe("2 visitors or more in the last hour");
    const [alert] = (await tally.alerts.list(accountId, site)) as [Alert];
    expect(alert).toMatchObject({ kind: "visitors", threshold: 2, webhook_url: receiver.url, webhook_format: "json" });
    expect(await card.locator(".copy-field code").textContent()).toBe(alert.webhook_secret);

    for (const n of [1, 2]) await tally.collect({ url: "https://shop.test/", ip: `203.0.113.${n}`, userAgent: CHROME });
    await tally.flush();
    expect(await tally.alerts.runDue()).toMatchObject({ fired: 1, sent: 1 });
    await receiver.waitFor(1);
    await card.getByRole("button", { name: "Refresh" }).click();
    await expect.poll(() => card.locator("td.delivery-sent").count()).toBe(1);
    expect(await card.locator("tbody").last().textContent()).toContain("shop.test: 2 visitors in the last hour (alert at 2 or more).");
    expect(await card.locator("tr[data-alert]").textContent()).toContain("firing");
    await card.screenshot({ path: screenshotPath("alerts-card.png") });

    await card.getByRole("button", { name: "Pause" }).click();
    await expect.poll(() => card.locator("tr[data-alert]").textContent()).toContain("paused");
    expect((await tally.alerts.get(accountId, site, alert.id)).enabled).toBe(0);
  });
});
