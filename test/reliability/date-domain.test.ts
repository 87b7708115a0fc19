// A date at the top of the calendar once hung the process (the period
// walk compared "10000-01-01" < "9999-12-31" as text and never ended). Dates outside the
// accepted domain (1970-01-01 … 9998-12-31) are refused with a 422 before any work, and
// the walk itself cannot loop.
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coveringPeriods } from "@tally-analytics/core/internal";
import { apiClient, expectInvalid, expectJson, type ApiClient } from "../support/api-client.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";

const OUT_OF_DOMAIN = "The from must be a date from 1970-01-01 to 9998-12-31.";
const TO_OUT_OF_DOMAIN = "The to must be a date from 1970-01-01 to 9998-12-31.";

describe("the period walk", () => {
  it("covers the last days of the domain and stops", () => {
    expect(coveringPeriods("9998-01-01", "9998-12-31")).toEqual(["9998"]);
    expect(coveringPeriods("9998-06-15", "9998-12-31")).toEqual([
      ...["15", "16", "17", "18", "19", "20"].map((day) => `9998-06-${day}`),
      "9998-06/3",
      "9998-Q3",
      "9998-Q4",
    ]);
    expect(coveringPeriods("1970-01-01", "1970-01-02")).toEqual(["1970-01-01", "1970-01-02"]);
  });

  it("never loops, even past the domain: years are numbers, not text", () => {
    expect(coveringPeriods("9999-01-01", "9999-12-31")).toEqual(["9999"]);
    expect(coveringPeriods("9999-07-01", "9999-12-31")).toEqual(["9999-Q3", "9999-Q4"]);
    expect(coveringPeriods("0001-01-01", "0999-12-31")).toHaveLength(999);
    expect(() => coveringPeriods("0001-01-01", "9999-12-31")).toThrow(/too many periods/);
    expect(() => coveringPeriods("2026-02-30", "2026-03-01")).toThrow(RangeError);
  });
});

describe("dates outside the domain through HTTP", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let owner: ApiClient;
  let anonymous: ApiClient;
  let id = 0;

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    const { accountId, key } = await tally.accounts.create();
    id = (await tally.websites.create(accountId, { domain: "public.example", privacy: 0 })).id;
    await tally.collect({
      url: "https://public.example/",
      ip: "203.0.113.9",
      userAgent: "Mozilla/5.0 Firefox/120.0",
      timestamp: Date.UTC(2026, 4, 1),
    });
    served = await transports.find((t) => t.name === "node:http")!.serve(tally);
    owner = apiClient(served, key);
    anonymous = apiClient(served, null);
  });

  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("a share page read of year 9999 answers 422 at once (it used to hang the process)", async () => {
    const response = await anonymous.get("/share/public.example/api/stats?name=page&from=9999-01-01&to=9999-12-31");
    expectInvalid(response, { from: [OUT_OF_DOMAIN], to: [TO_OUT_OF_DOMAIN] });
  });

  it("the API refuses ranges touching year 9999 or before 1970, also starting mid-year (used to answer 500)", async () => {
    expectInvalid(await owner.get(`/api/v1/stats/${id}?name=page&from=9999-01-01&to=9999-12-31`), {
      from: [OUT_OF_DOMAIN],
      to: [TO_OUT_OF_DOMAIN],
    });
    expectInvalid(await owner.get(`/api/v1/stats/${id}?name=page&from=9998-07-01&to=9999-12-31`), { to: [TO_OUT_OF_DOMAIN] });
    expectInvalid(await owner.get(`/api/v1/stats/${id}?name=visitors&from=1969-12-31&to=1970-01-31`), { from: [OUT_OF_DOMAIN] });
  });

  it("the first and last days of the domain are answered", async () => {
    for (const [from, to] of [
      ["9998-01-01", "9998-12-31"],
      ["9998-07-01", "9998-12-31"],
      ["1970-01-01", "1970-12-31"],
    ]) {
      const response = await owner.get(`/api/v1/stats/${id}?name=page&from=${from}&to=${to}`);
      expectJson(response, 200);
      expect(response.body.data).toEqual([]);
    }
    const real = await owner.get(`/api/v1/stats/${id}?name=page&from=2026-01-01&to=2026-12-31`);
    expect(real.body.data).toEqual([{ value: "/", count: 1 }]);
  });

  it("hits timed outside the domain are refused and change nothing", async () => {
    for (const timestamp of [Date.UTC(9999, 0, 1), Date.UTC(1969, 11, 30), 8.64e15]) {
      await expect(
        tally.collect({ url: "https://public.example/x", ip: "203.0.113.9", userAgent: "Mozilla/5.0 Firefox/120.0", timestamp }),
      ).rejects.toMatchObject({
        errors: { timestamp: ["The timestamp must fall between 1970-01-01 and 9998-12-31."] },
      });
    }
    const page = await tally.stats.queryWebsite(id, { name: "page", from: "1970-01-01", to: "1979-12-31" });
    expect(page.total).toBe(0);
  });
});
