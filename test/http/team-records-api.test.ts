// Goals, annotations and saved segments through HTTP: what a team shares per website. Goals
// are counted by the `goals` statistic (page goals beside the events, event goals nobody
// reached as 0); annotations list by range; saved segments are personal to a user or shared,
// and the Stats API v2 filters on them as on their filters. Bad input is a 422 that names the
// field and changes nothing; a viewer keeps personal segments and nothing else; another
// account's website is a 404. The fetch handler, both dialects.
import type { Tally } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, expectInvalid, expectJson, form, jsonBody, type ApiClient } from "../support/api-client.js";
import { DIALECTS } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:124.0) Gecko/20100101 Firefox/124.0";
const RANGE = "from=2026-03-01&to=2026-03-31";
const handler = transports.find((transport) => transport.name === "fetch handler")!;
const PASSWORD = "correct horse battery staple";

describe.each(DIALECTS)("goals, annotations and saved segments on %s", (dialect) => {
  let stored: TestTally;
  let tally: Tally;
  let served: Served;
  let owner: ApiClient;
  let admin: ApiClient;
  let viewer: ApiClient;
  let stranger: ApiClient;
  let id = 0;
  let accountId = 0;

  beforeAll(async () => {
    stored = await createTestTally(dialect, { retentionIntervalMs: 0 });
    tally = stored.tally;
    const account = await tally.accounts.create();
    accountId = account.accountId;
    const key = account.key;
    id = (await tally.websites.create(accountId, { domain: "team.example" })).id;
    const userKey = async (email: string, role: "admin" | "viewer") => {
      const user = await tally.team.users.add(accountId, { email, password: PASSWORD, role });
      return (await tally.team.users.createKey(user.id, { name: "test", scope: "write" })).key;
    };
    // Eight people: all see /, half /pricing; Chrome users sign up on a plan.
    for (let person = 0; person < 8; person++) {
      const at = Date.parse("2026-03-03T10:00:00Z") + person * 60_000;
      const hit = (path: string, seconds: number, event?: string) =>
        tally.collect({
          url: `https://team.example${path}`,
          ip: `198.51.100.${person}`,
          userAgent: person % 2 === 0 ? CHROME : FIREFOX,
          timestamp: at + seconds * 1000,
          ...(event ? { event, props: { plan: person < 4 ? "pro" : "free" } } : {}),
        });
      await hit("/", 0);
      if (person < 4) await hit("/pricing", 10);
      if (person % 2 === 0) await hit("/pricing", 20, "Signup");
    }
    await tally.flush();
    served = await handler.serve(tally);
    owner = apiClient(served, key);
    admin = apiClient(served, await userKey("ada@team.example", "admin"));
    viewer = apiClient(served, await userKey("vic@team.example", "viewer"));
    stranger = apiClient(served, (await tally.accounts.create()).key);
  });

  afterAll(async () => {
    await served?.close();
    await stored?.dispose();
  });

  const goalRows = async () => {
    const answer = await viewer.get(`/api/v1/stats/${id}?name=goals&${RANGE}`);
    expectJson(answer, 200);
    return (answer.body.data as { value: string; count: number }[]).map((row) => [row.value, row.count]);
  };

  it("goals: added by form and JSON, listed for everyone, counted by the goals statistic, deleted", async () => {
    expect(await goalRows()).toEqual([["Signup", 4]]);
    const page = await admin.post(`/api/v1/websites/${id}/goals`, form({ goal_type: "page", page_path: "/pricing" }));
    expectJson(page, 201);
    expect(page.body.data).toMatchObject({
      website_id: id,
      goal_type: "page",
      page_path: "/pricing",
      event_name: null,
      display_name: "Visit /pricing",
    });
    const event = await owner.post(
      `/api/v1/websites/${id}/goals`,
      jsonBody({ goal_type: "event", event_name: "Upgrade", display_name: "Upgraded" }),
    );
    expectJson(event, 201);

    const listed = await viewer.get(`/api/v1/websites/${id}/goals`);
    expectJson(listed, 200);
    expect((listed.body.data as { display_name: string }[]).map((goal) => goal.display_name)).toEqual(["Visit /pricing", "Upgraded"]);
    // The page goal counted beside the events; the event goal nobody reached, with 0.
    expect(await goalRows()).toEqual([
      ["Signup", 4],
      ["Visit /pricing", 4],
      ["Upgrade", 0],
    ]);
    // Page goals the request names replace the website's.
    const asked = await viewer.get(`/api/v1/stats/${id}?name=goals&goal_page=/&${RANGE}`);
    expect((asked.body.data as { value: string }[]).map((row) => row.value)).toEqual(["Visit /", "Signup", "Upgrade"]);

    expectInvalid(await admin.post(`/api/v1/websites/${id}/goals`, form({ goal_type: "page", page_path: "pricing" })), {
      page_path: ["A page goal's page path starts with /."],
    });
    expectInvalid(await admin.post(`/api/v1/websites/${id}/goals`, form({ goal_type: "page", page_path: "/pricing" })), {
      page_path: ["The website has this goal already."],
    });
    expectInvalid(await admin.post(`/api/v1/websites/${id}/goals`, form({ goal_type: "visit" })), {
      goal_type: ["The selected goal type is invalid."],
    });
    expectJson(await viewer.post(`/api/v1/websites/${id}/goals`, jsonBody({ goal_type: "event", event_name: "X" })), 403);
    expectJson(await stranger.get(`/api/v1/websites/${id}/goals`), 404);

    const goalId = (event.body.data as { id: number }).id;
    const deleted = await admin.delete(`/api/v1/websites/${id}/goals/${goalId}`);
    expectJson(deleted, 200);
    expect(deleted.body).toMatchObject({ id: goalId, object: "goal", deleted: true });
    expectJson(await admin.delete(`/api/v1/websites/${id}/goals/${goalId}`), 404);
    expect(await goalRows()).toEqual([
      ["Signup", 4],
      ["Visit /pricing", 4],
    ]);
  });

  it("annotations: added, listed by range, changed and deleted; bad dates and empty notes refused", async () => {
    const first = await admin.post(`/api/v1/websites/${id}/annotations`, jsonBody({ date: "2026-03-03", text: "Launched pricing" }));
    expectJson(first, 201);
    expectJson(await owner.post(`/api/v1/websites/${id}/annotations`, form({ date: "2026-04-10", text: "Spring sale" })), 201);
    const march = await viewer.get(`/api/v1/websites/${id}/annotations?${RANGE}`);
    expectJson(march, 200);
    expect((march.body.data as { text: string }[]).map((note) => note.text)).toEqual(["Launched pricing"]);

    const noteId = (first.body.data as { id: number }).id;
    const changed = await admin.put(`/api/v1/websites/${id}/annotations/${noteId}`, jsonBody({ text: "Launched the pricing page" }));
    expectJson(changed, 200);
    expect(changed.body.data).toMatchObject({ id: noteId, date: "2026-03-03", text: "Launched the pricing page" });

    expectInvalid(await admin.post(`/api/v1/websites/${id}/annotations`, form({ date: "2026-02-30", text: "x" })), {
      date: ["The date is not a valid date in the format Y-m-d."],
    });
    expectInvalid(await admin.post(`/api/v1/websites/${id}/annotations`, form({ date: "2026-03-01", text: " " })), {
      text: ["The text field is required."],
    });
    expectJson(await viewer.post(`/api/v1/websites/${id}/annotations`, form({ date: "2026-03-01", text: "mine" })), 403);
    expectJson(await admin.delete(`/api/v1/websites/${id}/annotations/${noteId}`), 200);
    const all = await viewer.get(`/api/v1/websites/${id}/annotations`);
    expect((all.body.data as { text: string }[]).map((note) => note.text)).toEqual(["Spring sale"]);
  });

  it("saved segments: personal to their user, shared with everyone; sharing takes an admin; bad filters refused", async () => {
    const mine = await viewer.post(`/api/v1/websites/${id}/segments`, jsonBody({ name: "Chrome people", filters: ["browser:is:Chrome"] }));
    expectJson(mine, 201);
    expect(mine.body.data).toMatchObject({ name: "Chrome people", filters: ["browser:is:Chrome"], visibility: "personal" });
    const mineId = (mine.body.data as { id: number }).id;
    expectJson(
      await viewer.post(`/api/v1/websites/${id}/segments`, jsonBody({ name: "All", filters: ["page:is:/"], visibility: "shared" })),
      403,
    );
    expectJson(await viewer.put(`/api/v1/websites/${id}/segments/${mineId}`, jsonBody({ visibility: "shared" })), 403);

    // An account key has no user: its segments are shared.
    const shared = await owner.post(
      `/api/v1/websites/${id}/segments`,
      form({ name: "Pricing viewers", filters: "page:is:/pricing\nevent:is_not:Signup" }),
    );
    expectJson(shared, 201);
    expect(shared.body.data).toMatchObject({ filters: ["page:is:/pricing", "event:is_not:Signup"], visibility: "shared" });
    expectInvalid(
      await owner.post(`/api/v1/websites/${id}/segments`, jsonBody({ name: "x", filters: ["page:is:/"], visibility: "personal" })),
      {
        visibility: ["A personal segment belongs to a user: sign in, or use an API key of your own, or share it."],
      },
    );
    expectInvalid(await viewer.post(`/api/v1/websites/${id}/segments`, jsonBody({ name: "x", filters: ["page:is:/", "planet:is:Mars"] })), {
      "filters.1": ['The filter dimension "planet" is unknown.'],
    });

    const names = async (client: ApiClient) =>
      ((await client.get(`/api/v1/websites/${id}/segments`)).body.data as { name: string }[]).map((s) => s.name);
    expect(await names(viewer)).toEqual(["Chrome people", "Pricing viewers"]);
    expect(await names(admin)).toEqual(["Pricing viewers"]);
    expectJson(await admin.delete(`/api/v1/websites/${id}/segments/${mineId}`), 404);

    const renamed = await viewer.put(
      `/api/v1/websites/${id}/segments/${mineId}`,
      jsonBody({ name: "Chrome", filters: ["browser:is:Chrome", "page:is:/"] }),
    );
    expectJson(renamed, 200);
    expect(renamed.body.data).toMatchObject({ name: "Chrome", filters: ["browser:is:Chrome", "page:is:/"], visibility: "personal" });
    expectJson(await viewer.delete(`/api/v1/websites/${id}/segments/${(shared.body.data as { id: number }).id}`), 403);
    expectJson(await stranger.get(`/api/v1/websites/${id}/segments`), 404);
  });

  it("the Stats API v2 filters on a saved segment as on its filters, echoing them, and only on segments the asker sees", async () => {
    const created = await admin.post(
      `/api/v1/websites/${id}/segments`,
      jsonBody({ name: "Pro signups", filters: ["prop:plan:is:pro", "event:is:Signup"], visibility: "shared" }),
    );
    const segment = (created.body.data as { id: number }).id;
    const personal = await viewer.post(`/api/v1/websites/${id}/segments`, jsonBody({ name: "Mine", filters: ["browser:is:Firefox"] }));
    const v2 = (client: ApiClient, filters: unknown[]) =>
      client.post(
        "/api/v2/query",
        jsonBody({ site_id: "team.example", metrics: ["visitors", "events"], date_range: ["2026-03-01", "2026-03-31"], filters }),
      );
    const bySegment = await v2(viewer, [["is", "segment", [segment]]]);
    expect(bySegment.status).toBe(200);
    const byFilters = await v2(viewer, [
      ["is", "event:props:plan", ["pro"]],
      ["is", "event:goal", ["Signup"]],
    ]);
    expect(bySegment.body.results).toEqual(byFilters.body.results);
    expect(bySegment.body.results).toEqual([{ dimensions: [], metrics: [2, 2] }]);
    expect((bySegment.body.query as { filters: unknown }).filters).toEqual((byFilters.body.query as { filters: unknown }).filters);

    const personalId = (personal.body.data as { id: number }).id;
    const own = await v2(viewer, [
      [
        "and",
        [
          ["is", "segment", [personalId]],
          ["is", "event:page", ["/"]],
        ],
      ],
    ]);
    expect(own.status).toBe(200);
    expect(own.body.results).toEqual([{ dimensions: [], metrics: [4, 4] }]);
    const others = await v2(admin, [["is", "segment", [personalId]]]);
    expect(others.status).toBe(400);
    expect(others.body.error).toBe(`Invalid filter ["is","segment",[${personalId}]]: no saved segment ${personalId} on this site.`);
  });

  it("share links: each opens the share page of a private website, its API through the cookie it sets, until deleted", async () => {
    const created = await admin.post(`/api/v1/websites/${id}/share-links`, jsonBody({ name: "Investors" }));
    expectJson(created, 201);
    const { id: linkId, token } = created.body.data as { id: number; token: string };
    expect(token).toMatch(/^[\w-]{24}$/);
    expectJson(await viewer.post(`/api/v1/websites/${id}/share-links`, jsonBody({ name: "Mine" })), 403);
    expectInvalid(await admin.post(`/api/v1/websites/${id}/share-links`, form({ name: "" })), { name: ["The name field is required."] });
    expect((await viewer.get(`/api/v1/websites/${id}/share-links`)).body.data).toMatchObject([{ name: "Investors", token }]);

    // The website is private: without the link its share page is a 404.
    expect((await served.fetch("/share/team.example")).status).toBe(404);
    const opened = await served.fetch(`/share/team.example?link=${token}`);
    expect(opened.status).toBe(200);
    const cookie = opened.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^tally_share_link=[\w-]{24}; Path=\/analytics\/share\/team\.example; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const totals = (headers: Record<string, string> = {}) => served.fetch(`/share/team.example/api/totals?${RANGE}`, { headers });
    expect((await totals()).status).toBe(404);
    const shared = await totals({ cookie: cookie.split(";")[0]! });
    expect(shared.status).toBe(200);
    expect(((await shared.json()) as { data: { visitors: number } }).data.visitors).toBe(8);
    expect((await served.fetch(`/share/team.example?link=${"x".repeat(24)}`)).status).toBe(404);

    expectJson(await admin.delete(`/api/v1/websites/${id}/share-links/${linkId}`), 200);
    expect((await totals({ cookie: cookie.split(";")[0]! })).status).toBe(404);
    expect((await served.fetch(`/share/team.example?link=${token}`)).status).toBe(404);
  });

  it("the account is renamed by its owner (PUT name), and keeps its name through a report-settings change", async () => {
    const renamed = await owner.put("/api/v1/account", form({ name: "  Acme Analytics " }));
    expectJson(renamed, 200);
    expect(renamed.body.data).toMatchObject({ name: "Acme Analytics" });
    expectJson(await owner.put("/api/v1/account", jsonBody({ report_period: "month" })), 200);
    expect((await owner.get("/api/v1/account")).body.data).toMatchObject({ name: "Acme Analytics", report_period: "month" });
    expectInvalid(await owner.put("/api/v1/account", form({ name: "" })), { name: ["The name may not be empty."] });
    expectJson(await admin.put("/api/v1/account", form({ name: "Mine" })), 403);
  });

  it("a removed user's personal segments go with them; a deleted website takes its goals, annotations and segments", async () => {
    const count = async (text: string) => Number((await stored.sql<{ n: number | string }>(text))[0]!.n);
    const viewerId = (await tally.team.users.list(accountId)).find((user) => user.email === "vic@team.example")!.id;
    expect(await count(`select count(*) as n from saved_segments where user_id = ${viewerId}`)).toBeGreaterThan(0);
    await tally.team.users.remove(accountId, viewerId);
    expect(await count(`select count(*) as n from saved_segments where user_id = ${viewerId}`)).toBe(0);

    expectJson(await owner.delete(`/api/v1/websites/${id}`), 200);
    for (const table of ["goals", "annotations", "saved_segments", "share_links"])
      expect(await count(`select count(*) as n from ${table} where website_id = ${id}`), table).toBe(0);
  });
});
