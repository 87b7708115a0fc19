import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Tally } from "@tally-analytics/core";
import { createHandler, type HandlerOptions } from "@tally-analytics/server";
import { tallyPlugin } from "@tally-analytics/server/fastify";
import { toNodeHandler } from "@tally-analytics/server/node";
import express from "express";
import Fastify from "fastify";
import { checkAgainstDocument } from "./openapi-check.js";

/** Tally served one way; `base` is the public URL of the mount (links are built from it). */
export interface Served {
  base: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface Transport {
  name: string;
  /** The host app's own body parsers run first: bodies they cannot parse never reach Tally. */
  hostParsesBodies?: boolean;
  /** The framework answers malformed percent-escapes in the path itself (Fastify: 400). */
  rejectsMalformedPaths?: boolean;
  serve(tally: Tally, options?: HandlerOptions): Promise<Served>;
}

/** Listens on a free port of 127.0.0.1; `base` is its origin plus `mount`. */
export async function listen(server: Server, mount: string): Promise<Served> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${mount}`;
  return {
    base,
    fetch: (path, init) => fetch(`${base}${path}`, init),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** Marks the host app's own answers (not Tally's, so not in its OpenAPI document). */
const HOST_ANSWER = "x-answered-by";

function expressApp(tally: Tally, options: HandlerOptions, withParsers: boolean): Server {
  const app = express();
  if (withParsers) app.use(express.json(), express.urlencoded({ extended: false }));
  app.use("/analytics", toNodeHandler(tally, options));
  app.use((error: unknown, _request: express.Request, response: express.Response, next: express.NextFunction) => {
    response.setHeader(HOST_ANSWER, "host");
    next(error);
  });
  return createServer(app);
}

/** Every answer a test receives is checked against the OpenAPI document (openapi-check.ts). */
function checked(served: Served): Served {
  return {
    ...served,
    async fetch(path, init) {
      const response = await served.fetch(path, init);
      const url = response.redirected ? new URL(response.url) : new URL(`${served.base}${path}`);
      await checkAgainstDocument(served.base, url, init?.method ?? "GET", response);
      return response;
    },
  };
}

const unchecked: Transport[] = [
  {
    name: "fetch handler",
    async serve(tally, options = {}) {
      const handler = createHandler(tally, { ...options, basePath: "/analytics" });
      const base = "http://tally.test/analytics";
      return {
        base,
        fetch: (path, init) => handler(new Request(`${base}${path}`, init), { ip: "127.0.0.1" }),
        close: async () => {},
      };
    },
  },
  {
    name: "node:http",
    serve: (tally, options = {}) => listen(createServer(toNodeHandler(tally, options)), ""),
  },
  {
    name: "express",
    serve: (tally, options = {}) => listen(expressApp(tally, options, false), "/analytics"),
  },
  {
    name: "express with body parsers",
    hostParsesBodies: true,
    serve: (tally, options = {}) => listen(expressApp(tally, options, true), "/analytics"),
  },
  {
    name: "fastify",
    rejectsMalformedPaths: true,
    async serve(tally, options = {}) {
      // Fastify refuses a malformed URL itself, before Tally sees it.
      const app = Fastify({
        frameworkErrors: (error, _request, reply) => void reply.code(400).header(HOST_ANSWER, "host").send({ message: error.message }),
      });
      await app.register(tallyPlugin, { ...options, tally, prefix: "/analytics" });
      await app.listen({ port: 0, host: "127.0.0.1" });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/analytics`;
      return { base, fetch: (path, init) => fetch(`${base}${path}`, init), close: () => app.close() };
    },
  },
];

export const transports: Transport[] = unchecked.map((transport) => ({
  ...transport,
  serve: async (tally, options) => checked(await transport.serve(tally, options)),
}));
