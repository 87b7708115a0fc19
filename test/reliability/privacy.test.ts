/**
 * Privacy: a real `tally serve` (TRUST_PROXY=true) gets hits and API calls from
 * distinctive client IPs (X-Forwarded-For and Forwarded, IPv4 and IPv6), counted,
 * dropped (excluded range) and refused (bad body, unknown site, too large, bad key).
 * None of those IPs appears in any table, in the bytes of the database files, or in
 * anything the process printed. A privacy-2 website's password is never in any
 * response, log or file byte, and is stored only as an scrypt hash.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { CHROME, FIREFOX, allStoredText, killAllChildren, spawnServe, tempDirectory } from "./support.js";

const API_KEY = "tly_reliability_privacy_key_0123456789abc";
const COUNTED = ["203.0.113.77", "198.51.100.219", "2001:db8:dead:beef::42"];
const EXCLUDED = "192.0.2.155"; // inside the website's excluded 192.0.2.0/24
const REFUSED = ["203.0.113.201", "198.51.100.7", "2001:db8::c0de"];
const API_CALLERS = ["203.0.113.99", "198.51.100.66"];
const PASSWORDS = ["Tr0ub4dor&3-privacy-secret", "another-Secret-99!"];

describe("privacy", () => {
  const dir = tempDirectory("tally-privacy-");
  afterAll(() => {
    killAllChildren();
    dir.remove();
  });

  it(
    "Privacy: no raw client IP in any table, database file byte or log line; a privacy-2 password is never returned and stored only as scrypt",
    { timeout: 60_000 },
    async () => {
      const file = join(dir.path, "tally.sqlite");
      const server = await spawnServe({ DATABASE_URL: `file:${file}`, TALLY_API_KEY: API_KEY, TRUST_PROXY: "true", RATE_LIMIT: "0" });
      const responses: string[] = [];
      const call = async (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) => {
        const response = await fetch(`${server.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${API_KEY}`, ...init.headers },
          ...(init.body === undefined ? {} : { body: init.body }),
        });
        const text = await response.text();
        responses.push(`${[...response.headers].join("\n")}\n${text}`);
        return { status: response.status, text, json: JSON.parse(text) as Record<string, unknown> };
      };
      const json = { "content-type": "application/json" };

      // The password of a privacy-2 website: created, read, listed, changed.
      const created = await call("POST", "/api/v1/websites", {
        headers: { ...json, "x-forwarded-for": API_CALLERS[0]! },
        body: JSON.stringify({
          domain: "private.example",
          privacy: 2,
          password: PASSWORDS[0],
          exclude_ips: "192.0.2.0/24",
          exclude_bots: 0,
        }),
      });
      expect(created.status).toBe(201);
      expect(created.json.data.password).toBe(true);
      const id = created.json.data.id as number;
      expect((await call("GET", `/api/v1/websites/${id}`)).json.data.password).toBe(true);
      expect((await call("GET", "/api/v1/websites?per_page=100")).status).toBe(200);
      const changed = await call("PUT", `/api/v1/websites/${id}`, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ password: PASSWORDS[1]! }).toString(),
      });
      expect(changed.status).toBe(200);
      expect(changed.json.data.password).toBe(true);
      const tooLong = await call("PUT", `/api/v1/websites/${id}`, {
        headers: json,
        body: JSON.stringify({ password: `${PASSWORDS[0]}${"x".repeat(200)}` }),
      });
      expect(tooLong.status).toBe(422);

      // Hits: counted, dropped, refused; and API calls that fail.
      const hit = (ip: string, body: string, forwarded = false) =>
        call("POST", "/collect", {
          headers: {
            "content-type": "text/plain",
            "user-agent": CHROME,
            ...(forwarded ? { forwarded: `for="[${ip}]"` } : { "x-forwarded-for": `10.0.0.1, ${ip}` }),
          },
          body,
        });
      for (const ip of COUNTED)
        expect(
          (await hit(ip, JSON.stringify({ u: "https://private.example/a", n: ip.includes(":") ? "signup" : undefined }), ip.includes(":")))
            .status,
        ).toBe(202);
      const dropped = await hit(EXCLUDED, JSON.stringify({ u: "https://private.example/b" }));
      expect(dropped.status).toBe(202);
      expect(dropped.json.message).toMatch(/excluded-ip/);
      expect((await hit(REFUSED[0]!, "{not json")).status).toBe(400);
      expect((await hit(REFUSED[1]!, JSON.stringify({ u: "https://nobody.example/" }))).status).toBe(404);
      expect((await hit(REFUSED[2]!, JSON.stringify({ u: "https://private.example/", r: "x".repeat(20_000) }), true)).status).toBe(413);
      const badKey = await fetch(`${server.base}/api/v1/websites`, {
        headers: { authorization: "Bearer tly_wrong", "x-forwarded-for": API_CALLERS[1]!, "user-agent": FIREFOX },
      });
      expect(badKey.status).toBe(401);
      const stats = await call("GET", `/api/v1/stats/${id}?name=pageviews&from=2026-01-01&to=2027-12-31`);
      expect(stats.status).toBe(200);

      const { code } = await server.stop("SIGTERM"); // writes everything buffered
      expect(code).toBe(0);

      // The hits were counted (so the IPs did pass through), yet none is stored or printed.
      const db = new Database(file, { readonly: true });
      const pageviews = db
        .prepare("select sum(count) as n from rollups where website_id = ? and name = 'pageviews' and length(period) = 10")
        .get(id) as { n: number };
      const hashes = db.prepare("select password_hash from websites").all() as { password_hash: string | null }[];
      db.close();
      expect(pageviews.n).toBe(2);

      const tables = allStoredText(file);
      const fileBytes = readdirSync(dir.path)
        .map((name) => readFileSync(join(dir.path, name)).toString("latin1"))
        .join("\n");
      const logs = `${server.output.stdout}\n${server.output.stderr}`;
      for (const ip of [...COUNTED, EXCLUDED, ...REFUSED, ...API_CALLERS]) {
        expect({ ip, inTables: tables.includes(ip), inFiles: fileBytes.includes(ip), inLogs: logs.includes(ip) }).toEqual({
          ip,
          inTables: false,
          inFiles: false,
          inLogs: false,
        });
      }
      // Only the configured exclusion range is stored, as typed by the owner.
      expect(tables).toContain("192.0.2.0/24");

      for (const password of PASSWORDS) {
        expect(responses.filter((text) => text.includes(password))).toEqual([]);
        expect(fileBytes.includes(password)).toBe(false);
        expect(logs.includes(password)).toBe(false);
      }
      expect(hashes).toHaveLength(1);
      // The cost it was made with, then salt and key.
      expect(hashes[0]!.password_hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]{16,}\$[A-Za-z0-9_-]{32,}$/);
    },
  );
});
