// Funnels and journeys through HTTP: funnels defined by JSON or form, listed and deleted;
// the funnel and journey statistics answer what the in-process API does (and what the
// data says); bad input is a 422 naming the field and changes nothing; another account's
// website is a 404; a deleted website takes its funnels. Every transport, both dialects.
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, expectInvalid, expectJson, form, jsonBody, type ApiClient } from "../support/api-client.js";
import { apiMatrix } from "../support/matrix.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import type { Served } from "../support/transports.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const RANGE = "from=2026-03-01&to=2026-03-31";

describe.each(apiMatrix)("funnels and journeys over $name", ({ transport, dialect }) => {
  let stored: TestTally;
  let tally: Tally;
  let served: Served;
  let owner: ApiClient;
  let stranger: ApiClient;
  let id = 0;

  beforeAll(async () => {
    stored = await createTestTally(dialect, { retentionIntervalMs: 0 });
    tally = stored.tally;
    const { accountId, key } = await tally.accounts.create();
    id = (await tally.websites.create(accountId, { domain: "funnel.example" })).id;
    const strangerKey = (await tally.accounts.create()).key;
    // Ten people land; six go on to /pricing, then /signup/form; three of those sign up; one signs up without /pricing.
    for (let person = 0; person < 10; person++) {
      const ip = `198.51.100.${person}`;
      const at = Date.parse("2026-03-03T10:00:00Z") + person * 60_000;
      const hit = (path: string, seconds: number, event?: string) =>
        tally.collect({
          url: `https://funnel.example${path}`,
          ip,
          userAgent: CHROME,
          timestamp: at + seconds * 1000,
          ...(event ? { event } : {}),
        });
      await hit("/", 0);
      if (person < 6) {
        await hit("/pricing", 10);
        await hit("/signup/form", 20);
      }
      if (person < 3 || person === 9) await hit("/signup/form", 30, "Signup");
    }
    await tally.flush();
    served = await transport.serve(tally);
    owner = apiClient(served, key);
    stranger = apiClient(served, strangerKey);
  });

  afterAll(async () => {
    await served?.close();
    await stored?.dispose();
  });

  it("defines funnels by JSON and by form, lists them, reads one, deletes one", async () => {
    const steps = ["page:/pricing", "page:/signup*", "event:Signup"];
    const created = await owner.post(`/api/v1/websites/${id}/funnels`, jsonBody({ name: "Checkout", steps }));
    expectJson(created, 201);
    const funnel = created.body.data as { id: number; steps: string[] };
    expect(funnel).toMatchObject({ website_id: id, name: "Checkout", steps });
    const byForm = await owner.post(`/api/v1/websites/${id}/funnels`, form({ name: "Landing", steps: "page:/\r\npage:/pricing\n" }));
    expectJson(byForm, 201);
    expect((byForm.body.data as { steps: string[] }).steps).toEqual(["page:/", "page:/pricing"]);

    const list = await owner.get(`/api/v1/websites/${id}/funnels`);
    expectJson(list, 200);
    expect((list.body.data as { name: string }[]).map((f) => f.name)).toEqual(["Checkout", "Landing"]);

    const read = await owner.get(`/api/v1/stats/${id}/funnel?funnel=${funnel.id}&${RANGE}`);
    expectJson(read, 200);
    expect(read.body.data).toEqual([
      { step: 1, label: "page:/pricing", visitors: 6, conversion_rate: 100, drop_off: 0 },
      { step: 2, label: "page:/signup*", visitors: 6, conversion_rate: 100, drop_off: 0 },
      { step: 3, label: "event:Signup", visitors: 3, conversion_rate: 50, drop_off: 3 },
    ]);
    expect(read.body).toMatchObject({ funnel: { id: funnel.id, name: "Checkout" } });
    const { funnel: _named, ...direct } = await tally.stats.funnelWebsite(id, { funnel: funnel.id, from: "2026-03-01", to: "2026-03-31" });
    expect(read.body.data).toEqual(direct.data);

    const compared = await owner.get(`/api/v1/stats/${id}/funnel?funnel=${funnel.id}&${RANGE}&compare=previous_period&filter=page:is:/`);
    expectJson(compared, 200);
    expect((compared.body.data as { visitors: number; previous: number }[]).map((row) => [row.visitors, row.previous])).toEqual([
      [6, 0],
      [6, 0],
      [3, 0],
    ]);

    const landing = (byForm.body.data as { id: number }).id;
    expectJson(await owner.delete(`/api/v1/websites/${id}/funnels/${landing}`), 200);
    expectJson(await owner.delete(`/api/v1/websites/${id}/funnels/${landing}`), 404);
    expectJson(await owner.get(`/api/v1/stats/${id}/funnel?funnel=${landing}&${RANGE}`), 404);
  });

  it("a journey: the start, the most frequent next and previous steps, and the links", async () => {
    const next = await owner.get(`/api/v1/stats/${id}/journey?from_page=/pricing&depth=2&${RANGE}`);
    expectJson(next, 200);
    expect(next.body.data).toEqual([
      { step: 0, value: "page:/pricing", visitors: 6 },
      { step: 1, value: "page:/signup/form", visitors: 6 },
      { step: 2, value: "event:Signup", visitors: 3 },
    ]);
    expect(next.body.links).toEqual([
      { step: 1, from: "page:/pricing", to: "page:/signup/form", visitors: 6 },
      { step: 2, from: "page:/signup/form", to: "event:Signup", visitors: 3 },
    ]);
    expect(next.body.data).toEqual(
      (await tally.stats.journeyWebsite(id, { from_page: "/pricing", depth: 2, from: "2026-03-01", to: "2026-03-31" })).data,
    );
    const previous = await owner.get(`/api/v1/stats/${id}/journey?from_event=Signup&direction=previous&depth=5&${RANGE}`);
    expectJson(previous, 200);
    expect(previous.body.data).toEqual([
      { step: 0, value: "event:Signup", visitors: 4 },
      { step: 1, value: "page:/signup/form", visitors: 3 },
      { step: 1, value: "page:/", visitors: 1 },
      { step: 2, value: "page:/pricing", visitors: 3 },
      { step: 3, value: "page:/", visitors: 3 },
    ]);
  });

  it("bad input is a 422 naming the field, and defines nothing", async () => {
    const post = (body: unknown) => owner.post(`/api/v1/websites/${id}/funnels`, jsonBody(body));
    expectInvalid(await post({ name: "One", steps: ["page:/"] }), { steps: ["A funnel has 2 to 8 steps."] });
    expectInvalid(await post({ name: "Nine", steps: Array(9).fill("page:/") }), { steps: ["A funnel has 2 to 8 steps."] });
    const badStep = "A step must be a page (/pricing, or page:/blog/*) or an event (event:Signup), 1 to 200 characters.";
    expectInvalid(await post({ name: "Bad", steps: ["page:/", "goal:x"] }), { "steps.1": [badStep] });
    expectInvalid(await post({ name: "Empty", steps: ["page:", "event:Signup"] }), { "steps.0": [badStep] });
    expectInvalid(await post({ steps: ["page:/", "page:/a"] }), { name: ["The name field is required."] });
    // A path alone is a page step, stored as one.
    const plain = await post({ name: "Plain", steps: ["/", "/pricing*"] });
    expectJson(plain, 201);
    expect((plain.body.data as { steps: string[] }).steps).toEqual(["page:/", "page:/pricing*"]);
    expectJson(await owner.delete(`/api/v1/websites/${id}/funnels/${(plain.body.data as { id: number }).id}`), 200);
    const before = (await owner.get(`/api/v1/websites/${id}/funnels`)).body.data as unknown[];
    expect(before).toHaveLength(1);

    const journey = (query: string) => owner.get(`/api/v1/stats/${id}/journey?${RANGE}&${query}`);
    expectInvalid(await journey("depth=3"), { from_page: ["Exactly one of from_page and from_event is required."] });
    expectInvalid(await journey("from_page=/&from_event=Signup"), { from_page: ["Exactly one of from_page and from_event is required."] });
    expectInvalid(await journey("from_page=/&depth=6"), { depth: ["The depth must be an integer from 1 to 5."] });
    expectInvalid(await journey("from_page=/&direction=sideways"), { direction: ["The selected direction is invalid."] });
    expectInvalid(await owner.get(`/api/v1/stats/${id}/funnel?funnel=abc&${RANGE}`), {
      funnel: ["The funnel must be the id of one of the website's funnels."],
    });
  });

  it("another account's website and funnels are missing ones; a deleted website takes its funnels", async () => {
    const [funnel] = (await owner.get(`/api/v1/websites/${id}/funnels`)).body.data as { id: number }[];
    expectJson(await stranger.get(`/api/v1/websites/${id}/funnels`), 404);
    expectJson(await stranger.post(`/api/v1/websites/${id}/funnels`, jsonBody({ name: "X", steps: ["page:/", "page:/a"] })), 404);
    expectJson(await stranger.delete(`/api/v1/websites/${id}/funnels/${funnel!.id}`), 404);
    expectJson(await stranger.get(`/api/v1/stats/${id}/funnel?funnel=${funnel!.id}&${RANGE}`), 404);
    expectJson(await stranger.get(`/api/v1/stats/${id}/journey?from_page=/&${RANGE}`), 404);

    expectJson(await owner.delete(`/api/v1/websites/${id}`), 200);
    const [left] = await stored.sql<{ n: number | string }>("select count(*) as n from funnels");
    expect(Number(left!.n)).toBe(0);
  });
});
