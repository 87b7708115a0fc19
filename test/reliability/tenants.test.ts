/**
 * Tenants: two accounts with websites and collected data. Every account route and verb
 * used with the other account's ids answers exactly like a missing resource (404
 * "Resource not found."), changes nothing, and nothing of the other account can be
 * read, listed, searched or counted. API keys are stored only as SHA-256 hashes, and a
 * revoked key stops working on the very next request (also when revoked by another
 * process sharing the database, as `tally keys revoke` does).
 */
import { createHash } from "node:crypto";
import { createTally, STAT_NAMES, type Tally } from "@tally-analytics/core";
import { statName } from "../support/stat-query.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, form, jsonBody, websites as websiteList, type ApiClient } from "../support/api-client.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";
import { allStoredText, CHROME, snapshotTables } from "./support.js";

const NOT_FOUND = { message: "Resource not found.", status: 404 };
const STATS_QUERY = "from=2026-01-01&to=2026-12-31";

describe.each(transports.filter((t) => t.name === "fetch handler" || t.name === "node:http"))("tenants ($name)", (transport) => {
  const fixture = createTempTally();
  const tally: Tally = fixture.tally;
  let served: Served;
  let keyA: string;
  let keyB: string;
  let idsA: number[];
  let idsB: number[];
  let asA: ApiClient;
  let asB: ApiClient;

  beforeAll(async () => {
    const a = await tally.accounts.create({ name: "a" });
    const b = await tally.accounts.create({ name: "b" });
    keyA = a.key;
    keyB = b.key;
    served = await transport.serve(tally);
    asA = apiClient(served, keyA);
    asB = apiClient(served, keyB);
    idsA = [];
    idsB = [];
    for (const [client, ids, prefix] of [
      [asA, idsA, "ant"],
      [asB, idsB, "bee"],
    ] as const) {
      for (const n of [1, 2, 3]) {
        const created = await client.post("/api/v1/websites", form({ domain: `${prefix}-${n}.example`, exclude_bots: 0 }));
        expect(created.status).toBe(201);
        ids.push((created.body.data as { id: number }).id);
      }
    }
    const now = Date.UTC(2026, 5, 15, 12);
    for (let i = 0; i < 40; i++) {
      for (const prefix of ["ant", "bee"]) {
        await tally.collect({
          url: `https://${prefix}-${1 + (i % 3)}.example/${prefix}-page-${i % 4}`,
          ip: `10.0.${i % 7}.1`,
          userAgent: CHROME,
          event: i % 5 === 0 ? `${prefix}-event` : null,
          timestamp: now + i * 1000,
        });
      }
    }
    await tally.flush();
  });
  afterAll(async () => {
    await served?.close();
    await fixture.dispose();
  });

  it('Tenants: every account route and verb with the other account\'s ids → 404 "Resource not found.", and nothing changes', async () => {
    const before = snapshotTables(fixture.file);
    const calls: [string, (id: number) => Promise<{ status: number; body: unknown }>][] = [
      ["GET websites/{id}", (id) => asA.get(`/api/v1/websites/${id}`)],
      [
        "PUT websites/{id} (form)",
        (id) => asA.put(`/api/v1/websites/${id}`, form({ privacy: 0, exclude_ips: "10.0.0.0/8", timezone: "Asia/Tokyo" })),
      ],
      ["PUT websites/{id} (json)", (id) => asA.put(`/api/v1/websites/${id}`, jsonBody({ privacy: 2, password: "taken-over" }))],
      ["PUT websites/{id} (empty)", (id) => asA.put(`/api/v1/websites/${id}`)],
      ["DELETE websites/{id}", (id) => asA.delete(`/api/v1/websites/${id}`)],
      ...STAT_NAMES.map((name): [string, (id: number) => Promise<{ status: number; body: unknown }>] => [
        `GET stats/{id} name=${name}`,
        (id) => asA.get(`/api/v1/stats/${id}?${statName(name)}&${STATS_QUERY}`),
      ]),
    ];
    const missing = Math.max(...idsA, ...idsB) + 1000;
    for (const [label, call] of calls) {
      for (const id of [...idsB, missing]) {
        const response = await call(id);
        expect({ label, id, status: response.status, body: response.body }).toEqual({ label, id, status: 404, body: NOT_FOUND });
      }
    }
    // And the same from B's side.
    for (const id of idsA) {
      expect((await asB.get(`/api/v1/websites/${id}`)).body).toEqual(NOT_FOUND);
      expect((await asB.delete(`/api/v1/websites/${id}`)).body).toEqual(NOT_FOUND);
      expect((await asB.get(`/api/v1/stats/${id}?name=pageviews&${STATS_QUERY}`)).body).toEqual(NOT_FOUND);
    }
    await tally.flush();
    expect(snapshotTables(fixture.file)).toEqual(before);
  });

  it("Tenants: lists, searches and counts never include the other account's websites; in-process calls are scoped the same", async () => {
    for (const [client, own, other] of [
      [asA, idsA, idsB],
      [asB, idsB, idsA],
    ] as const) {
      for (const query of [
        "",
        "?per_page=100",
        "?search=example&per_page=100",
        "?search=bee",
        "?search=ant",
        "?sort_by=domain&sort=asc",
        "?page=2",
      ]) {
        const response = await client.get(`/api/v1/websites${query}`);
        expect(response.status).toBe(200);
        const ids = websiteList(response).map((w) => w.id);
        expect(ids.filter((id) => other.includes(id))).toEqual([]);
        expect(response.body.meta!.total).toBeLessThanOrEqual(own.length);
      }
      expect((await client.get("/api/v1/websites?per_page=100")).body.meta!.total).toBe(own.length);
    }
    expect((await asA.get("/api/v1/websites?search=bee")).body.meta!.total).toBe(0);
    // Their statistics only ever hold their own hits.
    const page = await asA.get(`/api/v1/stats/${idsA[0]}?name=page&${STATS_QUERY}&per_page=100`);
    expect((page.body.data as { value: string }[]).every((row) => row.value.startsWith("/ant-"))).toBe(true);
    const events = await asB.get(`/api/v1/stats/${idsB[0]}?name=event&${STATS_QUERY}`);
    expect((events.body.data as { value: string }[]).map((row) => row.value)).toEqual(["bee-event"]);
    // In-process, the account is checked the same way.
    const accountA = (await tally.accounts.authenticate(keyA)).id;
    await expect(tally.websites.get(accountA, idsB[0]!)).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(tally.stats.query(accountA, idsB[0]!, { name: "pageviews", from: "2026-01-01", to: "2026-12-31" })).rejects.toMatchObject({
      name: "NotFoundError",
    });
    await expect(tally.websites.update(accountA, idsB[0]!, { privacy: 0 })).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(tally.websites.delete(accountA, idsB[0]!)).rejects.toMatchObject({ name: "NotFoundError" });
  });

  it("Tenants: keys are stored only as SHA-256 hashes; a revoked key stops working at once (also revoked by another process)", async () => {
    await tally.flush();
    const stored = allStoredText(fixture.file);
    for (const key of [keyA, keyB]) {
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(key.slice(12)); // the secret part, beyond the visible prefix
      expect(stored).toContain(createHash("sha256").update(key).digest("hex"));
    }

    // In-process revoke: the very next request is refused.
    const extra = await tally.accounts.createKey((await tally.accounts.authenticate(keyA)).id, { name: "extra" });
    const asExtra = apiClient(served, extra.key);
    expect((await asExtra.get("/api/v1/account")).status).toBe(200);
    expect(await tally.accounts.revokeKey(extra.prefix)).toBe(1);
    const refused = await asExtra.get("/api/v1/account");
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: "Unauthenticated.", status: 401 });
    expect((await asExtra.post("/api/v1/websites", form({ domain: "after-revoke.example" }))).status).toBe(401);

    // Revoked by a second Tally on the same file (what `tally keys revoke` does): no cache here either.
    const second = await tally.accounts.createKey((await tally.accounts.authenticate(keyB)).id, { name: "second" });
    const asSecond = apiClient(served, second.key);
    expect((await asSecond.get("/api/v1/websites")).status).toBe(200);
    const other = createTally({ database: `file:${fixture.file}` });
    expect(await other.accounts.revokeKey(second.key)).toBe(1);
    await other.close();
    expect((await asSecond.get("/api/v1/websites")).status).toBe(401);
    // The other keys are untouched.
    expect((await asA.get("/api/v1/account")).status).toBe(200);
    expect((await asB.get("/api/v1/account")).status).toBe(200);
  });
});
