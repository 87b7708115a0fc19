// What an e-mail report says, as a real SMTP server receives it (parsed by mailparser):
// headers, both parts, every number against the statistics API for the same range, the
// dashboard link, and the unsubscribe link (which works without signing in; forged ones do not).
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTraffic } from "../dashboard/demo-data.js";
import { expectInvalid, form, jsonBody, type ApiClient } from "../support/api-client.js";
import { DIALECTS } from "../support/databases.js";
import { LAST_WEEK, MAIL_FROM, reportsFixture, SEND_TIME, type ReportsFixture } from "./fixture.js";

interface Totals {
  data: Record<string, number>;
  previous: Record<string, number>;
  comparison: { from: string; to: string };
}
interface Row {
  value: string;
  count: number;
}

const LAST_MONTH = { from: "2026-10-01", to: "2026-10-31" };
const METRIC_LABELS = {
  visitors: "Visitors",
  pageviews: "Pageviews",
  visits: "Visits",
  bounce_rate: "Bounce rate",
  visit_duration: "Visit duration",
} as const;

// Reference formatting, written from the description in docs/reports.md, not taken from the implementation.
const number = (n: number) => n.toLocaleString("en");
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(seconds / 3600)}h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}m`;
}
const signed = (n: number, unit: string) => (n > 0 ? `+${number(n)}${unit}` : n < 0 ? `\u2212${number(-n)}${unit}` : `0${unit}`);
function expectedLine(name: keyof typeof METRIC_LABELS, current: number, previous: number): string {
  const show = name === "bounce_rate" ? (n: number) => `${number(n)}%` : name === "visit_duration" ? duration : number;
  let change: string;
  if (name === "bounce_rate") change = signed(Math.round((current - previous) * 10) / 10, " pts");
  else if (previous === 0) change = current === 0 ? "0%" : "new";
  else change = signed(Math.round(((current - previous) / previous) * 100), "%");
  return `${METRIC_LABELS[name]} ${show(current)} ${change} from ${show(previous)}`;
}

/** The text part's section of one website: from its name to the next website's. */
function section(text: string, domain: string): string[] {
  const lines = text.split("\n");
  const start = lines.indexOf(domain);
  expect(start, `${domain} in the text part`).toBeGreaterThan(-1);
  const end = lines.findIndex((line, index) => index > start + 1 && /^=+$/.test(lines[index + 1] ?? ""));
  return lines.slice(start, end === -1 ? undefined : end);
}
const squeeze = (line: string) => line.trim().replace(/\s+/g, " ");
/** The HTML part as words: tags dropped, entities decoded, spaces collapsed (what a reader sees, in order). */
function htmlWords(html: string): string {
  const decoded = html
    .replace(/<[^>]+>/g, " ")
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name] ?? "");
  return squeeze(decoded);
}
/** A top list of the text part: `  1,234  /page` lines under its title. */
function topList(lines: string[], title: string): Row[] {
  const start = lines.findIndex((line) => line.startsWith(title));
  const rows: Row[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("  ") || line.trim() === "none") break;
    const [count = "", value = ""] = line.trim().split(/\s{2,}/);
    rows.push({ value, count: Number(count.replace(/,/g, "")) });
  }
  return rows;
}
const messageTo = (messages: ParsedMail[], address: string) => {
  const found = messages.filter((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).some((to) => to?.text === address));
  expect(found, `messages to ${address}`).toHaveLength(1);
  return found[0]!;
};

describe.each(DIALECTS)("e-mail report content on %s", (dialect) => {
  let fixture: ReportsFixture;
  let alice: Awaited<ReturnType<ReportsFixture["account"]>>;
  let bob: Awaited<ReturnType<ReportsFixture["account"]>>;
  let blogId = 0;
  let quietId = 0;
  let aliceMail: ParsedMail;
  let bobMail: ParsedMail;

  beforeAll(async () => {
    fixture = await reportsFixture(dialect);
    const { tally } = fixture;
    alice = await fixture.account("alice", { timezone: "Europe/Paris" });
    bob = await fixture.account("bob");
    blogId = (await tally.websites.create(alice.id, { domain: "blog.alice.example", email: 1, timezone: "America/Los_Angeles" })).id;
    quietId = (await tally.websites.create(alice.id, { domain: "quiet.alice.example", email: 0 })).id;
    // The addresses and periods through the API, as JSON and as a form.
    expect((await alice.api.put("/api/v1/account", jsonBody({ email: "alice@mail.test", report_period: "week" }))).status).toBe(200);
    expect((await bob.api.put("/api/v1/account", form({ email: "bob@mail.test", report_period: "month" }))).status).toBe(200);
    for (const [domain, seed] of [
      ["alice.example", 1],
      ["blog.alice.example", 2],
      ["quiet.alice.example", 3],
      ["bob.example", 4],
    ] as const) {
      await generateTraffic(tally, { domain, days: 50, now: SEND_TIME, seed, sessionsPerDay: 12 });
    }
    expect(await tally.reports.runDue(SEND_TIME)).toEqual({ sent: 2, failed: 0, skipped: 0 });
    const messages = await fixture.smtp.waitFor(2);
    aliceMail = messageTo(messages, "alice@mail.test");
    bobMail = messageTo(messages, "bob@mail.test");
  });
  afterAll(async () => fixture?.dispose());

  async function apiTotals(api: ApiClient, id: number, range: { from: string; to: string }): Promise<Totals> {
    const response = await api.get(`/api/v1/stats/${id}/totals?${new URLSearchParams({ ...range, compare: "previous_period" })}`);
    expect(response.status).toBe(200);
    return response.body as unknown as Totals;
  }
  async function apiTop(api: ApiClient, id: number, name: string, range: { from: string; to: string }): Promise<Row[]> {
    const response = await api.get(`/api/v1/stats/${id}?${new URLSearchParams({ name, ...range, per_page: "10" })}`);
    return (response.body.data as Row[]).slice(0, 5).map(({ value, count }) => ({ value, count }));
  }

  it("the account API shows and validates the report settings", async () => {
    const shown = await alice.api.get("/api/v1/account");
    expect(shown.body.data).toMatchObject({ id: alice.id, name: "alice", email: "alice@mail.test", report_period: "week" });
    for (const bad of ["not-an-address", "two@@mail.test", "alice@mail.test\r\nBcc: eve@mail.test", "Alice <alice@mail.test>"]) {
      expectInvalid(await alice.api.put("/api/v1/account", jsonBody({ email: bad })), {
        email: ["The email must be a valid email address."],
      });
    }
    expectInvalid(await alice.api.put("/api/v1/account", form({ email: "a@b.test", report_period: "daily" })), {
      report_period: ["The selected report period is invalid."],
    });
    expectInvalid(await alice.api.put("/api/v1/account", jsonBody({ email: 42 })), { email: ["The email must be a valid email address."] });
    // Nothing changed by the refused requests.
    expect((await alice.api.get("/api/v1/account")).body.data).toMatchObject({ email: "alice@mail.test", report_period: "week" });
    expect((await fixture.served.fetch("/api/v1/account", { method: "PUT", ...jsonBody({ email: "x@y.test" }) })).status).toBe(401);
  });

  it("arrives with the sender, recipient, subject and unsubscribe headers, in two parts", () => {
    expect(aliceMail.from?.value).toEqual([{ name: "Tally Reports", address: "reports@tally.test" }]);
    expect(MAIL_FROM).toBe("Tally Reports <reports@tally.test>");
    expect(aliceMail.subject).toBe("Weekly Tally report for alice.example and 1 more · Nov 9 – 15, 2026");
    expect(bobMail.subject).toBe("Monthly Tally report for bob.example · October 2026");
    // The raw header lines, as the SMTP server received them.
    const header = (name: string) => aliceMail.headerLines.find((line) => line.key === name)?.line.replace(/^[^:]+:\s*/, "");
    expect(header("list-unsubscribe")).toMatch(
      new RegExp(`^<${fixture.served.base}/unsubscribe/${alice.id}\\.\\d+-\\d+\\.[A-Za-z0-9_-]{43}>$`),
    );
    expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(header("auto-submitted")).toBe("auto-generated");
    expect(aliceMail.messageId).toBe(`<report.${alice.id}.week.2026-11-09@127.0.0.1>`);
    for (const mail of [aliceMail, bobMail]) {
      expect(mail.text?.length).toBeGreaterThan(200);
      expect(mail.html).toMatch(/^<!doctype html>/);
      // Nothing remote, nothing that mail clients strip: no images, sheets, scripts or style blocks.
      expect(mail.html).not.toMatch(/<(img|link|script|style|iframe)\b|\bsrc=|url\(/i);
      expect(mail.attachments).toHaveLength(0);
    }
    // Only websites with reports on, and only the recipient's own.
    expect(aliceMail.text).toContain("blog.alice.example");
    expect(aliceMail.text).not.toContain("quiet.alice.example");
    expect(aliceMail.text).not.toContain("bob.example");
    expect(bobMail.text).not.toContain("alice.example");
  });

  it("states the range and every figure exactly as the statistics API does, in both parts", async () => {
    const cases = [
      { mail: aliceMail, api: alice.api, id: alice.websiteId, domain: "alice.example", range: LAST_WEEK },
      { mail: aliceMail, api: alice.api, id: blogId, domain: "blog.alice.example", range: LAST_WEEK },
      { mail: bobMail, api: bob.api, id: bob.websiteId, domain: "bob.example", range: LAST_MONTH },
    ];
    for (const { mail, api, id, domain, range } of cases) {
      expect(mail.text).toContain(`(${range.from} to ${range.to}, each website's own time zone)`);
      const lines = section(mail.text ?? "", domain);
      const totals = await apiTotals(api, id, range);
      expect(totals.data.pageviews, `${domain} has traffic in the range`).toBeGreaterThan(20);
      const expected = (Object.keys(METRIC_LABELS) as (keyof typeof METRIC_LABELS)[]).map((name) =>
        expectedLine(name, totals.data[name]!, totals.previous[name]!),
      );
      const shown = lines.filter((line) => Object.values(METRIC_LABELS).some((label) => line.startsWith(`${label} `))).map(squeeze);
      expect(shown).toEqual(expected);
      const html = htmlWords(mail.html || "");
      for (const line of expected) expect(html).toContain(line);

      for (const [title, name] of [
        ["Top pages", "page"],
        ["Top referrers", "referrer"],
        ["Top events", "event"],
      ] as const) {
        const rows = await apiTop(api, id, name, range);
        expect(rows.length, `${domain} ${name}`).toBeGreaterThan(0);
        expect(topList(lines, title)).toEqual(rows);
        expect(html).toContain(
          `${title} ${title === "Top pages" ? "pageviews" : title === "Top referrers" ? "visits" : "events"} ${rows.map((row) => `${row.value} ${number(row.count)}`).join(" ")}`,
        );
      }
    }
  });

  it("links each website to its dashboard on that range", async () => {
    for (const [id, domain] of [
      [alice.websiteId, "alice.example"],
      [blogId, "blog.alice.example"],
    ] as const) {
      const link = `${fixture.served.base}/#/websites/${id}?range=custom&from=${LAST_WEEK.from}&to=${LAST_WEEK.to}`;
      expect(section(aliceMail.text ?? "", domain)).toContain(`Dashboard: ${link}`);
      expect(aliceMail.html).toContain(`href="${link.replace(/&/g, "&amp;")}"`);
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    }
  });

  it("unsubscribes without signing in: GET asks, POST turns reports off; forged links change nothing", async () => {
    const { tally } = fixture;
    const siteLink = /Stop reports for alice\.example: (\S+)/.exec(aliceMail.text ?? "")?.[1] ?? "";
    const allLink = /Unsubscribe from all of them: (\S+)/.exec(aliceMail.text ?? "")?.[1] ?? "";
    expect(siteLink).toMatch(/\/unsubscribe\//);
    expect(aliceMail.html).toContain(`href="${siteLink}"`);
    const token = siteLink.slice(siteLink.lastIndexOf("/") + 1);
    const [account = "", sites = "", mac = ""] = token.split(".");
    const flip = (text: string) => `${text.slice(0, -1)}${text.endsWith("A") ? "B" : "A"}`;
    const forged = [
      `${account}.${sites}.${flip(mac)}`, // altered signature
      `${account}.${quietId}.${mac}`, // another website under the same signature
      `${bob.id}.${sites}.${mac}`, // another account
      `${account}.${sites}.${"A".repeat(43)}`,
      `${account}.${sites}`,
      "x",
    ];
    for (const bad of forged) {
      for (const method of ["GET", "POST"]) {
        const response = await fetch(`${fixture.served.base}/unsubscribe/${bad}`, { method });
        expect(response.status, `${method} ${bad}`).toBe(404);
        expect(await response.text()).toContain("This link is not valid");
      }
    }
    const emails = async () =>
      Object.fromEntries(
        (await Promise.all([alice.websiteId, blogId].map((id) => tally.websites.get(alice.id, id)))).map((site) => [
          site.domain,
          site.email,
        ]),
      );
    expect(await emails()).toEqual({ "alice.example": 1, "blog.alice.example": 1 });

    const asked = await fetch(siteLink);
    expect(asked.status).toBe(200);
    const question = await asked.text();
    expect(question).toContain("<strong>alice.example</strong>");
    expect(question).toContain('<form method="post">');
    expect(await emails(), "GET changes nothing (mail scanners open links)").toEqual({ "alice.example": 1, "blog.alice.example": 1 });

    const done = await fetch(siteLink, { method: "POST" });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("E-mail reports are off for <strong>alice.example</strong>");
    expect(await emails()).toEqual({ "alice.example": 0, "blog.alice.example": 1 });

    // RFC 8058 one-click, as a mail provider sends it, on the List-Unsubscribe URL: every website of the e-mail.
    const oneClick = await fetch(allLink, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    expect(await emails()).toEqual({ "alice.example": 0, "blog.alice.example": 0 });
    expect(await (await fetch(allLink)).text()).toContain("already off");
    // The website API shows it; bob's website is untouched.
    expect((await alice.api.get(`/api/v1/websites/${alice.websiteId}`)).body.data).toMatchObject({ email: 0 });
    expect((await tally.websites.get(bob.id, bob.websiteId)).email).toBe(1);
    // Alice has no website with reports left: her next week's report is not sent.
    const before = fixture.smtp.messages.length;
    await tally.reports.runDue(SEND_TIME + 7 * 86_400_000);
    expect(fixture.smtp.messages.slice(before).map((mail) => mail.subject)).toEqual([]);
  });
});
