import type * as CountriesList from "countries-list";
import { lazy } from "../shared/lazy.js";
import { lazyRequire, optionalImport } from "../shared/lazy-require.js";
import type { Reader, Response } from "maxmind";
import type * as RegionsModule from "./regions.js";
import { isIP } from "node:net";
import { createLruCache } from "./lru-cache.js";

/** Values as the country, continent, region and city statistics store them; "" when unknown. */
export interface GeoLocation {
  /** `"US:United States"`: ISO 3166-1 alpha-2 code and English name. */
  readonly country: string;
  /** `"NA:North America"`: one of AF, AN, AS, EU, NA, OC, SA and its English name. */
  readonly continent: string;
  /** `"US:Austin"`: country code and the city's English name; "" without a city database. */
  readonly city: string;
  /** `"US-TX:Texas"`: ISO 3166-2 code and name (enrich/regions.ts); "" without a city database. */
  readonly region: string;
}

export interface GeoLookup {
  /** Never throws: private, unknown and malformed addresses all give null. */
  lookup(ip: string): GeoLocation | null;
  /** Drops the databases and the cache; later lookups give null. */
  close(): void;
}

export interface GeoLookupOptions {
  /**
   * Distinct addresses whose answers are remembered.
   * @default 10000
   */
  cacheSize?: number;
}

const CONTINENT_NAMES: Readonly<Record<string, string>> = {
  AF: "Africa",
  AN: "Antarctica",
  AS: "Asia",
  EU: "Europe",
  NA: "North America",
  OC: "Oceania",
  SA: "South America",
};

const countryList = lazyRequire<typeof CountriesList>("countries-list");
const countryOf = (code: string): { name: string; continent: string } | undefined =>
  (countryList().countries as Partial<Record<string, { name: string; continent: string }>>)[code];

type Regions = typeof RegionsModule;
let regions: Regions | undefined;

/**
 * ISO 3166-2's 5,000 subdivisions (1.6 MB of the host's heap), loaded with the first GeoIP
 * database opened or the first record that names a region: an app with neither never holds them.
 */
export async function loadRegions(): Promise<Regions> {
  return (regions ??= await import("./regions.js"));
}

function loadedRegions(): Regions {
  if (!regions) throw new Error("A region was named before loadRegions() finished (enrich/geo.ts).");
  return regions;
}

const regionNames = lazy(() => new Intl.DisplayNames(["en"], { type: "region", fallback: "none" }));

/**
 * Opens one or more MaxMind DB files: MaxMind GeoLite2/GeoIP2 Country or City, or an
 * ip-location-db file (`country_code`, `city`, …). Several paths serve databases that
 * come split by IP version, such as DB-IP's city files; the first one with an answer
 * wins, and IPv4-only files are never asked about IPv6 addresses (they would answer
 * from the address's first 32 bits).
 */
export async function openGeoLookup(path: string | readonly string[], { cacheSize = 10_000 }: GeoLookupOptions = {}): Promise<GeoLookup> {
  const paths = typeof path === "string" ? [path] : path;
  if (paths.length === 0) throw new TypeError("openGeoLookup needs at least one database path");
  let readers: Reader<Response>[] = await Promise.all(paths.map((p) => openReader(p)));
  await loadRegions();
  const cache = createLruCache<string, GeoLocation | null>(cacheSize);

  function lookupUncached(address: string, family: 4 | 6): GeoLocation | null {
    for (const reader of readers) {
      if (family === 6 && reader.metadata.ipVersion === 4) continue;
      const location = toLocation(reader.get(address));
      if (location) return location;
    }
    return null;
  }

  return {
    lookup(ip) {
      const normalized = normalizeIp(ip);
      if (!normalized) return null;
      const cached = cache.get(normalized.address);
      if (cached !== undefined) return cached;
      let location: GeoLocation | null;
      try {
        location = lookupUncached(normalized.address, normalized.family);
      } catch {
        // A corrupt database must not take the collect endpoint down with it.
        location = null;
      }
      cache.set(normalized.address, location);
      return location;
    },
    close() {
      readers = [];
      cache.clear();
    },
  };
}

async function openReader(path: string): Promise<Reader<Response>> {
  try {
    // maxmind's own record cache is left on: it caches decoded records, ours whole answers.
    // Loaded with the first database: without a `geoip` option, maxmind is never loaded.
    const { open } = await optionalImport("maxmind", () => import("maxmind"));
    return await open<Response>(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot open the GeoIP database ${path}: ${reason}`, { cause: error });
  }
}

/**
 * A valid address in the spelling the cache is keyed by. IPv4-mapped IPv6
 * (`::ffff:1.2.3.4`, as dual-stack sockets report IPv4 clients) becomes IPv4: the
 * databases index IPv4 networks only under `::/96`, so the mapped form finds nothing.
 */
function normalizeIp(ip: string): { address: string; family: 4 | 6 } | null {
  const text = ip.trim();
  const family = isIP(text);
  if (family === 4) return { address: text, family };
  if (family !== 6) return null;
  let canonical: string;
  try {
    canonical = new URL(`http://[${text.replace(/%.*$/, "")}]`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return { address: canonical, family: 6 };
  const high = parseInt(mapped[1] ?? "", 16);
  const low = parseInt(mapped[2] ?? "", 16);
  return { address: [high >> 8, high & 0xff, low >> 8, low & 0xff].join("."), family: 4 };
}

/** Reads both layouts: GeoLite2 (`country.iso_code`, `city.names.en`, `subdivisions`) and ip-location-db (`country_code`, `city`, `state1`). */
function toLocation(record: unknown): GeoLocation | null {
  if (!isObject(record)) return null;
  const countryCode = validCountryCode(
    stringAt(record, "country", "iso_code") || stringAt(record, "registered_country", "iso_code") || stringAt(record, "country_code"),
  );
  const continentCode =
    stringAt(record, "continent", "code") ||
    stringAt(record, "continent_code") ||
    (countryCode ? (countryOf(countryCode)?.continent ?? "") : "");
  const continentName = CONTINENT_NAMES[continentCode];
  const continent = continentName ? `${continentCode}:${continentName}` : "";
  if (!countryCode) return continent ? { country: "", continent, city: "", region: "" } : null;
  const cityName = stringAt(record, "city", "names", "en") || stringAt(record, "city");
  const subdivision = Array.isArray(record["subdivisions"]) ? (record["subdivisions"][0] as unknown) : undefined;
  const { regionOfCode, regionOfName } = loadedRegions();
  const region =
    regionOfCode(countryCode, stringAt(subdivision, "iso_code")) ||
    regionOfName(countryCode, stringAt(subdivision, "names", "en") || stringAt(record, "state1"));
  return { ...locationOf(countryCode, cityName)!, continent, region };
}

/**
 * The stored values of a country code (and a city and an ISO 3166-2 region code in it, `US-TX`:
 * loadRegions() first), as a lookup would give them; null for no valid code.
 */
export function locationOf(code: string, cityName = "", regionCode = ""): GeoLocation | null {
  const countryCode = validCountryCode(code);
  if (!countryCode) return null;
  const continentCode = countryOf(countryCode)?.continent ?? "";
  const continentName = CONTINENT_NAMES[continentCode];
  return {
    country: `${countryCode}:${countryName(countryCode)}`,
    continent: continentName ? `${continentCode}:${continentName}` : "",
    city: cityName ? `${countryCode}:${cityName}` : "",
    region: regionCode ? loadedRegions().regionOfCode(countryCode, regionCode) : "",
  };
}

/** "ZZ" is the ISO code for "unknown"; anything but two letters is not a country. */
function validCountryCode(code: string): string {
  const upper = code.toUpperCase();
  return /^[A-Z]{2}$/.test(upper) && upper !== "ZZ" ? upper : "";
}

function countryName(code: string): string {
  return regionNames().of(code) ?? countryOf(code)?.name ?? code;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The trimmed string at a path of keys in a decoded record, or "". */
function stringAt(value: unknown, ...keys: string[]): string {
  let current = value;
  for (const key of keys) {
    if (!isObject(current)) return "";
    current = current[key];
  }
  return typeof current === "string" ? current.trim() : "";
}
