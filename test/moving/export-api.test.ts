import { strFromU8, unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectInvalid, expectJson, jsonBody } from "../support/api-client.js";
import { apiMatrix } from "../support/matrix.js";
import { servedWithTwoAccounts } from "../support/tally-fixture.js";

describe.each(apiMatrix)("GET /api/v1/websites/{id}/export, $name", ({ transport, dialect }) => {
  let fixture: Awaited<ReturnType<typeof servedWithTwoAccounts>>;
  let websiteId: number;
  let key: string;

  beforeAll(async () => {
    fixture = await servedWithTwoAccounts(transport, dialect);
    websiteId = ((await fixture.alice.post("/api/v1/websites", jsonBody({ domain: "export.example" }))).body.data as { id: number }).id;
    key = (await fixture.tally.accounts.createKey(fixture.aliceId)).key;
    const hit = { ip: "198.51.100.4", userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0" };
    await fixture.tally.collect({ ...hit, url: "https://export.example/", timestamp: Date.UTC(2025, 0, 5, 10) });
    // Two engagement signals on the first page (scroll depth, web vitals), within the visit's minute.
    const signal = { ...hit, url: "https://export.example/" };
    await fixture.tally.collect({
      ...signal,
      engagedMs: 20_000,
      scrollDepth: 60,
      vitals: { lcp: 2100, cls: 0.05 },
      timestamp: Date.UTC(2025, 0, 5, 10, 0, 20),
    });
    await fixture.tally.collect({ ...signal, engagedMs: 5_000, scrollDepth: 40, timestamp: Date.UTC(2025, 0, 5, 10, 0, 40) });
    await fixture.tally.collect({ ...hit, url: 'https://export.example/a,"b"', timestamp: Date.UTC(2025, 0, 5, 10, 1) });
    await fixture.tally.collect({
      ...hit,
      url: "https://export.example/",
      event: "Signup",
      props: { plan: "pro" },
      timestamp: Date.UTC(2025, 0, 6, 9),
    });
  });
  afterAll(() => fixture.dispose());

  async function download(query: string) {
    const response = await fixture.served.fetch(`/api/v1/websites/${websiteId}/export${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return { response, files: response.status === 200 ? unzipSync(new Uint8Array(await response.arrayBuffer())) : {} };
  }

  it("streams Tally's CSV zip: one file per statistic, one row per day", async () => {
    const { response, files } = await download("");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="tally-export.example-20250105-20250106.zip"');
    expect(Object.keys(files)).toContain("event_property.csv");
    // The funnel definitions (none here) ride along for `tally import`.
    expect(strFromU8(files["funnels.csv"]!)).toBe('"name","steps"\n');
    expect(strFromU8(files["pageviews.csv"]!)).toBe('"date","pageviews"\n"2025-01-05",2\n');
    expect(strFromU8(files["page.csv"]!)).toBe('"date","value","count"\n"2025-01-05","/",1\n"2025-01-05","/a,""b""",1\n');
    expect(strFromU8(files["visits.csv"]!)).toBe(
      '"date","visits","bounces","total_duration","visit_pageviews","bounce_rate","visit_duration","views_per_visit"\n"2025-01-05",1,0,60,2,0,60,2\n"2025-01-06",1,0,0,0,0,0,0\n',
    );
    expect(strFromU8(files["event_property.csv"]!)).toBe(
      '"date","event","property","value","count"\n"2025-01-06","Signup","plan","pro",1\n',
    ); // The engagement signals, one row per signal (import does not read them back: they belong to visits).
    expect(strFromU8(files["engagement.csv"]!)).toBe(
      '"date","visit","page","engaged_ms","scroll_depth","lcp","inp","cls","fcp","ttfb"\n' +
        '"2025-01-05",1,"/",20000,60,2100,"",0.05,"",""\n' +
        '"2025-01-05",1,"/",5000,40,"","","","",""\n',
    );
  });

  it("Plausible's layout, limited to a range", async () => {
    const { response, files } = await download("?format=plausible&from=2025-01-06&to=2025-01-06");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="export_example_20250106_20250106.zip"');
    expect(strFromU8(files["imported_visitors_20250106_20250106.csv"]!)).toBe(
      '"date","visitors","pageviews","bounces","visits","visit_duration"\n"2025-01-06",1,0,0,1,0\n',
    );
    expect(strFromU8(files["imported_custom_events_20250106_20250106.csv"]!)).toBe(
      '"date","name","link_url","path","visitors","events"\n"2025-01-06","Signup","","",1,1\n',
    ); // A page's scroll depth and time on page totals, as Plausible's export reckons them (each visit's deepest, its seconds).
    const engaged = await download("?format=plausible&from=2025-01-05&to=2025-01-05");
    expect(strFromU8(engaged.files["imported_pages_20250105_20250105.csv"]!)).toBe(
      '"date","hostname","page","visits","visitors","pageviews","total_scroll_depth","total_scroll_depth_visits","total_time_on_page","total_time_on_page_visits"\n' +
        '"2025-01-05","export.example","/",1,1,1,60,1,25,1\n' +
        '"2025-01-05","export.example","/a,""b""",1,1,1,0,0,0,0\n',
    );
    const v1 = (name: string) => fixture.tally.stats.queryWebsite(websiteId, { name, from: "2025-01-05", to: "2025-01-05" });
    expect((await v1("scroll_depth")).data).toEqual([{ value: "/", count: 1, average: 60, median: 60 }]);
    expect((await v1("time_on_page")).data).toEqual([{ value: "/", count: 1, seconds: 25 }]);
  });

  it("refuses bad parameters with 422, another account's website with 404", async () => {
    expectInvalid(await fixture.alice.get(`/api/v1/websites/${websiteId}/export?format=xml`), {
      format: ["The format must be csv or plausible."],
    });
    expectInvalid(await fixture.alice.get(`/api/v1/websites/${websiteId}/export?from=2025-02-30`), {
      from: ["The from day must be a date such as 2024-01-31."],
    });
    expectJson(await fixture.bob.get(`/api/v1/websites/${websiteId}/export`), 404);
    expectJson(await fixture.anonymous.get(`/api/v1/websites/${websiteId}/export`), 401);
  });
});
