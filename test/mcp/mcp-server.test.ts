// Tally's MCP server through the SDK's own client: over Streamable HTTP (every transport, each
// answer held to the OpenAPI document) and over stdio (`tally mcp`, the built binary). Every
// tool is called and its figures must equal the API's answer to the same question; a viewer's
// key is refused what the API refuses it, with the same 404; the API's sign-in and rate limit apply.
import { spawnSync } from "node:child_process";
import type { Tally } from "@tally-analytics/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, BIN } from "../cli/support.js";
import { codeBlocks, docPage, section } from "../support/readme.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
const MARCH = { from: "2026-03-01", to: "2026-03-31" };
const READ_TOOLS = [
  "list_websites",
  "get_statistic",
  "get_totals",
  "query_stats",
  "list_funnels",
  "get_funnel",
  "get_journey",
  "get_realtime",
];
const WRITE_TOOLS = ["create_goal", "create_annotation"];
const TOOLS = [...READ_TOOLS, ...WRITE_TOOLS];

type Json = Record<string, unknown>;
const nodeHttp = transports.find((transport) => transport.name === "node:http")!;

/** The SDK's client over Streamable HTTP, its requests going through the transport's checked fetch. */
async function httpClient(served: Served, key: string): Promise<Client> {
  const client = new Client({ name: "tally-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${served.base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => served.fetch(String(url).slice(served.base.length), init),
  });
  await client.connect(transport);
  return client;
}

/** The SDK's client running `tally mcp` on the same SQLite file. */
async function stdioClient(file: string, env: Record<string, string>, args: string[] = []): Promise<Client> {
  const client = new Client({ name: "tally-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", ...args], env: { DATABASE_URL: `file:${file}`, ...env } }),
  );
  return client;
}

async function call(client: Client, name: string, args: Json): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful call's figures, after checking its text is the one-line summary and the same figures. */
async function figures(client: Client, name: string, args: Json): Promise<Json> {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const [summary, data] = result.content as { type: string; text: string }[];
  expect(summary!.text).not.toContain("\n");
  expect(JSON.parse(data!.text)).toEqual(result.structuredContent);
  return result.structuredContent as Json;
}

/** A refused call's error, as the API's JSON error body. */
async function refusal(client: Client, name: string, args: Json): Promise<Json> {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  return JSON.parse((result.content as { text: string }[])[0]!.text) as Json;
}

describe("the MCP server", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let served: Served;
  let aliceId = 0;
  let ownerKey = "";
  let viewerKey = "";
  let readKey = "";
  let shop = 0;
  let blog = 0;
  let stranger = 0;
  let funnel = 0;

  /** The API's answer, as JSON without its `status`. */
  async function api(key: string, path: string, body?: Json): Promise<{ status: number; body: Json }> {
    const init: RequestInit = { headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } };
    const response = await served.fetch(path, body === undefined ? init : { ...init, method: "POST", body: JSON.stringify(body) });
    const { status: _repeated, ...rest } = (await response.json()) as Json;
    return { status: response.status, body: rest };
  }
  const query = (params: Json) =>
    new URLSearchParams(
      Object.entries(params).flatMap(([name, value]) =>
        Array.isArray(value) ? value.map((v) => [name, String(v)]) : [[name, String(value)]],
      ),
    );

  beforeAll(async () => {
    assertBuilt();
    fixture = createTempTally({ retentionIntervalMs: 0, dayBlocksIntervalMs: 0 });
    tally = fixture.tally;
    const alice = await tally.accounts.create({ name: "alice" });
    ownerKey = alice.key;
    aliceId = alice.accountId;
    shop = (await tally.websites.create(alice.accountId, { domain: "shop.test", timezone: "Europe/Berlin" })).id;
    blog = (await tally.websites.create(alice.accountId, { domain: "blog.test" })).id;
    const bob = await tally.accounts.create({ name: "bob" });
    stranger = (await tally.websites.create(bob.accountId, { domain: "bob.test" })).id;
    const viewer = await tally.team.users.add(alice.accountId, { email: "viewer@shop.test", role: "viewer", websites: [shop] });
    viewerKey = (await tally.team.users.createKey(viewer.id, { name: "assistant", scope: "read" })).key;
    const admin = await tally.team.users.add(alice.accountId, { email: "admin@shop.test", role: "admin" });
    readKey = (await tally.team.users.createKey(admin.id, { name: "read only", scope: "read" })).key;
    funnel = (
      await tally.funnels.create(alice.accountId, shop, { name: "Checkout", steps: ["page:/pricing", "page:/signup", "event:Signup"] })
    ).id;

    // Three weeks of March: 40 people a week, arriving from a few places, some going on to sign up.
    const referrers = ["https://www.google.com/search?q=shop", "https://news.ycombinator.com/item?id=1", ""];
    for (let person = 0; person < 120; person++) {
      const at = Date.parse("2026-03-02T09:00:00Z") + Math.floor(person / 40) * 7 * 86_400_000 + (person % 40) * 3_600_000;
      const visit = { ip: `198.51.100.${person}`, userAgent: person % 3 === 0 ? FIREFOX : CHROME };
      const hit = (path: string, seconds: number, extra: Json = {}) =>
        tally.collect({ url: `https://shop.test${path}`, ...visit, timestamp: at + seconds * 1000, ...extra });
      await hit(person % 4 === 0 ? "/?utm_source=newsletter" : "/", 0, { referrer: referrers[person % 3] });
      if (person % 2 === 0) await hit("/pricing", 30);
      if (person % 4 === 0) await hit("/signup", 60);
      if (person % 8 === 0) await hit("/signup", 90, { event: "Signup", props: { plan: person % 16 === 0 ? "pro" : "free" } });
    }
    for (let person = 0; person < 3; person++)
      await tally.collect({ url: "https://shop.test/now", ip: `203.0.113.${person}`, userAgent: CHROME });
    await tally.collect({ url: "https://bob.test/", ip: "203.0.113.9", userAgent: CHROME, timestamp: Date.parse("2026-03-05T10:00:00Z") });
    await tally.flush();
    served = await nodeHttp.serve(tally);
  });

  afterAll(async () => {
    await served?.close();
    await fixture?.dispose();
  });

  /** Each tool's call, beside the API request that asks the same, and the API's answer shaped as the tool's figures. */
  function comparisons(): { tool: string; args: Json; expected(): Promise<Json> }[] {
    const stat = (args: Json) => ({
      tool: "get_statistic",
      args: { website_id: shop, ...args },
      async expected() {
        const { body } = await api(ownerKey, `/api/v1/stats/${shop}?${query(args)}`);
        const meta = body.meta as { total: number; current_page: number; last_page: number };
        const ranged = "previous_total" in body || ["visits", "bounce_rate"].includes(String(args.name));
        return {
          website_id: shop,
          name: args.name,
          from: args.from,
          to: args.to,
          rows: body.data,
          total_rows: meta.total,
          page: meta.current_page,
          last_page: meta.last_page,
          ...(ranged ? { range_total: body.total } : {}),
          ...("previous_total" in body ? { previous_range_total: body.previous_total } : {}),
          ...("comparison" in body ? { comparison: body.comparison } : {}),
        };
      },
    });
    const sameAs = (tool: string, args: Json, path: string, wrap: (body: Json) => Json = (body) => ({ website_id: shop, ...body })) => ({
      tool,
      args,
      expected: async () => wrap((await api(ownerKey, path)).body),
    });
    const v2 = {
      site_id: "shop.test",
      metrics: ["visitors", "pageviews", "bounce_rate"],
      date_range: [MARCH.from, MARCH.to],
      dimensions: ["visit:source"],
      order_by: [["visitors", "desc"]],
      pagination: { limit: 2 },
      include: { total_rows: true },
    };
    return [
      {
        tool: "list_websites",
        args: {},
        async expected() {
          const { body } = await api(ownerKey, "/api/v1/websites?per_page=100&sort=asc");
          const websites = (body.data as { id: number; domain: string; timezone: string }[]).map(({ id, domain, timezone }) => ({
            id,
            domain,
            timezone,
            today: new Intl.DateTimeFormat("en-CA", { timeZone: timezone }).format(Date.now()),
          }));
          return { websites, total: (body.meta as { total: number }).total };
        },
      },
      stat({ name: "page", ...MARCH }),
      stat({ name: "referrer", ...MARCH, filter: ["browser:is:Chrome"], compare: "previous_period" }),
      stat({ name: "visits", ...MARCH, compare: "previous_period" }),
      stat({ name: "bounce_rate", ...MARCH }),
      stat({ name: "goals", ...MARCH, goal_page: "/signup*", per_page: "25" }),
      stat({ name: "event_property", ...MARCH, event: "Signup", property: "plan" }),
      stat({ name: "visitors_hours", ...MARCH, sort_by: "value", sort: "asc", page: 2 }),
      sameAs(
        "get_totals",
        { website_id: shop, from: "2026-03-09", to: "2026-03-15", filter: "utm_source:is:newsletter", compare: "previous_period" },
        `/api/v1/stats/${shop}/totals?from=2026-03-09&to=2026-03-15&filter=utm_source:is:newsletter&compare=previous_period`,
      ),
      {
        tool: "query_stats",
        args: v2,
        expected: async () => (await api(ownerKey, "/api/v2/query", v2)).body,
      },
      sameAs("list_funnels", { website_id: shop }, `/api/v1/websites/${shop}/funnels`, (body) => ({
        website_id: shop,
        funnels: body.data,
      })),
      sameAs(
        "get_funnel",
        { website_id: shop, funnel, ...MARCH, compare: "previous_period" },
        `/api/v1/stats/${shop}/funnel?funnel=${funnel}&${query(MARCH)}&compare=previous_period`,
      ),
      sameAs(
        "get_journey",
        { website_id: shop, from_page: "/", depth: 2, ...MARCH },
        `/api/v1/stats/${shop}/journey?from_page=/&depth=2&${query(MARCH)}`,
      ),
      sameAs("get_realtime", { website_id: shop }, `/api/v1/realtime/${shop}`, (body) => ({ website_id: shop, ...(body.data as Json) })),
    ];
  }

  /** The same refusals through the API: each tool call beside its API request. */
  function refusals(): { tool: string; args: Json; path: string; body?: Json }[] {
    return [
      {
        tool: "get_statistic",
        args: { website_id: stranger, name: "page", ...MARCH },
        path: `/api/v1/stats/${stranger}?name=page&${query(MARCH)}`,
      },
      { tool: "get_totals", args: { website_id: blog, ...MARCH }, path: `/api/v1/stats/${blog}/totals?${query(MARCH)}` },
      { tool: "list_funnels", args: { website_id: stranger }, path: `/api/v1/websites/${stranger}/funnels` },
      { tool: "get_realtime", args: { website_id: stranger }, path: `/api/v1/realtime/${stranger}` },
      {
        tool: "get_journey",
        args: { website_id: stranger, from_page: "/", ...MARCH },
        path: `/api/v1/stats/${stranger}/journey?from_page=/&${query(MARCH)}`,
      },
    ];
  }

  /** The write tools' calls (`mark` keeps two runs' goals apart), each answer being what the API then lists. */
  function writes(mark: string): { tool: string; args: Json; expected(created: Json): Promise<Json> }[] {
    const listed = (collection: string) => async (created: Json) => {
      const { body } = await api(ownerKey, `/api/v1/websites/${shop}/${collection}`);
      return (body.data as Json[]).find((item) => item.id === created.id) ?? { missing: created.id };
    };
    return [
      { tool: "create_goal", args: { website_id: shop, goal_type: "page", page_path: `/thanks-${mark}` }, expected: listed("goals") },
      {
        tool: "create_goal",
        args: { website_id: shop, goal_type: "event", event_name: `Purchase ${mark}`, display_name: "Purchase" },
        expected: listed("goals"),
      },
      {
        tool: "create_annotation",
        args: { website_id: shop, date: "2026-03-10", text: `Launch ${mark}` },
        expected: listed("annotations"),
      },
    ];
  }

  async function checkEveryTool(client: Client, mark: string): Promise<void> {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.annotations).toMatchObject({ readOnlyHint: !WRITE_TOOLS.includes(tool.name) });
    }
    const statistic = tools.find((tool) => tool.name === "get_statistic")!.inputSchema as {
      properties: Record<string, { enum?: string[] }>;
    };
    expect(statistic.properties.name!.enum).toContain("landing_page");
    const called = new Set<string>();
    for (const { tool, args, expected } of comparisons()) {
      expect(await figures(client, tool, args), `${tool} ${JSON.stringify(args)}`).toEqual(await expected());
      called.add(tool);
    }
    for (const { tool, args, expected } of writes(mark)) {
      const created = await figures(client, tool, args);
      expect(created, `${tool} ${JSON.stringify(args)}`).toEqual(await expected(created));
      called.add(tool);
    }
    expect([...called].sort()).toEqual([...TOOLS].sort());
    // A goal the website has already is refused with the API's 422.
    const again = writes(mark)[0]!.args;
    const { website_id: _site, ...goal } = again;
    const duplicate = await api(ownerKey, `/api/v1/websites/${shop}/goals`, goal);
    expect(duplicate.status).toBe(422);
    expect(await refusal(client, "create_goal", again)).toEqual({ ...duplicate.body, status: 422 });
    // The data is there: the answers above compared figures, not empty lists.
    expect(await figures(client, "get_realtime", { website_id: shop })).toEqual({ website_id: shop, visitors: 3 });
    expect(await figures(client, "get_statistic", { website_id: shop, name: "page", ...MARCH })).toMatchObject({
      rows: [
        { value: "/", count: 120 },
        { value: "/pricing", count: 60 },
        { value: "/signup", count: 30 },
      ],
    });
  }

  async function checkViewer(client: Client): Promise<void> {
    expect(await figures(client, "list_websites", {})).toMatchObject({ websites: [{ id: shop, domain: "shop.test" }], total: 1 });
    expect(await figures(client, "get_totals", { website_id: shop, ...MARCH })).toEqual({
      website_id: shop,
      ...(await api(viewerKey, `/api/v1/stats/${shop}/totals?${query(MARCH)}`)).body,
    });
    for (const { tool, args, path } of refusals()) {
      const answer = await api(viewerKey, path);
      expect(answer.status, path).toBe(404);
      expect(await refusal(client, tool, args), tool).toEqual({ ...answer.body, status: 404 });
    }
    await checkNoWrites(client, viewerKey);
    const v2 = { site_id: "bob.test", metrics: ["visitors"], date_range: [MARCH.from, MARCH.to] };
    const refusedV2 = await api(viewerKey, "/api/v2/query", v2);
    expect(refusedV2.status).toBe(404);
    expect(await refusal(client, "query_stats", v2)).toEqual({ message: refusedV2.body.error, status: 404 });
  }

  /** A read-only key or a viewer: each write tool refused with the API's 403, and nothing added. */
  async function checkNoWrites(client: Client, key: string): Promise<void> {
    const before = await api(ownerKey, `/api/v1/websites/${shop}/goals`);
    for (const { tool, args } of writes("refused")) {
      const { website_id: _site, ...body } = args;
      const collection = tool === "create_goal" ? "goals" : "annotations";
      const answer = await api(key, `/api/v1/websites/${shop}/${collection}`, body);
      expect(answer.status, tool).toBe(403);
      expect(await refusal(client, tool, args), tool).toEqual({ ...answer.body, status: 403 });
    }
    expect(await api(ownerKey, `/api/v1/websites/${shop}/goals`)).toEqual(before);
  }

  it("answers every tool over Streamable HTTP as the API answers the same question", async () => {
    const client = await httpClient(served, ownerKey);
    try {
      await checkEveryTool(client, "http");
      // A write key is refused another account's website with the API's 404.
      const foreign = await api(ownerKey, `/api/v1/websites/${stranger}/annotations`, { date: "2026-03-10", text: "x" });
      expect(foreign.status).toBe(404);
      const args = { website_id: stranger, date: "2026-03-10", text: "x" };
      expect(await refusal(client, "create_annotation", args)).toEqual({ ...foreign.body, status: 404 });
    } finally {
      await client.close();
    }
    const readOnly = await httpClient(served, readKey);
    try {
      await checkNoWrites(readOnly, readKey);
    } finally {
      await readOnly.close();
    }
  });

  it("refuses a viewer's key over HTTP what the API refuses it, with the API's 404, and lets it read its website", async () => {
    const client = await httpClient(served, viewerKey);
    try {
      await checkViewer(client);
    } finally {
      await client.close();
    }
  });

  it("answers bad arguments with the API's 422 and what the SDK checks with the field's message", async () => {
    const client = await httpClient(served, ownerKey);
    try {
      const backwards = { website_id: shop, from: "2026-03-31", to: "2026-03-01" };
      const answer = await api(ownerKey, `/api/v1/stats/${shop}/totals?${query({ from: backwards.from, to: backwards.to })}`);
      expect(answer.status).toBe(422);
      expect(await refusal(client, "get_totals", backwards)).toEqual({ ...answer.body, status: 422 });
      const unknown = await call(client, "get_statistic", { website_id: shop, name: "pagez", ...MARCH });
      expect(unknown.isError).toBe(true);
      expect((unknown.content as { text: string }[])[0]!.text).toContain("The selected name is invalid.");
    } finally {
      await client.close();
    }
  });

  it("needs the API's credentials and counts each request against the API's rate limit", async () => {
    const limited = await nodeHttp.serve(tally, { rateLimit: { limit: 3, windowMs: 60_000 } });
    try {
      const post = (key: string | null) =>
        limited.fetch("/mcp", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...(key === null ? {} : { authorization: `Bearer ${key}` }),
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
      const anonymous = await post(null);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({ message: "Unauthenticated.", status: 401 });
      const first = await post(viewerKey);
      expect(first.status).toBe(200);
      expect(first.headers.get("x-ratelimit-remaining")).toBe("2");
      expect(((await first.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(TOOLS.length);
      await post(viewerKey);
      expect((await limited.fetch(`/api/v1/realtime/${shop}`, { headers: { authorization: `Bearer ${viewerKey}` } })).status).toBe(200);
      const spent = await post(viewerKey);
      expect(spent.status).toBe(429);
      expect(spent.headers.get("retry-after")).toMatch(/^\d+$/);
      const get = await limited.fetch("/mcp", { headers: { authorization: `Bearer ${ownerKey}` } });
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
    } finally {
      await limited.close();
    }
  });

  it("answers every tool over stdio (tally mcp) as the API does, with a key's access or an account's", async () => {
    const owner = await stdioClient(fixture.file, {}, ["--account", String(aliceId)]);
    try {
      await checkEveryTool(owner, "stdio");
    } finally {
      await owner.close();
    }
    const viewer = await stdioClient(fixture.file, { TALLY_API_KEY: viewerKey });
    try {
      await checkViewer(viewer);
    } finally {
      await viewer.close();
    }
  });

  it("refuses to start tally mcp with a key the database does not know", () => {
    const run = spawnSync(process.execPath, [BIN, "mcp"], {
      env: { PATH: process.env.PATH, DATABASE_URL: `file:${fixture.file}`, TALLY_API_KEY: "tly_not-a-key-of-this-database" },
      input: "",
      encoding: "utf8",
    });
    expect(run).toMatchObject({ status: 1, stdout: "", stderr: "tally: TALLY_API_KEY is not an active key of this database.\n" });
  });

  it("has client configurations in docs/mcp.md that are valid JSON, each reaching /mcp or starting tally mcp", () => {
    const blocks = codeBlocks(section("Client configuration", docPage("mcp.md")));
    const configurations = blocks.filter((block) => block.lang === "json").map((block) => JSON.parse(block.body) as Json);
    expect(configurations).toHaveLength(4);
    for (const configuration of configurations)
      expect(JSON.stringify(configuration)).toMatch(/https:\/\/stats\.example\.com\/mcp"|"mcp"\]/);
    const commands = blocks.filter((block) => block.lang === "sh").flatMap((block) => block.body.split("\n"));
    expect(commands.filter((line) => line.startsWith("claude mcp add"))).toHaveLength(2);
  });

  describe.each(transports.filter((transport) => transport !== nodeHttp))("over $name", (transport) => {
    it("lists the tools and answers a call", async () => {
      const other = await transport.serve(tally);
      const client = await httpClient(other, ownerKey);
      try {
        expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
        const totals = await figures(client, "get_totals", { website_id: shop, ...MARCH });
        expect(totals).toEqual({ website_id: shop, ...(await api(ownerKey, `/api/v1/stats/${shop}/totals?${query(MARCH)}`)).body });
      } finally {
        await client.close();
        await other.close();
      }
    });
  });
});
