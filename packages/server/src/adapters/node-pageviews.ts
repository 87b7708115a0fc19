import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Tally } from "@tally-analytics/core";
import { isPageRequest, servePage, type PageviewOptions } from "../collect/server-pageviews.js";
import { publicOrigin, type NodeRequest } from "./node-bridge.js";

/** Express's view of the route that answered (absent on plain node:http). */
interface RoutedRequest extends NodeRequest {
  route?: { path?: unknown };
}

/** Express middleware, or a call at the top of a node:http listener (`next` then omitted). */
export type PageviewMiddleware = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

const headerOf = (req: IncomingMessage) => (name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
};

/** The route template Express matched (`/orders/:id`, under its router's mount path); undefined without one. */
function routeOf(req: RoutedRequest): string | undefined {
  const path = req.route?.path;
  return typeof path === "string" ? `${req.baseUrl ?? ""}${path}` : undefined;
}

/** A header given to writeHead itself (an object or a flat [name, value…] list), which wins over setHeader's. */
function passedHeader(args: unknown[], name: string): string | undefined {
  const headers = args.find((arg) => typeof arg === "object" && arg !== null) as OutgoingHttpHeaders | unknown[] | undefined;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    return undefined;
  }
  const entry = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return entry === undefined ? undefined : String(entry[1]);
}

const stringHeader = (res: ServerResponse, name: string) => {
  const value = res.getHeader(name);
  return value === undefined ? undefined : String(value);
};

/**
 * Server-side pageviews for Express (`app.use(countPageviews(tally))`, after Tally's own
 * mount) and node:http (`countPageviews(tally)(req, res)` first in the listener): each
 * successful HTML answer to a browser's `GET` is a pageview, marked for the tracker
 * (docs/guide/inside-your-app.md). The decision is made when the response's head is written,
 * from its status and Content-Type; nothing is awaited on the request's way.
 */
export function countPageviews(tally: Tally, options: PageviewOptions = {}): PageviewMiddleware {
  return (req, res, next) => {
    const path = (req.url ?? "/").split("?", 1)[0] ?? "/";
    const header = headerOf(req);
    const routed = req as RoutedRequest;
    if (isPageRequest(req.method, `${routed.baseUrl ?? ""}${path}`, header, options)) {
      const writeHead = res.writeHead;
      res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
        res.writeHead = writeHead;
        const serverTiming = servePage(
          tally,
          {
            url: `${publicOrigin(req, tally.options.trustProxy)}${routed.originalUrl ?? req.url ?? "/"}`,
            socketIp: req.socket.remoteAddress,
            header,
          },
          {
            status: typeof args[0] === "number" ? args[0] : res.statusCode,
            contentType: passedHeader(args, "content-type") ?? stringHeader(res, "content-type"),
            serverTiming: stringHeader(res, "server-timing"),
            route: routeOf(routed),
          },
        );
        if (serverTiming !== null) res.setHeader("server-timing", serverTiming);
        return writeHead.apply(this, args as Parameters<ServerResponse["writeHead"]>);
      } as ServerResponse["writeHead"];
    }
    next?.();
  };
}
