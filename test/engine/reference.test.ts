/**
 * The proof of docs/statistics.md, unfiltered: tens of thousands of generated hits go
 * through `tally.collect` in time order, an independent brute force (reference-model.ts)
 * recomputes every statistic from the raw hits, and every name, range, sort, search and
 * page of `tally.stats.query` must equal it row for row; so must comparisons and the
 * totals call. Filtered statistics: reference-segments.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGAGEMENT_STATISTICS, NotFoundError } from "@tally-analytics/core";
import { DIALECTS } from "../support/databases.js";
import { createUserAgentParser } from "@tally-analytics/core/internal";
import { SITES } from "./reference-data.js";
import { answer, totalsOf } from "./reference-answers.js";
import { createChecker, searchesFor, type Asked } from "./reference-check.js";
import { openReference, type Reference } from "./reference-fixture.js";
import { keptVisits } from "./reference-segments.js";
import { remembered } from "./reference-memo.js";
import type { ListQuery, Row } from "./reference-model.js";
import {
  COMPARED,
  FIXED_SEARCHES,
  LIST_VARIANTS,
  STATISTICS,
  CHECKPOINT_STATISTICS,
  checkpointProblem,
  comparisonProblems,
  expectTotals,
  rangesOf,
  searched,
  unfilteredCounts,
  type Named,
  engagementProblems,
} from "./reference-cases.js";

const USER_AGENT = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

describe.each(DIALECTS)("reference on %s", (dialect) => {
  let reference: Reference;
  let check: ReturnType<typeof createChecker>;
  const checkpointProblems: string[] = [];
  let checkpointReads = 0;
  let checkpointMs = 0;
  let totalsCalls = 0;

  /**
   * Reads while hits keep arriving, as a dashboard does: each read flushes first, so it
   * must see exactly the hits collected so far. Several reads in a row also flush an
   * empty buffer, which must not stop later writes.
   */
  async function checkWhileCollecting(partial: Reference, collected: number): Promise<void> {
    const started = performance.now();
    for (const site of SITES) {
      for (const name of CHECKPOINT_STATISTICS) {
        const problem = await checkpointProblem(partial, collected, site.key, name);
        checkpointReads++;
        if (problem) checkpointProblems.push(problem);
      }
    }
    checkpointMs += performance.now() - started;
  }

  beforeAll(async () => {
    reference = await openReference(dialect, {
      checkpoints: (count) => [1, 2, 3, 4, 5, 6, 7].map((k) => Math.floor((count * k) / 8)),
      onCheckpoint: checkWhileCollecting,
    });
    check = createChecker(reference.tally, reference.accountId, reference.websiteIds);
  }, 240_000);

  afterAll(async () => {
    if (check) console.info(`reference on ${dialect}: ${check.queries} statistics queries, ${totalsCalls} totals calls`);
    await reference?.dispose();
  });

  /** Unfiltered counts of a site: the model's rollups, and revenue from the rows kept. */
  const unfiltered = unfilteredCounts(() => reference);

  describe("reference: the engine counts exactly what docs/statistics.md defines", () => {
    it("generated a large, varied data set and gave every hit the expected verdict", () => {
      const { hits, tallies, model } = reference;
      const siteCount = new Set(hits.map((hit) => hit.site)).size;
      const people = new Set(hits.map((hit) => `${hit.ip} ${hit.userAgent}`)).size;
      console.info(
        `reference: ${hits.length} hits and signals (${tallies.accepted} accepted, ${tallies.bot} bots dropped, ` +
          `${tallies["excluded-ip"]} excluded IPs dropped), ${people} IP/UA pairs, ${siteCount} sites, ${model.visits.length} visits; ` +
          `collect+flush ${Math.round(reference.ingestMs)} ms (+ ${Math.round(checkpointMs)} ms of reads while collecting); ` +
          `retention deleted ${reference.retention.deleted} rows`,
      );
      expect(hits.length).toBeGreaterThan(30_000);
      expect(siteCount).toBe(SITES.length);
      expect(tallies.bot).toBeGreaterThan(100);
      expect(tallies["excluded-ip"]).toBeGreaterThan(100);
      expect(tallies["referrer-spam"]).toBeGreaterThan(20);
      // Referrer spam counts where bots do (exclude_bots=0).
      expect(hits.some((hit, i) => hit.referrer?.includes("semalt") && model.verdicts[i] === "accepted")).toBe(true);
      expect(reference.verdictMismatches).toEqual([]);
      expect(checkpointReads).toBeGreaterThan(100);
      expect(checkpointProblems.slice(0, 5)).toEqual([]);
      expect(model.verdicts.filter((v) => v === "accepted").length).toBe(tallies.accepted);
    });

    it("retention deleted exactly the visits, hits and properties older than each website's retention_days", () => {
      // Unfiltered statistics read the rollups, which keep everything: the checks below ask ny's deleted days too.
      expect(reference.retention.expected).toBeGreaterThan(1000);
      expect(reference.retention.deleted).toBe(reference.retention.expected);
    });

    it("the data set exercises the tricky parts (sanity of the generator, not of the engine)", () => {
      const { model, hits } = reference;
      const whole = (site: string, named: Named) => answer(unfiltered(site), { ...named, from: "2025-01-01", to: "2028-12-31" }).rows;
      for (const site of SITES) {
        for (const named of STATISTICS.filter((s) => s.property !== "no-such-property")) {
          // Every statistic has data on every site (city needs the city database).
          expect(whole(site.key, named).length, `${site.key} ${named.label}`).toBeGreaterThan(0);
        }
      }
      // Bots are counted as visitors on the site that keeps them.
      const agents = createUserAgentParser();
      expect(
        hits.filter((hit, i) => hit.site === "utc" && agents.isBot(hit.userAgent) && model.verdicts[i] === "accepted").length,
      ).toBeGreaterThan(100);
      // Visits that continue across local midnight exist: a visitor-day that has no landing page that day.
      expect(model.rows("ny", "visitors_hours", "2025-01-01", "2028-12-31").find((row) => row.value === "00")!.count).toBeGreaterThan(50);
      // Excluded parameters were removed and "&" dropped every query.
      const pages = (site: string) => model.rows(site, "page", "2025-01-01", "2028-12-31");
      expect(pages("utc").some((row) => row.value.includes("fbclid") || row.value.includes("session="))).toBe(false);
      expect(pages("utc").some((row) => row.value.includes("SESSION=upper"))).toBe(true);
      expect(pages("lordhowe").some((row) => row.value.split("#")[0]!.includes("?"))).toBe(false);
      expect(pages("utc").some((row) => row.value.startsWith("/app#/"))).toBe(true);
      expect(model.rows("kolkata", "campaign", "2025-01-01", "2028-12-31").length).toBeGreaterThan(3);
      // UTM values were cleaned: control characters removed, trimmed, cut to 200 characters.
      const sources = model.rows("utc", "utm_source", "2025-01-01", "2028-12-31").map((row) => row.value);
      expect(sources).toEqual(expect.arrayContaining(["facebook", "bing|ads", "café"]));
      expect(model.rows("utc", "utm_medium", "2025-01-01", "2028-12-31").map((row) => row.value)).not.toContain("\u0001email");
      expect(Math.max(...model.rows("ny", "utm_term", "2025-01-01", "2028-12-31").map((row) => row.value.length))).toBe(200);
      // Named sources, unnamed hosts, utm_source without a referrer, and most channels.
      const named = model.rows("utc", "source", "2025-01-01", "2028-12-31").map((row) => row.value);
      expect(named).toEqual(
        expect.arrayContaining(["Google", "Twitter", "Facebook", "Hacker News", "ChatGPT", "example.net", "newsletter"]),
      );
      const channels = model.rows("utc", "channel", "2025-01-01", "2028-12-31").map((row) => row.value);
      expect(channels.length).toBeGreaterThanOrEqual(10);
      // Purchases carry revenue in every currency of the data set, sent in lower case too, on the website that keeps less.
      const purchase = whole("ny", { label: "goals", name: "goals" }).find((row) => row.value === "purchase")!;
      expect((purchase.revenue as { currency: string }[]).map((each) => each.currency)).toEqual(["EUR", "JPY", "USD"]);
      expect(hits.some((hit) => hit.revenue?.currency === "eur")).toBe(true);
      // Visits of one pageview and no event, and others; durations above zero.
      const totals = totalsOf(unfiltered("utc"), "2025-01-01", "2028-12-31");
      expect(totals.bounce_rate).toBeGreaterThan(10);
      expect(totals.bounce_rate).toBeLessThan(90);
      expect(totals.visit_duration).toBeGreaterThan(0);
      console.info("reference diagnostics:", JSON.stringify(model.diagnostics));
      expect(model.diagnostics.visitsAcrossMidnight).toBeGreaterThan(50);
      expect(model.diagnostics.gapsOfExactly30Minutes).toBeGreaterThan(50);
      expect(model.diagnostics.visitsByReferrerChange).toBeGreaterThan(50);
      expect(model.diagnostics.visitsByCampaignChange).toBeGreaterThan(50);
      // A page on another host of a site that counts its subdomains, without a referrer saying so.
      expect(model.diagnostics.visitsByHostChange).toBeGreaterThan(20);
      expect(model.diagnostics.signalsInVisits).toBeGreaterThan(1000);
      expect(model.diagnostics.signalsIgnored).toBeGreaterThan(20);
      // The hand-made edges (reference-data.ts): a hit 45 minutes after midnight after a signal 20 minutes after it.
      expect(model.diagnostics.newVisitsAfterSignalPastMidnight).toBeGreaterThanOrEqual(SITES.length);
      // UTM values: control characters removed before trimming.
      expect(model.rows("ny", "utm_medium", "2025-01-01", "2028-12-31").map((row) => row.value)).not.toContain(" email");
      // DST days: 23 and 25 local hours.
      expect(model.rows("ny", "pageviews_hours", "2026-03-08", "2026-03-08").some((row) => row.value === "02")).toBe(false);
    });

    for (const site of SITES) {
      describe(`${site.key} (${site.timezone})`, () => {
        it.each(STATISTICS.map((named) => [named.label, named] as const))(
          "%s: every range, order, search and page",
          { timeout: 180_000 },
          async (_label, named) => {
            const problems: string[] = [];
            for (const [from, to] of rangesOf(site.key)) {
              const asked: Asked = { site: site.key, ...named, from, to };
              // The same for every dialect: worked out for the first.
              const expected = remembered(reference.model, JSON.stringify(asked), () => answer(unfiltered(site.key), asked));
              problems.push(...(await check.whole(asked, expected)));
              for (const list of LIST_VARIANTS(expected.rows.length)) {
                const problem = await check.page(asked, expected, list);
                if (problem) problems.push(problem);
              }
              if (searched(site.key, from, to)) {
                for (const search of searchesFor(expected.rows, FIXED_SEARCHES)) {
                  for (const list of [
                    { search, per_page: 100 },
                    { search, search_by: "value", sort_by: "value", sort: "desc", per_page: 25 },
                  ] as ListQuery[]) {
                    const problem = await check.page(asked, expected, list);
                    if (problem) problems.push(problem);
                  }
                }
              }
              if (problems.length > 5) break;
            }
            expect(problems.slice(0, 5)).toEqual([]);
          },
        );

        it(
          "every statistic compared with the period before and the year before: each row's previous count and the previous total",
          { timeout: 180_000 },
          async () => {
            expect(await comparisonProblems(check, site.key, STATISTICS, COMPARED, unfiltered(site.key))).toEqual([]);
          },
        );

        it.each(ENGAGEMENT_STATISTICS.map((name) => [name] as const))(
          "%s (engagement): every range, order and page, and compared, against the signals the model saw",
          { timeout: 180_000 },
          async (name) => {
            const visits = keptVisits(reference.model.visits, site.key, reference.firstKeptDay.get(site.key)!);
            const { problems, rowsSeen } = await engagementProblems(check, site.key, name, visits, rangesOf(site.key), COMPARED);
            expect(problems.slice(0, 5)).toEqual([]);
            expect(rowsSeen).toBeGreaterThan(20);
          },
        );

        it("the totals call, alone and compared, for every range", async () => {
          totalsCalls += await expectTotals(reference, site.key, rangesOf(site.key), unfiltered(site.key));
        });
      });
    }

    it("(model self-check) the day series and the hour series add up to the same totals", () => {
      for (const site of SITES) {
        for (const [from, to] of rangesOf(site.key)) {
          const sum = (rows: readonly Row[]) => rows.reduce((total, row) => total + row.count, 0);
          const rows = (name: string) => reference.model.rows(site.key, name, from, to);
          expect(sum(rows("pageviews"))).toBe(sum(rows("pageviews_hours")));
          expect(sum(rows("visitors"))).toBe(sum(rows("visitors_hours")));
          expect(sum(rows("visits"))).toBe(sum(rows("landing_page")));
        }
      }
    });

    it("collect throws NotFoundError for an unknown host and for a deleted website", async () => {
      const { tally, accountId, stored } = reference;
      const hit = { ip: "8.8.8.8", userAgent: USER_AGENT, timestamp: Date.UTC(2026, 2, 1, 12) };
      await expect(tally.collect({ ...hit, url: "https://unknown-host.example/page" })).rejects.toBeInstanceOf(NotFoundError);
      const doomed = await tally.websites.create(accountId, { domain: "doomed.example", timezone: "Europe/Berlin" });
      expect(await tally.collect({ ...hit, url: "https://www.doomed.example/x" })).toEqual({ status: "accepted" });
      await tally.websites.delete(accountId, doomed.id);
      await expect(tally.collect({ ...hit, url: "https://doomed.example/x" })).rejects.toBeInstanceOf(NotFoundError);
      await expect(tally.collect({ ...hit, url: "https://www.doomed.example/y", timestamp: Date.UTC(2026, 2, 2) })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      await tally.flush();
      // The hit accepted before the deletion was still buffered: it must not be written for the deleted id.
      for (const table of ["rollups", "visitors", "visits", "hits"]) {
        const [row] = await stored.sql<{ n: number }>(`select count(*) as n from ${table} where website_id = ${Number(doomed.id)}`);
        expect(Number(row?.n), table).toBe(0);
      }
      // The other websites' statistics are untouched by the deletion.
      const asked: Asked = { site: "utc", name: "pageviews", from: "2026-01-01", to: "2026-12-31" };
      expect(await check.page(asked, answer(unfiltered("utc"), asked), { per_page: 100 })).toBeNull();
    });
  });
});
