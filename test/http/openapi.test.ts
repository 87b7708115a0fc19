// The OpenAPI document and its reference page, over every transport; and the checker
// that holds every answer of the HTTP matrix to the document (test/support/openapi-check.ts).
import { validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenApiDocument, impliedStatuses, routes } from "@tally-analytics/server/internal";
import { apiClient, type ApiClient } from "../support/api-client.js";
import { checkAgainstDocument, UndocumentedAnswer } from "../support/openapi-check.js";
import { createTempTally } from "../support/tally-fixture.js";
import { transports, type Served } from "../support/transports.js";

type Json = Record<string, unknown>;

describe("the OpenAPI document", () => {
  const document = createOpenApiDocument(routes, "https://example.com/analytics") as unknown as Json & {
    paths: Record<string, Record<string, Json>>;
  };

  it("validates as OpenAPI 3.1 (@readme/openapi-parser), without warnings", async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe("3.1.0");
  });

  it("has every route of the table, with the statuses its shape implies", () => {
    for (const route of routes) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()] as { responses: Json; operationId: string } | undefined;
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      const statuses = Object.keys(operation!.responses).map(Number);
      for (const status of [...impliedStatuses(route), ...Object.keys(route.responses).map(Number)]) expect(statuses).toContain(status);
    }
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    expect(operations).toHaveLength(routes.length);
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("describes auth, bodies, the filter syntax and the error shapes", () => {
    const components = document.components as { securitySchemes: Json; schemas: Record<string, Json>; responses: Json };
    expect(components.securitySchemes).toMatchObject({
      apiKey: { type: "http", scheme: "bearer" },
      shareCookie: { type: "apiKey", in: "cookie", name: "tally_share" },
    });
    const create = document.paths["/api/v1/websites"]!.post as { requestBody: { content: Json }; security: Json[] };
    expect(Object.keys(create.requestBody.content).sort()).toEqual(["application/json", "application/x-www-form-urlencoded"]);
    expect(create.security).toEqual([{ apiKey: [] }]);
    expect(components.schemas.WebsiteCreate).toMatchObject({ required: ["domain"] });
    const stats = document.paths["/api/v1/stats/{id}"]!.get as { parameters: { name: string; description?: string; required?: boolean }[] };
    const filter = stats.parameters.find((parameter) => parameter.name === "filter");
    expect(filter?.description).toContain("<dimension>:<operator>:<value>");
    expect(filter?.description).toContain("`utm_source`");
    expect(
      stats.parameters
        .filter((parameter) => parameter.required)
        .map((parameter) => parameter.name)
        .sort(),
    ).toEqual(["from", "id", "name", "to"]);
    expect(Object.keys(components.responses).sort()).toEqual([
      "BadRequest",
      "Forbidden",
      "MethodNotAllowed",
      "NotFound",
      "PayloadTooLarge",
      "ServerError",
      "TooManyRequests",
      "Unauthorized",
      "Unavailable",
      "UnsupportedMediaType",
      "ValidationFailed",
    ]);
    expect(components.schemas.ValidationError).toMatchObject({ required: ["message", "errors", "status"] });
    expect((document.paths["/collect"]!.post as { security: Json[] }).security).toEqual([]);
    expect((document.paths["/share/{domain}/api/stats"]!.get as { security: Json[] }).security).toEqual([
      {},
      { apiKey: [] },
      { shareCookie: [] },
    ]);
  });
});

describe("the checker of the HTTP matrix", () => {
  const base = "http://tally.test/analytics";
  const at = (path: string) => new URL(`${base}${path}`);
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
  const account = { id: 1, name: "alice", created_at: "2026-11-21T10:00:00.000Z", email: null, report_period: "week" };

  it("accepts an answer the document declares", async () => {
    await checkAgainstDocument(base, at("/api/v1/account"), "GET", answer(200, { data: account, status: 200 }));
    await checkAgainstDocument(base, at("/nowhere"), "GET", answer(404, { message: "Not found.", status: 404 }));
  });

  it("refuses an undeclared status, an undeclared field, a wrong type, a missing header or a wrong Allow", async () => {
    const refused = (promise: Promise<void>) => expect(promise).rejects.toBeInstanceOf(UndocumentedAnswer);
    await refused(checkAgainstDocument(base, at("/api/v1/account"), "GET", answer(404, { message: "Resource not found.", status: 404 })));
    await refused(
      checkAgainstDocument(base, at("/api/v1/account"), "GET", answer(200, { data: { ...account, key_count: 2 }, status: 200 })),
    );
    await refused(checkAgainstDocument(base, at("/api/v1/account"), "GET", answer(200, { data: { ...account, id: "1" }, status: 200 })));
    await refused(checkAgainstDocument(base, at("/api/v1/account"), "GET", answer(429, { message: "Too Many Attempts.", status: 429 })));
    await refused(
      checkAgainstDocument(
        base,
        at("/api/v1/websites"),
        "PATCH",
        answer(405, { message: "Method not allowed.", status: 405 }, { allow: "GET, HEAD" }),
      ),
    );
    await refused(
      checkAgainstDocument(
        base,
        at("/api/v1/websites"),
        "GET",
        new Response("<p>hi</p>", { status: 200, headers: { "content-type": "text/html" } }),
      ),
    );
  });
});

describe.each(transports)("the document and the reference page through $name", (transport) => {
  let fixture: ReturnType<typeof createTempTally>;
  let served: Served;
  let anonymous: ApiClient;

  beforeAll(async () => {
    fixture = createTempTally();
    served = await transport.serve(fixture.tally);
    anonymous = apiClient(served, null);
  });

  afterAll(async () => {
    await served.close();
    await fixture.dispose();
  });

  it("GET /api/v1/openapi.json is public and is the route table's document, its server the mount", async () => {
    const response = await anonymous.get("/api/v1/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.body).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument(routes, served.base))));
    expect((response.body.servers as { url: string }[])[0]!.url).toBe(served.base);
  });

  it("GET /api/docs is a static page of every operation, no script, its own strict CSP", async () => {
    const response = await served.fetch("/api/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/style-src 'sha256-[\w+/=]+'/);
    expect(csp).not.toContain("unsafe-inline");
    const html = await response.text();
    // Nothing loaded from anywhere: no script, no stylesheet, no image or frame source.
    expect(html).not.toMatch(/<script|<link rel="stylesheet"|<(img|iframe|object|embed)\b/);
    for (const route of routes)
      expect(html).toContain(
        `<span class="method ${route.method.toLowerCase()}">${route.method.toLowerCase()}</span><code>${route.path}</code>`,
      );
    expect(html).toContain("prefers-color-scheme: dark");
    expect(html).toContain('href="v1/openapi.json"');
  });
});
