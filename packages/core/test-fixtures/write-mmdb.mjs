// Writes tiny MaxMind DB files laid out like GeoLite2-City and GeoLite2-Country, so
// the GeoLite2 code path is tested without MaxMind's licensed databases.
// Format: https://maxmind.github.io/MaxMind-DB/ (v2.0). Run `node write-mmdb.mjs`
// from anywhere to regenerate the committed .mmdb files; the output is deterministic.
import { writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { fileURLToPath } from "node:url";

const METADATA_MARKER = Buffer.from("abcdef4d61784d696e642e636f6d", "hex"); // "\xAB\xCD\xEFMaxMind.com"
const DATA_SECTION_SEPARATOR = Buffer.alloc(16);
const RECORD_SIZE = 24;

const UINT16 = Symbol("uint16");

/** Marks an integer to be stored as uint16 (the spec's type for several metadata keys). */
const uint16 = (value) => ({ [UINT16]: value });

/**
 * Field values: string, double (number that is not an integer), uint32 (integer),
 * uint16 (`uint16(n)`), uint64 (bigint), boolean, array, map (plain object).
 */
function encode(value) {
  if (value && typeof value === "object" && UINT16 in value) return withControl(5, uintBytes(BigInt(value[UINT16])));
  if (typeof value === "string") return withControl(2, Buffer.from(value, "utf8"));
  if (typeof value === "boolean") return control(14, value ? 1 : 0);
  if (typeof value === "bigint") return withControl(9, uintBytes(value));
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value < 2 ** 32) {
    return withControl(6, uintBytes(BigInt(value)));
  }
  if (typeof value === "number") {
    const bytes = Buffer.alloc(8);
    bytes.writeDoubleBE(value);
    return withControl(3, bytes);
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  if (value && typeof value === "object") {
    const entries = Object.entries(value);
    return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
  }
  throw new TypeError(`cannot encode ${typeof value}`);
}

function withControl(type, payload) {
  return Buffer.concat([control(type, payload.length), payload]);
}

/** Control byte: 3 type bits and 5 size bits, then the extended type and size bytes. */
function control(type, size) {
  if (size >= 65_821) throw new RangeError("field too large for this writer");
  let sizeBits = size;
  let sizeBytes = [];
  if (size >= 285) [sizeBits, sizeBytes] = [30, [(size - 285) >> 8, (size - 285) & 0xff]];
  else if (size >= 29) [sizeBits, sizeBytes] = [29, [size - 29]];
  const head = type <= 7 ? [(type << 5) | sizeBits] : [sizeBits, type - 7];
  return Buffer.from([...head, ...sizeBytes]);
}

function uintBytes(value) {
  const bytes = [];
  for (let v = value; v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn));
  return Buffer.from(bytes);
}

/** The network's prefix as bits, IPv4 placed at ::a.b.c.d/96+n as in MaxMind's IPv6 databases. */
function networkBits(cidr, ipVersion) {
  const [address, prefixText] = cidr.split("/");
  const family = isIP(address);
  if (family === 0 || prefixText === undefined) throw new Error(`bad network ${cidr}`);
  if (family === 6 && ipVersion === 4) throw new Error(`IPv6 network ${cidr} in an IPv4 database`);
  let bits;
  if (family === 4) {
    bits = address.split(".").flatMap((octet) => [...Number(octet).toString(2).padStart(8, "0")]);
    if (ipVersion === 6) bits = [...Array(96).fill("0"), ...bits];
  } else {
    // The URL parser normalises away embedded IPv4 and leaves at most one "::".
    const [head = "", tail] = new URL(`http://[${address}]`).hostname.slice(1, -1).split("::");
    const left = head === "" ? [] : head.split(":");
    const right = tail === undefined || tail === "" ? [] : tail.split(":");
    const groups = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
    bits = groups.flatMap((g) => [...parseInt(g, 16).toString(2).padStart(16, "0")]);
  }
  const prefix = Number(prefixText) + (family === 4 && ipVersion === 6 ? 96 : 0);
  return bits.slice(0, prefix).map(Number);
}

/**
 * @param {{ databaseType: string, ipVersion: 4 | 6, languages?: string[], buildEpoch: number,
 *   networks: { network: string, data: unknown }[] }} options
 * @returns {Buffer}
 */
export function buildMmdb({ databaseType, ipVersion, languages = ["en"], buildEpoch, networks }) {
  // A trie: each node is [left, right]; a child is a node, { data } or null (no data).
  const root = [null, null];
  const dataParts = [];
  let dataLength = 0;
  for (const { network, data } of networks) {
    const bits = networkBits(network, ipVersion);
    if (bits.length === 0) throw new Error("a /0 network is not supported");
    let node = root;
    for (const bit of bits.slice(0, -1)) {
      if (node[bit] === null) node[bit] = [null, null];
      if (!Array.isArray(node[bit])) throw new Error(`${network} overlaps another network`);
      node = node[bit];
    }
    const last = bits[bits.length - 1];
    if (node[last] !== null) throw new Error(`${network} overlaps another network`);
    const encoded = encode(data);
    node[last] = { data: dataLength };
    dataParts.push(encoded);
    dataLength += encoded.length;
  }

  const nodes = [];
  const queue = [root];
  while (queue.length > 0) {
    const node = queue.shift();
    nodes.push(node);
    for (const child of node) if (Array.isArray(child)) queue.push(child);
  }
  const ids = new Map(nodes.map((node, id) => [node, id]));
  const nodeCount = nodes.length;
  if (nodeCount + 16 + dataLength >= 2 ** RECORD_SIZE) throw new Error("too large for 24-bit records");
  const recordValue = (child) => (child === null ? nodeCount : Array.isArray(child) ? ids.get(child) : nodeCount + 16 + child.data);

  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((node, id) => {
    tree.writeUIntBE(recordValue(node[0]), id * 6, 3);
    tree.writeUIntBE(recordValue(node[1]), id * 6 + 3, 3);
  });

  const metadata = encode({
    binary_format_major_version: uint16(2),
    binary_format_minor_version: uint16(0),
    build_epoch: BigInt(buildEpoch),
    database_type: databaseType,
    description: { en: `Tally test fixture laid out like ${databaseType}` },
    ip_version: uint16(ipVersion),
    languages,
    node_count: nodeCount,
    record_size: uint16(RECORD_SIZE),
  });
  return Buffer.concat([tree, DATA_SECTION_SEPARATOR, ...dataParts, METADATA_MARKER, metadata]);
}

const names = (en, de) => ({ de, en });
const continents = {
  EU: { code: "EU", geoname_id: 6255148, names: names("Europe", "Europa") },
  NA: { code: "NA", geoname_id: 6255149, names: names("North America", "Nordamerika") },
  AS: { code: "AS", geoname_id: 6255147, names: names("Asia", "Asien") },
};
const country = (iso_code, geoname_id, en, de) => ({ geoname_id, iso_code, names: names(en, de) });
const GB = country("GB", 2635167, "United Kingdom", "Vereinigtes Königreich");
const US = country("US", 6252001, "United States", "USA");
const SE = country("SE", 2661886, "Sweden", "Schweden");
const JP = country("JP", 1861060, "Japan", "Japan");
const FR = country("FR", 3017382, "France", "Frankreich");
const DE = country("DE", 2921044, "Germany", "Deutschland");

/** The networks (documented in geo.test.ts) and what each record holds. */
export const CITY_NETWORKS = [
  {
    network: "81.2.69.0/24",
    data: {
      city: { geoname_id: 2643743, names: names("London", "London") },
      continent: continents.EU,
      country: GB,
      location: { accuracy_radius: uint16(10), latitude: 51.5142, longitude: -0.0931, time_zone: "Europe/London" },
      registered_country: GB,
      subdivisions: [{ geoname_id: 6269131, iso_code: "ENG", names: names("England", "England") }],
    },
  },
  {
    network: "216.160.83.56/29",
    data: {
      city: { geoname_id: 5803556, names: names("Milton", "Milton") },
      continent: continents.NA,
      country: US,
      location: { accuracy_radius: uint16(22), latitude: 47.2513, longitude: -122.3149, time_zone: "America/Los_Angeles" },
      postal: { code: "98354" },
      registered_country: US,
      subdivisions: [{ geoname_id: 5815135, iso_code: "WA", names: names("Washington", "Washington") }],
    },
  },
  // Country known, no city: city must come out "".
  { network: "89.160.20.112/28", data: { continent: continents.EU, country: SE, registered_country: SE } },
  // Only the registered country (as for some anycast and satellite networks).
  { network: "5.5.5.0/24", data: { continent: continents.EU, registered_country: FR } },
  // No continent in the record: it must be derived from the country.
  { network: "2001:218::/32", data: { city: { geoname_id: 1850147, names: names("Tokyo", "Tokio") }, country: JP } },
  // A city without an English name.
  { network: "2a01:4f8::/32", data: { city: { names: { de: "Nürnberg" } }, continent: continents.EU, country: DE } },
];

export const COUNTRY_NETWORKS = CITY_NETWORKS.map(({ network, data }) => {
  const { city: _city, location: _location, postal: _postal, subdivisions: _subdivisions, ...rest } = data;
  return { network, data: rest };
});

const BUILD_EPOCH = 1_767_225_600; // 2026-01-01, fixed so the output is reproducible

export function buildFixtures() {
  return {
    "GeoLite2-City-Test.mmdb": buildMmdb({
      databaseType: "GeoLite2-City",
      ipVersion: 6,
      buildEpoch: BUILD_EPOCH,
      networks: CITY_NETWORKS,
      languages: ["de", "en"],
    }),
    "GeoLite2-Country-Test.mmdb": buildMmdb({
      databaseType: "GeoLite2-Country",
      ipVersion: 6,
      buildEpoch: BUILD_EPOCH,
      networks: COUNTRY_NETWORKS,
      languages: ["de", "en"],
    }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, bytes] of Object.entries(buildFixtures())) {
    writeFileSync(new URL(name, import.meta.url), bytes);
    console.log(`${name}: ${bytes.length} bytes`);
  }
}
