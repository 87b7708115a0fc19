/**
 * Bad input: seeded, generated requests that must all be refused, over every route of
 * the route table (plus unknown ones): wrong methods, missing/duplicate/oversized
 * fields, invalid UTF-8, huge query strings, deep JSON, wrong content types,
 * traversal-looking, SQL-looking and non-numeric ids, numbers out of range, impossible
 * dates. Every answer must be a 4xx whose JSON body has `status` equal to the HTTP
 * status, never a 5xx; the server keeps serving; and not one row of any
 * table changes (a byte-exact snapshot of the SQLite file's tables before and after).
 *
 * 1. 4,000 cases through the bare fetch handler (fast, in-process).
 * 2. Raw-socket cases against a real `tally serve` (node:http): bytes fetch cannot send
 *    (invalid UTF-8 in the request line and body, NUL in headers, `..` paths as typed,
 *    16 KiB+ headers and query strings, broken chunked bodies, conflicting lengths).
 */
import { connect } from "node:net";
import { STAT_NAMES, type Tally } from "@tally-analytics/core";
import { statName } from "../support/stat-query.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "@tally-analytics/server/internal";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { CHROME, killAllChildren, seededRandom, snapshotTables, spawnServe, tempDirectory, type Random } from "./support.js";

const SEED = 0x7a11;
const HANDLER_CASES = 4000;
const RAW_CASES = 150;
const fetchHandler = transports.find((t) => t.name === "fetch handler")!;

interface Case {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** The only status allowed; otherwise any 4xx. */
  status?: number;
  /** The exact JSON body expected. */
  json?: Record<string, unknown>;
}

interface World {
  keyA: string;
  keyB: string;
  revokedKey: string;
  /** A's websites (their ids are the only ones A may use), B's (never A's). */
  idsA: number[];
  idsB: number[];
  domainA: string;
  domainB: string;
}

const NOT_FOUND = { message: "Resource not found.", status: 404 };
const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "PURGE"];
const compiled = routes.map((route) => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{\w+\\?\}/g, "[^/]+")}$`),
}));
const methodsAt = (path: string) => {
  const methods = new Set(compiled.filter((c) => c.pattern.test(path)).map((c) => c.route.method));
  if (methods.has("GET")) methods.add("HEAD");
  return methods;
};

// ---------------------------------------------------------------------------
// Values that are never valid where they are put

const BAD_IDS = [
  "0",
  "00",
  "-1",
  "1.0",
  "1e3",
  "0x1",
  "abc",
  "1 OR 1=1",
  "1;DROP TABLE websites",
  "' OR ''='",
  "1'--",
  "1%27%20OR%20%271%27=%271",
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "..",
  "%00",
  "1%00",
  "99999999999999999999",
  "9007199254740993",
  "%D9%A1",
  "%F0%9F%92%A9",
  "%ZZ",
  "%",
  "%201",
  "+1",
  "NaN",
  "Infinity",
  "null",
  "undefined",
  "[1]",
  "{id}",
  "%E0%80%AF",
  "%C0%AE%C0%AE%2F",
  "1e309",
  "-0",
  "999999",
];
const SQLISH = [
  "' OR 1=1 --",
  "'; DROP TABLE websites; --",
  '" OR ""="',
  "1 UNION SELECT hash FROM api_keys",
  "%' --",
  "\\'; select 1; --",
];
const BAD_DOMAINS = [
  "",
  "   ",
  "not a domain",
  "exa mple.com",
  `${"a".repeat(64)}.com`,
  `${"abc.".repeat(70)}com`,
  "example.com'; DROP TABLE websites;--",
  "http://",
  "..",
  "../../etc/passwd",
  "-bad-.com",
  "1.2.3",
  "999.1.1.1",
  "[::g]",
  "<script>.com",
  "exa%mple.com",
  "ex\u0000ample.com",
  ...SQLISH,
];
const BAD_PRIVACY = ["3", "-1", "1.5", "1e309", "NaN", "two", "99999999999999999999", "0x1", "2.0.0"];
const BAD_FLAG = ["2", "-1", "yes", "1.5", "true", "on"];
const BAD_TIMEZONES = ["Mars/Olympus", "UTC+25", "../../etc/localtime", "'; drop table websites; --", "Europe/Nowhere", "x".repeat(300)];
const BAD_IPS = ["999.1.1.1", "10.0.0.0/33", "not-an-ip", "1.2.3.4' OR '1'='1", "::/129", "1.2.3.4/8/8", "1.2.3.4/-1", "1.2.3.4/"];
const BAD_DATES = [
  "2026-02-30",
  "2026-02-29",
  "2025-02-29",
  "2026-04-31",
  "2026-13-01",
  "2026-00-10",
  "2026-01-00",
  "2026-2-3",
  "26-01-01",
  "2026-01-01T00:00:00Z",
  "tomorrow",
  "9999-99-99",
  "+002026-01-01",
  "2026/01/01",
  "20260101",
  "2026-01-01 ",
  "٢٠٢٦-٠١-٠١",
  ...SQLISH,
  // Real dates outside the accepted domain (1970-01-01 … 9998-12-31).
  "9999-01-01",
  "9999-12-31",
  "10000-01-01",
  "1969-12-31",
  "0001-01-01",
  "0000-01-01",
];
const BAD_FILTERS = [
  "country",
  "country:is",
  "country:equals:US",
  "nope:is:x",
  "page:is:",
  "page:is:a||b",
  "prop::is:x",
  ":is:x",
  "PAGE:is:/",
  "page:contains:" + "x".repeat(3000),
  `page:is:${Array.from({ length: 60 }, (_, i) => `v${i}`).join("|")}`,
  ...SQLISH,
];
const BAD_PER_PAGE = ["7", "0", "-10", "1000", "1e2", "ten", "10.0", "99999999999999999999"];
const BAD_PAGE = ["0", "-1", "1.5", "abc", "99999999999999999999", "1e3", "0x10", "Infinity"];

function deepJson(rng: Random): string {
  const depth = 1000 + rng.int(20_000);
  return rng.chance(0.5) ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

function invalidUtf8(prefix: string): Uint8Array {
  return new Uint8Array([...Buffer.from(prefix), 0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xed, 0xa0, 0x80]);
}

const formText = (entries: [string, string][]) => new URLSearchParams(entries).toString();

// ---------------------------------------------------------------------------
// Generators: each returns a request that must be refused

function wrongMethod(rng: Random, world: World, { route } = rng.pick(compiled)): Case {
  const path = route.path.replace(/\{\w+\}/g, () => (route.path.startsWith("/api/") ? String(rng.pick(world.idsA)) : "x"));
  const allowed = methodsAt(path);
  const method = rng.pick(METHODS.filter((m) => !allowed.has(m)));
  return { kind: "wrong method", method, path, headers: { authorization: `Bearer ${world.keyA}` }, status: 405 };
}

function unknownPath(rng: Random, world: World): Case {
  const path = rng.pick([
    "/api/v2/websites",
    "/api/v1",
    "/api/v1/",
    "/api/v1/websites/1/extra",
    "/api/v1/websites//",
    "/api/v1/stats",
    "/api/v1/keys",
    "/api/v1/%2e%2e/%2e%2e/etc/passwd",
    "/api/v1/websites/1/../../../../etc/passwd",
    "/.env",
    "/collect/x",
    "/script.js/x",
    "/api/v1/account/..%2f..%2fadmin",
    "/API/V1/WEBSITES",
    "/api/v1/websites%2F1",
    `/api/v1/${"a/".repeat(200)}`,
    `/api/v1/websites?${"q".repeat(100)}`.replace("websites", "nothing"),
    "/wp-admin/",
    "/api/v1/accounts/2",
  ]);
  return {
    kind: "unknown path",
    method: rng.pick(["GET", "POST", "PUT", "DELETE"]),
    path,
    headers: { authorization: `Bearer ${world.keyA}` },
    status: 404,
  };
}

function accountRoute(rng: Random, world: World) {
  const id = String(rng.pick(world.idsA));
  return rng.pick([
    { method: "GET", path: "/api/v1/account" },
    { method: "GET", path: "/api/v1/websites" },
    { method: "POST", path: "/api/v1/websites" },
    { method: "GET", path: `/api/v1/websites/${id}` },
    { method: "PUT", path: `/api/v1/websites/${id}` },
    { method: "DELETE", path: `/api/v1/websites/${id}` },
    { method: "GET", path: `/api/v1/stats/${id}?name=pageviews&from=2026-01-01&to=2026-01-31` },
    ...compiled
      .filter((c) => c.route.auth === "account")
      .map((c) => ({ method: c.route.method, path: c.route.path.replace(/\{\w+\}/g, id) })),
  ]);
}

function badAuth(rng: Random, world: World): Case {
  const { method, path } = accountRoute(rng, world);
  const secret = world.keyA.slice(12);
  const authorization = rng.pick<string | null>([
    null,
    "",
    "Bearer",
    "Bearer ",
    `Bearer ${world.revokedKey}`,
    `Bearer ${world.keyA}x`,
    `Bearer ${world.keyA.slice(0, -1)}`,
    `Bearer ${world.keyA.slice(0, 12)}`,
    `Bearer tly_${secret}`,
    `Basic ${Buffer.from(`user:${world.keyA}`).toString("base64")}`,
    `Bearer ${world.keyA} ${world.keyB}`,
    `Token ${world.keyA}`,
    "Bearer tly_' OR '1'='1",
    `Bearer ${"A".repeat(5000)}`,
    `Bearer ${world.keyA.toUpperCase()}`,
    "Bearer null",
    "Bearer undefined",
    `Bearer\t${"x".repeat(40)}`,
    "Bearer tly_\u00ff\u00fe",
  ]);
  const headers: Record<string, string> = authorization === null ? {} : { authorization };
  const body = method === "POST" || method === "PUT" ? formText([["domain", `fresh-${rng.int(1e9)}.example`]]) : undefined;
  if (body) headers["content-type"] = "application/x-www-form-urlencoded";
  return {
    kind: "bad auth",
    method,
    path,
    headers,
    ...(body ? { body } : {}),
    status: 401,
    json: { message: "Unauthenticated.", status: 401 },
  };
}

/** What a route's query needs besides a statistic's (so that only the id is wrong). */
const ROUTE_QUERY: Readonly<Record<string, string>> = {
  "/api/v1/stats/{id}/funnel": "&funnel=1",
  "/api/v1/stats/{id}/journey": "&from_page=/",
  "/api/v1/stats/{id}/properties": "&event=Signup",
};

function foreignOrBadId(rng: Random, world: World): Case {
  const id = rng.chance(0.4) ? String(rng.pick(world.idsB)) : rng.pick(BAD_IDS);
  const stat = `${statName(rng.pick(STAT_NAMES))}&from=2026-01-01&to=2026-01-31`;
  const { method, path } = rng.pick([
    { method: "GET", path: `/api/v1/websites/${id}` },
    { method: "PUT", path: `/api/v1/websites/${id}` },
    { method: "DELETE", path: `/api/v1/websites/${id}` },
    { method: "GET", path: `/api/v1/stats/${id}?${stat}` },
    ...compiled
      .filter((c) => c.route.auth === "account" && c.route.path.includes("{id}") && c.route.method === "GET")
      .map((c) => ({ method: "GET", path: `${c.route.path.replace("{id}", id)}?${stat}${ROUTE_QUERY[c.route.path] ?? ""}` })),
  ]);
  const headers: Record<string, string> = { authorization: `Bearer ${world.keyA}` };
  let body: string | undefined;
  if (method === "PUT") {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = formText([
      ["privacy", "0"],
      ["timezone", "Europe/Paris"],
    ]);
  }
  // A malformed escape may be refused by the URL layer first; everything else names nothing.
  // `..` and `%2e%2e` are dot segments: the URL resolves them and the route is gone (404 "Not found.").
  const json = /^(\.\.|%2e%2e)/i.test(id) ? undefined : NOT_FOUND;
  return { kind: "foreign or bad id", method, path, headers, ...(body ? { body } : {}), status: 404, ...(json ? { json } : {}) };
}

/** A website body with at least one field that can never be valid. */
function invalidWebsiteFields(rng: Random, world: World, forCreate: boolean): [string, string][] {
  const fields: [string, string][] = [];
  if (forCreate && rng.chance(0.85)) fields.push(["domain", `fresh-${rng.int(1e9)}.example`]);
  if (rng.chance(0.3)) fields.push(["exclude_params", "utm_source\nref"]);
  if (rng.chance(0.3)) fields.push(["email", "1"]);
  const invalid: [string, string][] = rng.pick([
    () => [["privacy", rng.pick(BAD_PRIVACY)]],
    () => [["email", rng.pick(BAD_FLAG)]],
    () => [["exclude_bots", rng.pick(BAD_FLAG)]],
    () => [["timezone", rng.pick(BAD_TIMEZONES)]],
    () => [["exclude_ips", `10.0.0.1\n${rng.pick(BAD_IPS)}`]],
    () => [
      ["privacy", "2"],
      ["password", "p".repeat(129 + rng.int(1000))],
    ],
    () => [
      ["privacy", "1"],
      ["privacy", rng.pick(BAD_PRIVACY)],
    ], // duplicate field: the last one counts
    ...(forCreate
      ? [
          () => [["domain", rng.pick(BAD_DOMAINS)]],
          () => [["domain", rng.pick([world.domainA, world.domainB, `WWW.${world.domainB.toUpperCase()}`, `https://${world.domainA}/x`])]],
          () => [
            ["domain", `ok-${rng.int(1e6)}.example`],
            ["domain", rng.pick(BAD_DOMAINS)],
          ],
          () => [["privacy", "2"]], // password required
        ]
      : []),
  ])() as [string, string][];
  if (forCreate && invalid.some(([name]) => name === "domain")) return [...fields.filter(([name]) => name !== "domain"), ...invalid];
  return [...fields, ...invalid];
}

function invalidWebsiteBody(rng: Random, world: World): Case {
  const forCreate = rng.chance(0.6);
  const method = forCreate ? "POST" : "PUT";
  const path = forCreate ? "/api/v1/websites" : `/api/v1/websites/${rng.pick(world.idsA)}`;
  const headers: Record<string, string> = { authorization: `Bearer ${world.keyA}` };
  const fields = invalidWebsiteFields(rng, world, forCreate);
  const encoding = rng.int(10);
  if (encoding < 4) {
    headers["content-type"] = rng.pick(["application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=utf-8"]);
    return { kind: "invalid website form", method, path, headers, body: formText(fields), status: 422 };
  }
  if (encoding < 7) {
    headers["content-type"] = rng.pick(["application/json", "application/json; charset=utf-8", "application/vnd.api+json"]);
    const object: Record<string, unknown> = Object.fromEntries(fields);
    if (rng.chance(0.3)) object.privacy = rng.pick([3, -1, 1.5, 1e308, [1], { value: 1 }, true]);
    if (rng.chance(0.2)) object.__proto__ = { privacy: 0 };
    return { kind: "invalid website json", method, path, headers, body: JSON.stringify(object), status: 422 };
  }
  // Malformed bodies: the encoding itself is refused.
  const valid = formText([["domain", `fresh-${rng.int(1e9)}.example`]]);
  return rng.pick<() => Case>([
    () => ({
      kind: "wrong content type",
      method,
      path,
      headers: {
        ...headers,
        "content-type": rng.pick([
          "text/plain",
          "application/xml",
          "multipart/form-data; boundary=x",
          "text/html",
          "application/octet-stream",
          "image/png",
        ]),
      },
      body: valid,
      status: 415,
    }),
    () => ({
      kind: "invalid utf-8",
      method,
      path,
      headers: { ...headers, "content-type": rng.pick(["application/x-www-form-urlencoded", "application/json"]) },
      body: invalidUtf8("domain="),
      status: 400,
    }),
    () => ({
      kind: "oversized body",
      method,
      path,
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
      body: `domain=fresh.example&exclude_params=${"a".repeat(64 * 1024 + rng.int(100_000))}`,
      status: 413,
    }),
    () => ({
      kind: "deep json",
      method,
      path,
      headers: { ...headers, "content-type": "application/json" },
      body: rng.chance(0.5) ? `${"[".repeat(5000)}${"]".repeat(5000)}` : `{"privacy":${deepJson(rng)}}`,
    }),
    () => ({
      kind: "not a json object",
      method,
      path,
      headers: { ...headers, "content-type": "application/json" },
      body: rng.pick(["[]", "null", "1", '"domain"', "{", '{"domain": "a.example",}', "{'domain':'a.example'}", "\u0000"]),
      status: 400,
    }),
  ])();
}

function invalidListQuery(rng: Random, world: World): Case {
  const params: [string, string][] = [];
  if (rng.chance(0.3)) params.push(["search", rng.pick(["a", ...SQLISH])]);
  // Unknown search_by, sort_by, sort and per_page values mean their defaults (a 200): beside a bad page they still change nothing.
  const odd = rng.pick<[string, string]>([
    ["per_page", rng.pick(BAD_PER_PAGE)],
    ["sort", rng.pick(["up", "DESC", "random", ...SQLISH])],
    ["sort_by", rng.pick(["password", "created_at", "id;drop table websites", "account_id"])],
    ["search_by", rng.pick(["id", "password", "timezone"])],
  ]);
  if (rng.chance(0.5)) params.push(odd);
  params.push(["page", rng.pick(BAD_PAGE)]);
  if (rng.chance(0.2)) params.push(["padding", "x".repeat(50_000 + rng.int(100_000))]); // huge query string
  return {
    kind: "invalid list query",
    method: "GET",
    path: `/api/v1/websites?${formText(params)}`,
    headers: { authorization: `Bearer ${world.keyA}` },
    status: 422,
  };
}

function invalidStatsQuery(rng: Random, world: World): Case {
  const query = new Map<string, string>([
    ...new URLSearchParams(statName(rng.pick(STAT_NAMES))),
    ["from", "2026-01-01"],
    ["to", "2026-01-31"],
  ]);
  const mutation = rng.int(12);
  if (mutation === 0) query.delete(rng.pick(["name", "from", "to"]));
  else if (mutation === 1) query.set("name", rng.pick(["pageview", "PAGEVIEWS", "", "password", "api_keys", ...SQLISH]));
  else if (mutation === 2) query.set("from", rng.pick(BAD_DATES));
  else if (mutation === 3) query.set("to", rng.pick(BAD_DATES));
  else if (mutation === 4) {
    query.set("from", "2026-03-01");
    query.set("to", rng.pick(["2026-02-28", "2025-12-31", "1970-01-01"]));
  } else if (mutation === 5) {
    query.set("from", "1900-01-01");
    query.set("to", "2026-01-01");
  } else if (mutation === 6) query.set("search", "s".repeat(256 + rng.int(10_000)));
  else if (mutation === 7 || mutation === 8) {
    // An unknown sort_by, sort, search_by or per_page means its default: the bad page is what is refused.
    if (mutation === 7) query.set(rng.pick(["sort_by", "sort", "search_by"]), rng.pick(["password", "up", "domain", ...SQLISH]));
    else query.set("per_page", rng.pick(BAD_PER_PAGE));
    query.set("page", rng.pick(BAD_PAGE));
  } else if (mutation === 9) query.set("page", rng.pick(BAD_PAGE));
  else if (mutation === 10) query.set("filter", rng.pick(BAD_FILTERS));
  else query.set("compare", rng.pick(["previous", "years", "1", ...SQLISH]));
  let search = formText([...query]);
  if (rng.chance(0.15)) search += `&name=${rng.pick(["bogus", "' OR 1=1"])}`; // duplicate: the last one counts
  return {
    kind: "invalid stats query",
    method: "GET",
    path: `/api/v1/stats/${rng.pick(world.idsA)}?${search}`,
    headers: { authorization: `Bearer ${world.keyA}` },
    status: 422,
  };
}

function invalidHit(rng: Random, world: World): Case {
  const u = `https://${world.domainA}/page`;
  const headers: Record<string, string> = { "user-agent": CHROME };
  const type = rng.pick([
    null,
    "text/plain",
    "application/json",
    "application/xml",
    "multipart/form-data",
    "application/x-www-form-urlencoded",
  ]);
  if (type) headers["content-type"] = type;
  const hit = (extra: Record<string, unknown>) => JSON.stringify({ u, ...extra });
  const [kind, body, status] = rng.pick<() => [string, string | Uint8Array, number | undefined]>([
    () => ["not json", rng.pick(["", "hello", "{", "null", "[]", "123", '"u"', "u=https://a.example/", "\u0000", '{"u":}']), 400],
    () => ["deep json", deepJson(rng), undefined], // 400, or 413 when it is also too long
    () => ["u missing", JSON.stringify({ r: "https://ref.example/", n: "x" }), 400],
    () => ["u not a string", JSON.stringify({ u: rng.pick([123, true, [], {}, null]) }), 400],
    () => [
      "u invalid",
      JSON.stringify({ u: rng.pick(["not a url", "http//x", "", "https://", "//a.example/", `https://${world.domainA}:99999/`]) }),
      400,
    ],
    () => [
      "u not http",
      JSON.stringify({
        u: rng.pick([
          "javascript:alert(1)",
          `ftp://${world.domainA}/`,
          "file:///etc/passwd",
          "data:text/html,hi",
          `ws://${world.domainA}/`,
        ]),
      }),
      400,
    ],
    () => ["u too long", JSON.stringify({ u: `${u}?q=${"x".repeat(2048)}` }), 400],
    () => [
      "unknown website",
      JSON.stringify({
        u: rng.pick([
          "https://unknown.example/",
          "https://..%2f..%2fetc/",
          `https://${world.domainA}.evil.example/`,
          "https://127.0.0.1/",
          "https://[::1]/",
        ]),
      }),
      undefined,
    ],
    () => ["bad event", hit({ n: rng.pick(["", "   ", "e".repeat(201), 123, true, [], {}]) }), 400],
    () => [
      "bad props",
      hit({
        n: "x",
        p: rng.pick([
          [],
          "s",
          1,
          { a: { b: 1 } },
          { a: null },
          { a: [1] },
          { "": 1 },
          { a: "v".repeat(501) },
          Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, i])),
          { ["k".repeat(201)]: 1 },
        ]),
      }),
      400,
    ],
    () => ["bad fields", hit(rng.pick([{ r: 123 }, { s: 1920 }, { l: { en: 1 } }, { h: 2 }, { h: "yes" }, { n: null, p: "x" }])), 400],
    () => ["oversized hit", hit({ r: "r".repeat(16 * 1024 + rng.int(50_000)) }), 413],
    () => ["invalid utf-8", invalidUtf8(`{"u":"${u}","n":"`), 400],
  ])();
  return { kind: `collect: ${kind}`, method: "POST", path: "/collect", headers, body, ...(status ? { status } : {}) };
}

const GENERATORS: [number, (rng: Random, world: World) => Case][] = [
  [2, wrongMethod],
  [1, unknownPath],
  [2, badAuth],
  [3, foreignOrBadId],
  [4, invalidWebsiteBody],
  [1, invalidListQuery],
  [3, invalidStatsQuery],
  [4, invalidHit],
];

function generate(seed: number, count: number, world: World): Case[] {
  const rng = seededRandom(seed);
  const weighted = GENERATORS.flatMap(([weight, generator]) => Array<typeof generator>(weight).fill(generator));
  // A wrong method on every route first: each path of the route table is exercised whatever the draw.
  const everyRoute = compiled.map((entry) => wrongMethod(rng, world, entry));
  return [...everyRoute, ...Array.from({ length: count - everyRoute.length }, () => rng.pick(weighted)(rng, world))];
}

// ---------------------------------------------------------------------------

/** Checks one refusal; returns a description of what is wrong, or null. */
function refusalProblem(c: Case, status: number, contentType: string | null, text: string, allow: string | null): string | null {
  if (status < 400 || status > 499) return `status ${status}`;
  if (c.status !== undefined && status !== c.status) return `status ${status}, expected ${c.status}`;
  if (c.method === "HEAD") return null;
  if (!contentType?.startsWith("application/json")) return `content-type ${contentType}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return `body is not JSON: ${text.slice(0, 100)}`;
  }
  if (body.status !== status) return `body.status ${String(body.status)} for HTTP ${status}`;
  if (typeof body.message !== "string") return "no message";
  if (/\n\s+at /.test(text)) return "stack trace in the body";
  if (status === 405 && !allow) return "405 without Allow";
  if (c.json && JSON.stringify(body) !== JSON.stringify(c.json)) return `body ${text.slice(0, 200)}, expected ${JSON.stringify(c.json)}`;
  return null;
}

async function seedWorld(tally: Tally): Promise<World> {
  const a = await tally.accounts.create({ name: "a" });
  const b = await tally.accounts.create({ name: "b" });
  const revoked = await tally.accounts.createKey(a.accountId);
  await tally.accounts.revokeKey(revoked.prefix);
  const a1 = await tally.websites.create(a.accountId, { domain: "alpha.example", privacy: 2, password: "alpha-secret", exclude_bots: 0 });
  const a2 = await tally.websites.create(a.accountId, { domain: "alpha-two.example" });
  const b1 = await tally.websites.create(b.accountId, { domain: "beta.example", exclude_bots: 0 });
  const b2 = await tally.websites.create(b.accountId, { domain: "beta-two.example" });
  for (let i = 0; i < 30; i++) {
    for (const domain of ["alpha.example", "beta.example"]) {
      await tally.collect({
        url: `https://${domain}/p${i % 4}?utm_campaign=c`,
        ip: `10.9.0.${i}`,
        userAgent: CHROME,
        event: i % 5 === 0 ? "e" : null,
      });
    }
  }
  await tally.flush();
  return {
    keyA: a.key,
    keyB: b.key,
    revokedKey: revoked.key,
    idsA: [a1.id, a2.id],
    idsB: [b1.id, b2.id],
    domainA: a1.domain,
    domainB: b1.domain,
  };
}

describe("bad input", () => {
  const fixture = createTempTally();
  const unexpected: unknown[] = [];
  let served: Served;
  let world: World;

  beforeAll(async () => {
    world = await seedWorld(fixture.tally);
    // Thousands of anonymous requests from one address in seconds would spend its public
    // budget and turn exact expectations into 429s: the limits have their own tests
    // (public-limits.test.ts); here every input reaches the code that must refuse it.
    served = await fetchHandler.serve(fixture.tally, { onError: (error) => unexpected.push(error), publicRateLimit: false });
  });
  afterAll(async () => {
    killAllChildren();
    await fixture.dispose();
  });

  it(
    `Bad input: ${HANDLER_CASES} seeded fuzz cases over every endpoint (fetch handler) → each a 4xx JSON, no 5xx, no change to any table`,
    { timeout: 120_000 },
    async () => {
      const cases = generate(SEED, HANDLER_CASES, world);
      const before = snapshotTables(fixture.file);
      const problems: string[] = [];
      const kinds = new Map<string, number>();
      const covered = new Set<string>();
      for (const [index, c] of cases.entries()) {
        kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
        const response = await served.fetch(c.path, {
          method: c.method,
          headers: c.headers,
          ...(c.body === undefined ? {} : { body: c.body as BodyInit }),
        });
        const text = await response.text();
        const problem = refusalProblem(c, response.status, response.headers.get("content-type"), text, response.headers.get("allow"));
        if (problem)
          problems.push(
            `#${index} ${c.kind}: ${c.method} ${c.path.slice(0, 120)} → ${problem}${process.env.FUZZ_DEBUG ? ` body=${typeof c.body === "string" ? c.body.slice(0, 200) : ""} answer=${text.slice(0, 200)}` : ""}`,
          );
        const path = c.path.split("?", 1)[0]!;
        for (const { route, pattern } of compiled) if (pattern.test(path)) covered.add(`${route.method} ${route.path}`);
      }
      await fixture.tally.flush();
      console.log(`[fuzz] ${cases.length} cases: ${JSON.stringify(Object.fromEntries(kinds))}`);
      expect(problems.slice(0, 30)).toEqual([]);
      expect(unexpected).toEqual([]);
      // Every path of the route table was exercised.
      const paths = new Set([...covered].map((entry) => entry.split(" ")[1]));
      expect(routes.map((route) => route.path).filter((path) => !paths.has(path))).toEqual([]);
      // Nothing refused changed anything.
      expect(snapshotTables(fixture.file)).toEqual(before);
      // And the server still serves.
      const alive = await served.fetch("/api/v1/account", { headers: { authorization: `Bearer ${world.keyA}` } });
      expect(alive.status).toBe(200);
    },
  );

  it(
    "Bad input: dates across the whole calendar, accepted and refused domain alike (years 0…10000, the first and last valid days, with and without a comparison, on the API and share pages) → 200 inside 1970-01-01…9998-12-31 (range ≤ 3660 days, a statistic's counted from the first data), 422 outside, never a hang or a 5xx",
    { timeout: 60_000 },
    async () => {
      const rng = seededRandom(SEED + 1);
      const edges = [
        "1969-12-31",
        "1970-01-01",
        "1970-01-02",
        "1970-12-31",
        "9998-01-01",
        "9998-12-30",
        "9998-12-31",
        "9999-01-01",
        "9999-06-15",
        "9999-12-31",
        "10000-01-01",
        "10000-12-31",
        "0000-01-01",
        "0001-01-01",
        "2026-02-28",
      ];
      const randomDay = () => {
        const year = rng.pick([rng.int(10_001), 1970 + rng.int(8029), 9990 + rng.int(11), 1960 + rng.int(20)]);
        return `${String(year).padStart(4, "0")}-${String(1 + rng.int(12)).padStart(2, "0")}-${String(1 + rng.int(28)).padStart(2, "0")}`;
      };
      const inDomain = (day: string) => day.length === 10 && day >= "1970-01-01" && day <= "9998-12-31";
      // Every way a range reaches a query: a statistic (`true`: a long range starts at the first data) or the totals, through the API or a share page.
      const endpoints: [(query: string) => string, boolean][] = [
        [(query: string) => `/api/v1/stats/${world.idsA[0]}?${statName(rng.pick(STAT_NAMES))}&${query}`, true],
        [(query: string) => `/api/v1/stats/${world.idsA[0]}/totals?${query}`, false],
        [(query: string) => `/share/${world.domainA}/api/stats?${statName(rng.pick(STAT_NAMES))}&${query}`, true],
        [(query: string) => `/share/${world.domainA}/api/totals?${query}`, false],
      ];
      const days = (from: string, to: string) =>
        (Date.parse(`${to.padStart(10, "0")}T00:00:00Z`) - Date.parse(`${from.padStart(10, "0")}T00:00:00Z`)) / 86_400_000;
      const today = new Date().toISOString().slice(0, 10);
      const earliest = await served.fetch(
        `/api/v1/stats/${world.idsA[0]}?name=pageviews&from=${new Date(Date.now() - 3600 * 86_400_000).toISOString().slice(0, 10)}&to=${today}&sort_by=value&sort=asc`,
        { headers: { authorization: `Bearer ${world.keyA}` } },
      );
      const firstDay = ((await earliest.json()) as { data: { value: string }[] }).data[0]?.value ?? today;
      const problems: string[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < 600; i++) {
        const from = rng.chance(0.5) ? rng.pick(edges) : randomDay();
        const to = rng.chance(0.3) ? from : rng.chance(0.5) ? rng.pick(edges) : randomDay();
        seen.add(from).add(to);
        const compare = rng.pick(["", "&compare=previous_period", "&compare=year"]);
        const [endpoint, fromFirstData] = rng.pick(endpoints);
        const start = fromFirstData && days(from, to) > 3660 && firstDay > from ? (firstDay < to ? firstDay : to) : from;
        const expected = inDomain(from) && inDomain(to) && from <= to && days(start, to) <= 3660 ? 200 : 422;
        const path = endpoint(`from=${from}&to=${to}${compare}`);
        // The owner reads its password-protected share page with its key.
        const response = await served.fetch(path, { headers: { authorization: `Bearer ${world.keyA}` } });
        if (response.status !== expected)
          problems.push(`${path}: ${response.status}, expected ${expected}: ${(await response.text()).slice(0, 200)}`);
        else await response.body?.cancel();
      }
      expect(problems.slice(0, 20)).toEqual([]);
      expect(unexpected).toEqual([]);
      // The edges of both domains were all tried.
      expect(edges.filter((day) => !seen.has(day))).toEqual([]);
    },
  );
});

// ---------------------------------------------------------------------------
// Raw bytes on a socket, against a real node:http server

interface RawReply {
  status: number;
  headers: Map<string, string>;
  body: string;
}

function rawRequest(port: number, bytes: Buffer): Promise<RawReply | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNRESET" || error.code === "EPIPE" ? undefined : reject(error),
    );
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      if (text === "") return resolve(null);
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = new Map(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: Buffer.from(rest.join("\r\n\r\n"), "latin1").toString("utf8") });
    });
    socket.write(bytes);
    // The server closes after answering (Connection: close); this only ends a silent wait.
    setTimeout(() => socket.end(), 2000).unref();
  });
}

function rawCases(rng: Random, world: World, count: number): { kind: string; bytes: Buffer; status?: number }[] {
  const auth = `Authorization: Bearer ${world.keyA}\r\n`;
  const http = (requestLine: string | Buffer, headers: string, body: Buffer | string = "") =>
    Buffer.concat([
      Buffer.isBuffer(requestLine) ? requestLine : Buffer.from(requestLine),
      Buffer.from(`\r\nHost: tally.test\r\nConnection: close\r\n${headers}\r\n`),
      Buffer.isBuffer(body) ? body : Buffer.from(body),
    ]);
  const bad = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]);
  const makers: (() => { kind: string; bytes: Buffer; status?: number })[] = [
    () => {
      const body = Buffer.concat([Buffer.from(`{"u":"https://${world.domainA}/","n":"`), bad, Buffer.from('"}')]);
      return {
        kind: "collect: invalid utf-8 body",
        bytes: http("POST /collect HTTP/1.1", `Content-Type: text/plain\r\nContent-Length: ${body.length}\r\n`, body),
        status: 400,
      };
    },
    () => {
      const body = Buffer.concat([Buffer.from("domain="), bad]);
      return {
        kind: "website: invalid utf-8 body",
        bytes: http(
          "POST /api/v1/websites HTTP/1.1",
          `${auth}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n`,
          body,
        ),
        status: 400,
      };
    },
    () => ({
      kind: "invalid bytes in the path",
      bytes: http(
        Buffer.concat([Buffer.from(`${rng.pick(["GET", "PUT", "DELETE"])} /api/v1/websites/`), bad, Buffer.from(" HTTP/1.1")]),
        auth,
      ),
    }),
    () => ({
      kind: "raw .. path",
      bytes: http(
        `GET ${rng.pick(["/api/v1/../../../etc/passwd", "/api/v1/websites/../../../../etc/passwd", "/../collect/../../etc/shadow", "/api/v1/stats/..%2f..%2fetc?name=page&from=2026-01-01&to=2026-01-02"])} HTTP/1.1`,
        auth,
      ),
      status: 404,
    }),
    () => ({
      kind: "huge query string",
      bytes: http(`GET /api/v1/websites?search=${"x".repeat(17_000 + rng.int(60_000))} HTTP/1.1`, auth),
      status: 431,
    }),
    () => ({
      kind: "huge header",
      bytes: http("GET /api/v1/account HTTP/1.1", `${auth}X-Padding: ${"p".repeat(17_000 + rng.int(30_000))}\r\n`),
      status: 431,
    }),
    () => ({ kind: "NUL in a header", bytes: http("GET /api/v1/account HTTP/1.1", `${auth}X-Evil: a\u0000b\r\n`), status: 400 }),
    () => ({
      kind: "garbage request line",
      bytes: Buffer.from(
        rng.pick([
          "HELLO\r\n\r\n",
          "GET\r\n\r\n",
          "GET / HTTP/9.9\r\n\r\n",
          "\u0000\u0001\u0002\r\n\r\n",
          "GET /collect HTTP/1.1 extra\r\n\r\n",
        ]),
      ),
    }),
    () => ({ kind: "no Host header", bytes: Buffer.from(`GET /api/v1/account HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`), status: 400 }),
    () => ({
      kind: "conflicting lengths",
      bytes: http("POST /collect HTTP/1.1", "Content-Length: 3\r\nContent-Length: 9\r\n", "abc"),
      status: 400,
    }),
    () => ({
      kind: "length and chunked",
      bytes: http("POST /collect HTTP/1.1", "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"),
      status: 400,
    }),
    () => ({
      kind: "bad chunk",
      bytes: http("POST /collect HTTP/1.1", "Transfer-Encoding: chunked\r\nContent-Type: text/plain\r\n", "zz\r\nabc\r\n0\r\n\r\n"),
      status: 400,
    }),
    () => ({
      kind: "declared too large",
      bytes: http("POST /collect HTTP/1.1", "Content-Type: text/plain\r\nContent-Length: 999999999\r\n", '{"u":"https://a/"}'),
      status: 413,
    }),
    () => {
      const chunk = "x".repeat(8192);
      const body = `${`2000\r\n${chunk}\r\n`.repeat(3)}0\r\n\r\n`;
      return {
        kind: "chunked body too large",
        bytes: http("POST /collect HTTP/1.1", "Transfer-Encoding: chunked\r\nContent-Type: text/plain\r\n", body),
        status: 413,
      };
    },
    () => ({
      kind: "wrong method",
      bytes: http(`${rng.pick(["PATCH", "PUT", "DELETE"])} /collect HTTP/1.1`, "Content-Length: 0\r\n"),
      status: 405,
    }),
  ];
  return Array.from({ length: count }, () => rng.pick(makers)());
}

describe("bad input on the wire", () => {
  const dir = tempDirectory("tally-raw-");
  const file = `${dir.path}/tally.sqlite`;
  afterAll(() => {
    killAllChildren();
    dir.remove();
  });

  it(
    `Bad input: ${RAW_CASES} raw-socket cases against tally serve (node:http) → each a 4xx JSON, the process stays up, no change to any table`,
    { timeout: 60_000 },
    async () => {
      // Build the data in-process first, then serve the same file.
      const setup = createTempTally();
      const seeded = await seedWorld(setup.tally);
      await setup.tally.close();
      const { copyFileSync } = await import("node:fs");
      copyFileSync(setup.file, file);
      await setup.dispose();
      const server = await spawnServe({ DATABASE_URL: `file:${file}`, RATE_LIMIT: "0" });
      const before = snapshotTables(file);
      const problems: string[] = [];
      for (const [index, c] of rawCases(seededRandom(SEED + 1), seeded, RAW_CASES).entries()) {
        const reply = await rawRequest(server.port, c.bytes);
        if (!reply) {
          problems.push(`#${index} ${c.kind}: no answer`);
          continue;
        }
        const problem = refusalProblem(
          { kind: c.kind, method: "GET", path: "", headers: {}, ...(c.status ? { status: c.status } : {}) },
          reply.status,
          reply.headers.get("content-type") ?? null,
          reply.body,
          reply.headers.get("allow") ?? null,
        );
        if (problem) problems.push(`#${index} ${c.kind} → ${problem}`);
      }
      expect(problems.slice(0, 20)).toEqual([]);
      expect(server.child.exitCode).toBeNull();
      const alive = await fetch(`${server.base}/api/v1/account`, { headers: { authorization: `Bearer ${seeded.keyA}` } });
      expect(alive.status).toBe(200);
      expect(snapshotTables(file)).toEqual(before);
      const { code } = await server.stop("SIGTERM");
      expect(code).toBe(0);
      expect(server.output.stderr).not.toMatch(/\n\s+at /); // no stack traces logged either
    },
  );
});
