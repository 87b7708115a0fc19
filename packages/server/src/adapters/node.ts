import type { IncomingMessage, ServerResponse } from "node:http";
import type { Tally } from "@tally-analytics/core";
import { MESSAGES } from "../http/errors.js";
import { lazyHandler } from "./lazy-handler.js";
import { JSON_CONTENT_TYPE, NOSNIFF } from "../http/json-response.js";
import type { HandlerOptions } from "../http/options.js";
import { publicOrigin, sendWebResponse, toWebRequest, type NodeRequest } from "./node-bridge.js";
import { createNodeCollect } from "./node-collect.js";

export type { HandlerOptions } from "../http/options.js";
export { limitSlowClients, type SlowClientLimits } from "./node-server-limits.js";
export { countPageviews, type PageviewMiddleware } from "./node-pageviews.js";
export type { PageviewOptions } from "../collect/server-pageviews.js";

/** A node:http request listener that is also Express middleware. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/**
 * Serves Tally from node:http (`http.createServer(toNodeHandler(tally))`, with
 * `basePath` when it is not at the root) or Express (`app.use("/analytics",
 * toNodeHandler(tally))`: the mount path is learnt per request). Every request that
 * reaches it is answered, unknown routes with a JSON 404.
 */
export function toNodeHandler(tally: Tally, options: HandlerOptions = {}): NodeHandler {
  const handler = lazyHandler(tally, options);

  async function serve(req: NodeRequest, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const request = toWebRequest(req, publicOrigin(req, tally.options.trustProxy), controller.signal);
    const response = await handler(request, { ip: req.socket.remoteAddress, basePath: req.baseUrl || undefined });
    await sendWebResponse(req, res, response);
  }

  const serveCollect = createNodeCollect(tally);
  const basePath = options.basePath ?? "";
  // Express strips its mount path from req.url (and sets baseUrl); plain node:http keeps basePath in it.
  const isCollect = (req: NodeRequest) =>
    req.method === "POST" &&
    (req.url ?? "").split("?", 1)[0]!.replace(/\/+$/, "") === `${req.baseUrl === undefined ? basePath : ""}/collect`;

  return (req, res, next) => {
    (isCollect(req) ? serveCollect(req, res) : serve(req, res)).catch((error: unknown) => {
      // Only the bridge itself can get here (the handler answers every error): let Express
      // report it, or send the same bare 500 the handler would.
      if (next) return next(error);
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { ...NOSNIFF, "content-type": JSON_CONTENT_TYPE });
      res.end(JSON.stringify({ message: MESSAGES.serverError, status: 500 }));
    });
  };
}
