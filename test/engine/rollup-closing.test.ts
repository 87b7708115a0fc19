/**
 * Wider rollup periods are summed when they close (model/periods.ts, ingest/rollup-counts.ts):
 * a flush writes day rows; once a website has counts for a later day, the periods that
 * ended are replaced by the sums of their parts, and a late count for a closed period's
 * day goes to the period too. Checked on the stored rows of both databases: every closed
 * period of every statistic equals the sum of its days, and answers over any range equal
 * the answers read from days alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closingPeriods, coveringPeriods, DAY_ONLY, dayNumber, dayText, periodEnd, widerPeriods } from "@tally-analytics/core/internal";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

describe("closing periods", () => {
  it("lists every wider period ending in the range once, after its parts, with the parts one level down", () => {
    const closing = closingPeriods("2023-12-25", "2025-03-31");
    const seen = new Set<string>();
    for (const { period, parts } of closing) {
      expect(seen.has(period)).toBe(false);
      // A part is a day, a period listed before it, or one that closed before the range.
      for (const part of parts) expect(part.length === 10 || seen.has(part) || periodEnd(part) <= "2023-12-25").toBe(true);
      seen.add(period);
      const end = periodEnd(period);
      expect(end > "2023-12-25" && end <= "2025-03-31").toBe(true);
      expect(parts.map(periodEnd).at(-1)).toBe(end);
    }
    // Every day of 2024 lies in exactly one closed dekad, month, quarter and year.
    for (let day = dayNumber("2024-01-01"); day <= dayNumber("2024-12-31"); day++) {
      for (const period of widerPeriods(dayText(day))) expect(seen.has(period)).toBe(true);
    }
    expect(closing.find((c) => c.period === "2024")?.parts).toEqual(["2024-Q1", "2024-Q2", "2024-Q3", "2024-Q4"]);
    expect(closing.find((c) => c.period === "2024-Q1")?.parts).toEqual(["2024-01", "2024-02", "2024-03"]);
    expect(closing.find((c) => c.period === "2024-02")?.parts).toEqual(["2024-02/1", "2024-02/2", "2024-02/3"]);
    expect(closing.find((c) => c.period === "2024-02/3")?.parts).toEqual(Array.from({ length: 9 }, (_, k) => `2024-02-${21 + k}`));
    expect(seen.has("2025-04")).toBe(false);
    expect(seen.has("2023-12/3")).toBe(true);
  });

  it("a cover uses no period that has not closed", () => {
    const cover = coveringPeriods("2024-06-16", "2025-06-15", "2025-03-12");
    expect(cover).toContain("2025-01"); // January closed whole
    expect(cover).not.toContain("2025-Q1"); // March had not ended
    expect(cover).toContain("2025-03/1");
    // From March 11th every day is read on its own (the rest of the cover is closed).
    expect(cover.filter((period) => period.length === 10 && period >= "2025-03-11")).toHaveLength(97);
    for (const period of cover) if (period.length !== 10) expect(periodEnd(period) <= "2025-03-12").toBe(true);
    expect(coveringPeriods("2025-01-01", "2025-01-31", "")).toHaveLength(31);
  });
});

describe.each(DIALECTS)("rollups summed when periods close (%s)", (dialect) => {
  let stored: TestTally;
  let accountId: number;
  let websiteId: number;
  const at = (day: string, hour: number) => Date.parse(`${day}T${String(hour).padStart(2, "0")}:00:00Z`);

  beforeAll(async () => {
    stored = await createTestTally(dialect);
    ({ accountId } = await stored.tally.accounts.create({ name: "closing" }));
    websiteId = (await stored.tally.websites.create(accountId, { domain: "closing.example", timezone: "UTC" })).id;
    const { tally } = stored;
    // 130 days, a flush every few days (so periods close in many flushes), visitors coming back.
    let n = 0;
    for (let day = dayNumber("2025-01-01"); day <= dayNumber("2025-05-10"); day++) {
      for (let k = 0; k < 3 + (day % 4); k++) {
        n++;
        await tally.collect({
          url: `https://closing.example/page-${n % 5}?utm_source=news${n % 3}`,
          referrer: n % 2 ? "https://www.google.com/" : undefined,
          ip: `10.0.${n % 7}.${k}`,
          userAgent: n % 3 ? CHROME : SAFARI,
          timestamp: at(dayText(day), 8 + k),
          ...(n % 4 === 0 ? { event: "Signup", props: { plan: n % 8 === 0 ? "pro" : "free" } } : {}),
        });
      }
      if (day % 3 === 0) await tally.flush();
    }
    await tally.flush();
    // Late hits for days of periods that closed already (a spill replayed, an import).
    await tally.collect({ url: "https://closing.example/late", ip: "10.9.9.9", userAgent: CHROME, timestamp: at("2025-02-14", 12) });
    await tally.collect({ url: "https://closing.example/late", ip: "10.9.9.8", userAgent: SAFARI, timestamp: at("2025-05-09", 12) });
    await tally.flush();
  }, 120_000);
  afterAll(() => stored?.dispose());

  it("keeps the watermark at the day before the newest day counted", async () => {
    const [row] = await stored.sql<{ closed_through: string }>(
      `select closed_through from rollup_watermarks where website_id = ${websiteId}`,
    );
    expect(row?.closed_through).toBe("2025-05-09");
  });

  it("every closed period of every statistic holds the sum of its days, and no open one is stored", async () => {
    const rows = await stored.sql<{ name: string; period: string; value: string; count: number }>(
      `select name, period, value, count from rollups where website_id = ${websiteId} and period <> 'trailing'`,
    );
    const days = new Map<string, number>();
    const wider = new Map<string, number>();
    for (const row of rows) {
      if (DAY_ONLY.has(row.name)) {
        expect(row.period).toHaveLength(10);
      } else if (row.period.length === 10) {
        for (const period of widerPeriods(row.period)) {
          if (periodEnd(period) > "2025-05-09") continue;
          const key = `${row.name}|${period}|${row.value}`;
          days.set(key, (days.get(key) ?? 0) + Number(row.count));
        }
      } else {
        expect(periodEnd(row.period) <= "2025-05-09").toBe(true);
        wider.set(`${row.name}|${row.period}|${row.value}`, Number(row.count));
      }
    }
    for (const [key, count] of [...days]) if (count === 0) days.delete(key);
    expect(wider).toEqual(days);
    // Every statistic with values was rolled up (the closing knows every name a flush writes).
    const names = new Set([...wider.keys()].map((key) => key.split("|")[0]));
    for (const name of [
      "page",
      "referrer",
      "browser",
      "os",
      "utm_source",
      "event",
      "event_visitors",
      "event_property",
      "landing_page",
      "exit_page",
    ]) {
      expect(names.has(name)).toBe(true);
    }
  });

  it("the trailing rows hold the sums of the 364 days ending on the watermark, late counts included", async () => {
    const rows = await stored.sql<{ name: string; period: string; value: string; count: number }>(
      `select name, period, value, count from rollups where website_id = ${websiteId} and (period = 'trailing' or length(period) = 10)`,
    );
    const days = new Map<string, number>();
    const trailing = new Map<string, number>();
    for (const row of rows) {
      const key = `${row.name}|${row.value}`;
      if (row.period === "trailing") trailing.set(key, Number(row.count));
      else if (!DAY_ONLY.has(row.name) && row.period >= "2024-05-11" && row.period <= "2025-05-09")
        days.set(key, (days.get(key) ?? 0) + Number(row.count));
    }
    for (const [key, count] of [...days]) if (count === 0) days.delete(key);
    expect(trailing).toEqual(days);
    expect(trailing.get("page|/late")).toBe(2);
  });

  it("answers pages over ranges near the trailing period as the days alone do, in either order and on any page", async () => {
    const { tally } = stored;
    for (const [from, to] of [
      ["2024-05-11", "2025-05-10"], // the trailing days and the newest day
      ["2024-05-11", "2025-05-01"], // less its last eight days
      ["2024-06-01", "2025-05-10"],
      ["2024-05-10", "2025-05-05"],
    ] as const) {
      for (const name of ["page", "browser", "referrer", "landing_page"] as const) {
        const expected = new Map<string, number>();
        for (const row of await stored.sql<{ value: string; count: number }>(
          `select value, count from rollups where website_id = ${websiteId} and name = '${name}' and length(period) = 10 and period >= '${from}' and period <= '${to}'`,
        )) {
          expected.set(row.value, (expected.get(row.value) ?? 0) + Number(row.count));
        }
        const all = [...expected].filter(([, count]) => count > 0).map(([value, count]) => ({ value, count }));
        for (const sort of ["desc", "asc"] as const) {
          const ordered = [...all].sort(
            (a, b) => (sort === "desc" ? b.count - a.count : a.count - b.count) || (a.value < b.value ? -1 : 1),
          );
          for (const page of [1, 2]) {
            const answer = await tally.stats.query(accountId, websiteId, { name, from, to, per_page: 10, page, sort });
            const got = answer.data.map((row) => ({ value: String(row.value), count: row.count }));
            expect(got, `${name} ${from}…${to} ${sort} page ${page}`).toEqual(ordered.slice((page - 1) * 10, page * 10));
            expect(answer.total, `${name} ${from}…${to}`).toBe(all.length);
          }
        }
      }
    }
  });

  it("answers over ranges across closed and open periods as the days alone do", async () => {
    const { tally } = stored;
    for (const [from, to] of [
      ["2025-01-01", "2025-05-10"],
      ["2025-01-11", "2025-04-30"],
      ["2025-02-14", "2025-05-09"],
      ["2025-04-01", "2025-05-10"],
    ] as const) {
      for (const name of ["page", "browser", "event_property", "referrer"] as const) {
        const query = { name, from, to, per_page: 100, ...(name === "event_property" ? { event: "Signup", property: "plan" } : {}) };
        const answer = await tally.stats.query(accountId, websiteId, query);
        const expected = new Map<string, number>();
        for (const row of await stored.sql<{ value: string; count: number }>(
          `select value, count from rollups where website_id = ${websiteId} and name = '${name}' and length(period) = 10 and period >= '${from}' and period <= '${to}'`,
        )) {
          const value = name === "event_property" ? row.value.split("\u001f").at(-1)! : row.value;
          expected.set(value, (expected.get(value) ?? 0) + Number(row.count));
        }
        const got = new Map(answer.data.map((row) => [String(row.value), row.count]));
        for (const [value, count] of [...expected]) if (count === 0) expected.delete(value);
        expect(got, `${name} ${from}…${to}`).toEqual(expected);
      }
    }
  });
});
