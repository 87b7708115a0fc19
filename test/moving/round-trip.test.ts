import { readFile, writeFile } from "node:fs/promises";
import { strFromU8, unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { GEOIP_FIXTURE, generateTraffic } from "../dashboard/demo-data.js";
import { allStatistics, fixtureDirectory } from "./support.js";

const NOW = Date.UTC(2025, 5, 30, 12);
const FROM = "2025-05-01";
const TO = "2025-06-30";

/** What Plausible's layout carries of Tally's statistics (docs in the docs/moving.md, "Leaving Tally"). */
const PLAUSIBLE_CARRIES = [
  "visitors",
  "pageviews",
  "visits",
  "bounce_rate",
  "visit_duration",
  "page",
  "hostname",
  "landing_page",
  "exit_page",
  "referrer",
  "source",
  "campaign",
  "utm_source",
  "utm_medium",
  "utm_content",
  "utm_term",
  "browser",
  "os",
  "device",
  "country",
  "continent",
  "region",
  "event",
  "goals",
];

describe.each(DIALECTS)("export, then import into an empty website, on %s", (dialect) => {
  let stored: TestTally;
  let accountId: number;
  let sourceId: number;
  let original: Awaited<ReturnType<typeof allStatistics>>;
  const files = fixtureDirectory();

  beforeAll(async () => {
    stored = await createTestTally(dialect, { geoip: GEOIP_FIXTURE });
    ({ accountId } = await stored.tally.accounts.create({ name: "leaving" }));
    // It counts its subdomains: Plausible's pages carry their hosts apart.
    const source = await stored.tally.websites.create(accountId, {
      domain: "source.example",
      timezone: "Europe/Berlin",
      include_subdomains: 1,
    });
    sourceId = source.id;
    await generateTraffic(stored.tally, {
      domain: "source.example",
      subdomains: ["docs"],
      days: 45,
      sessionsPerDay: 12,
      liveSessions: 0,
      now: NOW,
      seed: 15,
    });
    original = await allStatistics(stored.tally, accountId, sourceId, FROM, TO);
    expect(original.totals.pageviews).toBeGreaterThan(500);
    expect(Object.keys(original.stats.country ?? {}).length).toBeGreaterThan(1);
    expect(Object.keys(original.stats.region ?? {}).length).toBeGreaterThan(0);
    expect(Object.keys(original.stats.hostname ?? {}).sort()).toEqual(["docs.source.example", "source.example"]);
  });
  afterAll(async () => {
    await stored.dispose();
    files.dispose();
  });

  async function exportToFile(format: "csv" | "plausible"): Promise<string> {
    const progress: { rows: number; totalRows: number }[] = [];
    const exported = await stored.tally.export(sourceId, { format, onProgress: (p) => progress.push(p) });
    const path = `${files.directory}/${exported.fileName}`;
    await writeFile(path, Buffer.from(await new Response(exported.body).arrayBuffer()));
    expect(progress.at(-1)?.rows).toBeGreaterThan(0);
    return path;
  }

  it("Tally's CSV export gives every statistic back exactly, and the funnel definitions", async () => {
    const funnels = [
      { name: 'Checkout, "quoted"', steps: ["page:/", "page:/pricing*", "event:Signup"] },
      { name: "Blog", steps: ["page:/blog/*", "event:🎉 Celebrate"] },
    ];
    for (const funnel of funnels) await stored.tally.funnels.create(accountId, sourceId, funnel);
    const file = await exportToFile("csv");
    expect(file).toMatch(/tally-source\.example-20250\d{3}-202506\d\d\.zip$/);
    const target = await stored.tally.websites.create(accountId, { domain: "csv.target.example", timezone: "Europe/Berlin" });
    const summary = await stored.tally.import(file, { websiteId: target.id });
    expect(summary).toMatchObject({ format: "tally", skipped: {}, ignoredFiles: [] });
    const copy = await allStatistics(stored.tally, accountId, target.id, FROM, TO);
    expect(copy.stats).toEqual(original.stats);
    expect(copy.totals).toEqual(original.totals);
    const defined = async () =>
      (await stored.tally.funnels.list(accountId, target.id)).map((funnel) => ({ name: funnel.name, steps: funnel.steps }));
    expect(await defined()).toEqual(funnels);
    // Into a website that has one of them already: only the other is defined.
    const other = await stored.tally.websites.create(accountId, { domain: "csv.other.example", timezone: "Europe/Berlin" });
    await stored.tally.funnels.create(accountId, other.id, funnels[1]!);
    await stored.tally.import(file, { websiteId: other.id });
    expect((await stored.tally.funnels.list(accountId, other.id)).map((funnel) => funnel.name)).toEqual(["Blog", funnels[0]!.name]);
  });

  it("Plausible's layout gives back every statistic it carries", async () => {
    const file = await exportToFile("plausible");
    expect(file).toMatch(/source_example_20250\d{3}_202506\d\d\.zip$/);
    const target = await stored.tally.websites.create(accountId, { domain: "plausible.target.example", timezone: "Europe/Berlin" });
    const summary = await stored.tally.import(file, { websiteId: target.id });
    expect(summary).toMatchObject({ format: "plausible", skipped: {}, ignoredFiles: [] });
    const copy = await allStatistics(stored.tally, accountId, target.id, FROM, TO);
    for (const name of PLAUSIBLE_CARRIES) expect({ name, rows: copy.stats[name] }).toEqual({ name, rows: original.stats[name] });
    expect(copy.totals).toMatchObject({
      visitors: original.totals.visitors,
      visits: original.totals.visits,
      pageviews: original.totals.pageviews,
      bounce_rate: original.totals.bounce_rate,
      visit_duration: original.totals.visit_duration,
    });

    // The figures Tally's rollups have no breakdown of come from the visits store: the entry pages' durations,
    // bounces and pageviews add up to the site's, and a page's visitors are people, not its pageviews.
    const tables = unzipSync(new Uint8Array(await readFile(file)));
    const rowsOf = (table: string) => {
      const [header, ...lines] = strFromU8(Object.entries(tables).find(([name]) => name.startsWith(`imported_${table}_`))![1])
        .trim()
        .split("\n");
      const columns = header!.replace(/"/g, "").split(",");
      return lines.map((line) =>
        Object.fromEntries(
          line
            .replace(/"/g, "")
            .split(",")
            .map((value, i) => [columns[i], value]),
        ),
      );
    };
    const sum = (rows: Record<string, string>[], column: string) => rows.reduce((total, row) => total + Number(row[column]), 0);
    const rollupSum = async (name: string) =>
      Number(
        (await stored.sql<{ n: number }>(`select sum(count) as n from rollups where website_id = ${sourceId} and name = '${name}'`))[0]!.n,
      );
    const entries = rowsOf("entry_pages");
    expect(sum(entries, "visit_duration")).toBe(await rollupSum("visit_duration"));
    expect(sum(entries, "bounces")).toBe(await rollupSum("bounces"));
    expect(sum(entries, "pageviews")).toBe(await rollupSum("visit_pageviews"));
    // Pages with the host empty, hosts with the page empty: the website counts its subdomains.
    const [pages, hosts] = [rowsOf("pages").filter((row) => row.page !== ""), rowsOf("pages").filter((row) => row.page === "")];
    expect(pages.every((row) => row.hostname === "")).toBe(true);
    expect(new Set(hosts.map((row) => row.hostname))).toEqual(new Set(["source.example", "docs.source.example"]));
    expect(sum(hosts, "pageviews")).toBe(sum(pages, "pageviews"));
    expect(pages.every((row) => Number(row.visitors) <= Number(row.visits) && Number(row.visits) <= Number(row.pageviews))).toBe(true);
    expect(sum(pages, "visitors")).toBeLessThan(sum(pages, "pageviews"));
  });
});
