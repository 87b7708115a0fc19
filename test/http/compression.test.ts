// Compression of Tally's answers: the tracker and the dashboard's files as compressed at
// build time, every other text answer of 1 KB or more per request (brotli or gzip as the
// client prefers), `Vary: Accept-Encoding`, never twice when the host compresses itself.
// Bytes are read off real sockets (node:http, Express, Fastify) and the bare handler.
import { readFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { Tally } from "@tally-analytics/core";
import { dashboardAssets } from "@tally-analytics/dashboard";
import { createHandler } from "@tally-analytics/server";
import { tallyPlugin } from "@tally-analytics/server/fastify";
import { toNodeHandler } from "@tally-analytics/server/node";
import { trackerEncoded, trackerScript } from "@tally-analytics/tracker";
import compression from "compression";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";
import { listen, type Served } from "../support/transports.js";

/** The tracker's size as `pnpm bench` measured it (bench/results.json). */
const BENCH = JSON.parse(readFileSync(new URL("../../bench/results.json", import.meta.url), "utf8")) as {
  figures: { id: string; value: number }[];
};
const benchFigure = (id: string) => BENCH.figures.find((figure) => figure.id === id)!.value;

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as they came off the socket, not decoded. */
  body: Buffer;
}

/** A request over a real socket, its answer's bytes untouched (fetch would decode them). */
function raw(url: string, headers: Record<string, string> = {}, method = "GET"): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const decode = (answer: Raw): Buffer => {
  const encoding = answer.headers["content-encoding"];
  if (encoding === "br") return brotliDecompressSync(answer.body);
  if (encoding === "gzip") return gunzipSync(answer.body);
  expect(encoding).toBeUndefined();
  return answer.body;
};

describe("compression", () => {
  let fixture: ReturnType<typeof createTempTally>;
  let tally: Tally;
  let key = "";
  let node: Served;
  let hosted: Served;
  let fastify: FastifyInstance;
  let fastifyBase = "";
  let plain: Served;

  beforeAll(async () => {
    fixture = createTempTally();
    tally = fixture.tally;
    ({ key } = await tally.accounts.create({ name: "Compression" }));
    node = await listen(createServer(toNodeHandler(tally)), "");
    // A host that compresses everything itself, in front of Tally.
    const app = express();
    app.use(compression({ threshold: 0 }));
    app.use("/analytics", toNodeHandler(tally));
    hosted = await listen(createServer(app) as Server, "/analytics");
    fastify = Fastify();
    await fastify.register(tallyPlugin, { tally, prefix: "/analytics" });
    await fastify.listen({ port: 0, host: "127.0.0.1" });
    fastifyBase = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/analytics`;
    plain = await listen(createServer(toNodeHandler(tally, { compression: false })), "");
  });

  afterAll(async () => {
    await node?.close();
    await hosted?.close();
    await plain?.close();
    await fastify?.close();
    await fixture?.dispose();
  });

  it("/script.js goes out as built: brotli or gzip, within the bench's figures, with Vary and an ETag per form", async () => {
    const br = await raw(`${node.base}/script.js`, { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.body.equals(Buffer.from(trackerEncoded.br, "base64"))).toBe(true);
    expect(br.body.length).toBeLessThanOrEqual(benchFigure("tracker.brotli"));
    expect(Number(br.headers["content-length"])).toBe(br.body.length);
    expect(decode(br).toString()).toBe(trackerScript);
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(br.headers.etag).toMatch(/^"[\w-]{16}-br"$/);

    const gzip = await raw(`${node.base}/script.js`, { "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gzip.body.length).toBeLessThanOrEqual(benchFigure("tracker.gzip"));
    expect(decode(gzip).toString()).toBe(trackerScript);
    expect(gzip.headers.etag).toBe(br.headers.etag!.replace("-br", "-gzip"));

    const identity = await raw(`${node.base}/script.js`);
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.body.toString()).toBe(trackerScript);
    expect(identity.headers.vary).toBe("Accept-Encoding");

    // q-values: refused codings are never used; `*` stands for the others.
    expect((await raw(`${node.base}/script.js`, { "accept-encoding": "br;q=0, gzip;q=0.5" })).headers["content-encoding"]).toBe("gzip");
    expect((await raw(`${node.base}/script.js`, { "accept-encoding": "gzip;q=1, br;q=0.2" })).headers["content-encoding"]).toBe("gzip");
    expect((await raw(`${node.base}/script.js`, { "accept-encoding": "*" })).headers["content-encoding"]).toBe("br");
    expect((await raw(`${node.base}/script.js`, { "accept-encoding": "identity, *;q=0" })).headers["content-encoding"]).toBeUndefined();

    // Revalidating any form answers 304 without a body.
    for (const etag of [br.headers.etag!, gzip.headers.etag!, identity.headers.etag!]) {
      const again = await raw(`${node.base}/script.js`, { "accept-encoding": "br", "if-none-match": etag });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
    }
  });

  it("the dashboard's files: as built, a year of immutable caching when versioned (or named by content), 5 minutes otherwise", async () => {
    for (const [name, asset] of Object.entries(dashboardAssets)) {
      const versioned = await raw(`${node.base}/assets/${name}?v=${asset.version}`, { "accept-encoding": "br" });
      expect(versioned.status).toBe(200);
      expect(versioned.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(versioned.body.equals(Buffer.from(asset.encoded.br, "base64"))).toBe(true);
      expect(decode(versioned).toString()).toBe(asset.body);
      // Compressed at the highest level: at most what gzip -9 makes (the figure docs/configuration.md gives),
      // for any file worth compressing (a 100-byte list of imports is a few bytes longer in either form).
      if (asset.body.length >= 1024) expect(versioned.body.length).toBeLessThan(Buffer.from(asset.encoded.gzip, "base64").length);
      const unversioned = await raw(`${node.base}/assets/${name}`, { "accept-encoding": "gzip" });
      // The parts the dashboard imports later are named by their content: their name is their version.
      const namedByContent = /-[A-Z0-9]{8}\.js$/.test(name);
      expect(unversioned.headers["cache-control"]).toBe(namedByContent ? "public, max-age=31536000, immutable" : "public, max-age=300");
      expect(decode(unversioned).toString()).toBe(asset.body);
    }
  });

  it("other text answers of 1 KB or more are compressed per request; smaller ones, HEAD and refusals of coding are not", async () => {
    const identity = await raw(`${node.base}/api/v1/openapi.json`);
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.headers.vary).toContain("Accept-Encoding");
    const document = JSON.parse(identity.body.toString()) as unknown;
    for (const encoding of ["br", "gzip"]) {
      const answer = await raw(`${node.base}/api/v1/openapi.json`, { "accept-encoding": encoding });
      expect(answer.headers["content-encoding"]).toBe(encoding);
      expect(answer.body.length).toBeLessThan(identity.body.length / 4);
      expect(JSON.parse(decode(answer).toString())).toEqual(document);
    }
    const page = await raw(`${node.base}/api/docs`, { "accept-encoding": "gzip" });
    expect(page.headers["content-encoding"]).toBe("gzip");
    expect(decode(page).toString()).toContain("<!doctype html>");

    // A small JSON answer (under 1 KB) goes out as it is.
    const small = await raw(`${node.base}/api/v1/account`, { "accept-encoding": "br", authorization: `Bearer ${key}` });
    expect(small.status).toBe(200);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toMatchObject({ data: { name: "Compression" }, status: 200 });
    const head = await raw(`${node.base}/api/v1/openapi.json`, { "accept-encoding": "br" }, "HEAD");
    expect(head.headers["content-encoding"]).toBeUndefined();
  });

  it("the bare fetch handler compresses the same way", async () => {
    const handler = createHandler(tally);
    const answer = await handler(new Request("http://tally.test/api/v1/openapi.json", { headers: { "accept-encoding": "br" } }));
    expect(answer.headers.get("content-encoding")).toBe("br");
    const body = Buffer.from(await answer.arrayBuffer());
    expect((JSON.parse(brotliDecompressSync(body).toString()) as { openapi: string }).openapi).toMatch(/^3\.1/);
  });

  it("never compresses twice: a host's compression() leaves Tally's encoded answers alone, and compresses the rest itself", async () => {
    const script = await raw(`${hosted.base}/script.js`, { "accept-encoding": "br, gzip" });
    expect(script.headers["content-encoding"]).toBe("br");
    expect(decode(script).toString()).toBe(trackerScript);
    const document = await raw(`${hosted.base}/api/v1/openapi.json`, { "accept-encoding": "gzip" });
    expect(document.headers["content-encoding"]).toBe("gzip");
    expect((JSON.parse(decode(document).toString()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    // Under 1 KB, Tally leaves it to the host, which compresses it (threshold 0) once.
    const small = await raw(`${hosted.base}/api/v1/account`, { "accept-encoding": "gzip", authorization: `Bearer ${key}` });
    expect(small.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(decode(small).toString())).toMatchObject({ status: 200 });
  });

  it("through Fastify too", async () => {
    const answer = await raw(`${fastifyBase}/api/v1/openapi.json`, { "accept-encoding": "br" });
    expect(answer.headers["content-encoding"]).toBe("br");
    expect(answer.headers.vary).toContain("Accept-Encoding");
    expect((JSON.parse(decode(answer).toString()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    const script = await raw(`${fastifyBase}/script.js`, { "accept-encoding": "gzip" });
    expect(decode(script).toString()).toBe(trackerScript);
  });

  it("compression: false leaves answers to a proxy in front; built files still go out as built", async () => {
    const document = await raw(`${plain.base}/api/v1/openapi.json`, { "accept-encoding": "br, gzip" });
    expect(document.headers["content-encoding"]).toBeUndefined();
    expect(document.headers.vary).toBeUndefined();
    const script = await raw(`${plain.base}/script.js`, { "accept-encoding": "br" });
    expect(script.headers["content-encoding"]).toBe("br");
  });
});
