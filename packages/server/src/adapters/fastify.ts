import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Tally } from "@tally-analytics/core";
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { decodeUtf8, DEFAULT_BODY_LIMIT } from "../http/body.js";
import { answerHit, COLLECT_BODY_LIMIT, CORS_HEADERS, collectReporter } from "../collect/collect.js";
import { HttpError, MESSAGES } from "../http/errors.js";
import { lazyHandler } from "./lazy-handler.js";
import { json } from "../http/json-response.js";
import type { HandlerOptions } from "../http/options.js";
import { isDownload, publicOrigin, toWebHeaders } from "./node-bridge.js";
import { isPageRequest, servePage, type PageviewOptions } from "../collect/server-pageviews.js";

export type { HandlerOptions } from "../http/options.js";
export type { PageviewOptions } from "../collect/server-pageviews.js";

export interface TallyPluginOptions extends Omit<HandlerOptions, "basePath"> {
  tally: Tally;
}

async function send(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  for (const [name, value] of response.headers) if (name !== "set-cookie") reply.header(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header("set-cookie", cookies);
  if (isDownload(response)) return reply.send(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>));
  return reply.send(Buffer.from(await response.arrayBuffer()));
}

const REFUSALS: Record<number, string> = { 413: MESSAGES.tooLarge, 415: MESSAGES.unsupportedMediaType };

/**
 * `await app.register(tallyPlugin, { tally, prefix: "/analytics" })`. Encapsulated: its
 * raw-body parsers and error handler apply to Tally's routes only.
 */
export const tallyPlugin: FastifyPluginAsync<TallyPluginOptions> = async (app, { tally, ...options }) => {
  const handler = lazyHandler(tally, options);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;

  // Tally parses bodies itself (form, JSON, the tracker's text/plain): hand every one through raw.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit }, (_request, body, done) => done(null, body));

  // Fastify's own refusals (body too large, broken Content-Length…) in Tally's JSON shape.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error(error);
    const message = status === 500 ? MESSAGES.serverError : (REFUSALS[status] ?? MESSAGES.badRequest);
    // /collect answers carry CORS headers even when Fastify refuses the body before Tally sees it.
    const path = (request.url.split("?", 1)[0] ?? "").replace(/\/+$/, "");
    const headers = path === `${app.prefix}/collect` ? CORS_HEADERS : {};
    return send(reply, json(status, { message }, headers));
  });

  async function route(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const controller = new AbortController();
    reply.raw.once("close", () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const hasBody = Buffer.isBuffer(request.body) && request.method !== "GET" && request.method !== "HEAD";
    const webRequest = new Request(`${publicOrigin(request.raw, tally.options.trustProxy)}${request.url}`, {
      method: request.method,
      headers: toWebHeaders(request.headers),
      signal: controller.signal,
      ...(hasBody ? { body: new Uint8Array(request.body as Buffer) } : {}),
    });
    return send(reply, await handler(webRequest, { ip: request.raw.socket.remoteAddress, basePath: app.prefix }));
  }

  // The hot path: POST /collect answered from the raw body, without a Request/Response round trip.
  const report = collectReporter();
  app.post("/collect", async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const text = () => {
      if (raw.length > COLLECT_BODY_LIMIT) throw new HttpError(413, MESSAGES.tooLarge);
      return decodeUtf8(raw);
    };
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    };
    const answer = await answerHit(tally, { text, socketIp: request.raw.socket.remoteAddress, header }, report);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  app.all("/*", route);
  // The bare prefix too (a JSON 404), unless Tally shares the root with the host's own routes.
  if (app.prefix !== "") app.all("/", route);
};

export interface TallyPageviewsOptions extends PageviewOptions {
  tally: Tally;
}

const headerOf = (request: FastifyRequest) => (name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
};

const headerText = (value: unknown) => (value === undefined ? undefined : String(value));

/**
 * Server-side pageviews (docs/guide/inside-your-app.md): `await app.register(tallyPageviews,
 * { tally })` counts every successful HTML answer to a browser's `GET` in the whole app
 * (not only in the plugin's context), named by its route template (`/orders/:id`) on
 * websites with `page_names: "route"`, and marks it for the tracker.
 */
export const tallyPageviews: FastifyPluginAsync<TallyPageviewsOptions> = Object.assign(
  async (app: FastifyInstance, { tally, ...options }: TallyPageviewsOptions) => {
    // A callback hook, not an async one: it runs for every answer of the app, and a promise
    // per answer costs more than the check most of them need.
    app.addHook("onSend", (request, reply, payload, done) => {
      const path = request.url.split("?", 1)[0] ?? "/";
      const header = headerOf(request);
      if (!isPageRequest(request.method, path, header, options)) return done(null, payload);
      const serverTiming = servePage(
        tally,
        { url: `${publicOrigin(request.raw, tally.options.trustProxy)}${request.url}`, socketIp: request.raw.socket.remoteAddress, header },
        {
          status: reply.statusCode,
          contentType: headerText(reply.getHeader("content-type")),
          serverTiming: headerText(reply.getHeader("server-timing")),
          route: request.routeOptions.url,
        },
      );
      if (serverTiming !== null) reply.header("server-timing", serverTiming);
      done(null, payload);
    });
  },
  // Not encapsulated (as fastify-plugin does it): the hook sees every route of the app.
  { [Symbol.for("skip-override")]: true },
);
