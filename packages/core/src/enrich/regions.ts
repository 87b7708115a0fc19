import { iso31662 } from "iso-3166";

/**
 * The `region` statistic's value: `US-TX:Texas`, an ISO 3166-2 subdivision code and its name
 * from wooorm's maintained `iso-3166` package (MIT, from the ISO 3166-2 data on Wikipedia).
 * GeoLite2 records carry the code; DB-IP's ip-location-db records (`state1`) carry only an
 * English name, looked up here by country and name. A name the list does not know keeps the
 * country code in place of a subdivision code (`NL:North Holland`), so no visit loses its region.
 */

/** Spelling differences that do not make another region: case, accents, punctuation, spaces. */
const nameKey = (name: string): string =>
  name
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "");

interface Lists {
  byCode: Map<string, string>;
  byName: Map<string, string>;
  /** A country's subdivisions as [name key, code]. */
  byCountry: Map<string, [string, string][]>;
}
let built: Lists | undefined;

/** Built on the first region looked up: 5,000 subdivisions. */
function lists(): Lists {
  if (built) return built;
  built = { byCode: new Map(), byName: new Map(), byCountry: new Map() };
  for (const { code, name, parent } of iso31662) {
    built.byCode.set(code, name);
    const key = nameKey(name);
    // Two subdivisions of one country spelled alike (a city and its district): the name names neither.
    built.byName.set(`${parent}:${key}`, built.byName.has(`${parent}:${key}`) ? "" : code);
    const entries = built.byCountry.get(parent) ?? [];
    entries.push([key, code]);
    built.byCountry.set(parent, entries);
  }
  return built;
}

/**
 * The code of a subdivision named exactly, or else the one subdivision of the country whose
 * name starts with it: the list spells names locally with their kind (`Beijing Shi`,
 * `Hessen`) where DB-IP writes `Beijing`, `Hesse`.
 */
function codeOfName(countryCode: string, key: string): string {
  const { byName, byCountry } = lists();
  const exact = byName.get(`${countryCode}:${key}`);
  if (exact !== undefined) return exact;
  // All but the last letter (`Hesse`, `Hessen`); short names only exactly.
  const stem = key.slice(0, -1);
  if (stem.length < 4) return "";
  const starting = (byCountry.get(countryCode) ?? []).filter(([name]) => name.startsWith(stem));
  return starting.length === 1 ? starting[0]![1] : "";
}

/** `US-TX:Texas` for an ISO 3166-2 code (`US-TX`, or `TX` with the country); "" for a code the list lacks. */
export function regionOfCode(countryCode: string, code: string): string {
  const upper = code.trim().toUpperCase();
  const full = upper.includes("-") ? upper : `${countryCode}-${upper}`;
  if (!full.startsWith(`${countryCode}-`)) return "";
  const name = lists().byCode.get(full);
  return name === undefined ? "" : `${full}:${name}`;
}

/** The stored region of a subdivision named in a country (`US`, `Texas`); "" without a name. */
export function regionOfName(countryCode: string, name: string): string {
  const trimmed = name.trim();
  if (trimmed === "" || countryCode === "") return "";
  const code = codeOfName(countryCode, nameKey(trimmed));
  return code ? `${code}:${lists().byCode.get(code)}` : `${countryCode}:${trimmed}`;
}
