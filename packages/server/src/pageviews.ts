import type { Tally } from "@tally-analytics/core";
import { isPageRequest, servePage, type PageviewOptions } from "./collect/server-pageviews.js";

export type { PageviewOptions } from "./collect/server-pageviews.js";

/** What a fetch framework knows beside the Request (Hono: `getConnInfo(c).remote.address`, `c.req.routePath`). */
export interface PageviewContext {
  /** The client socket's address (`trustProxy` then reads X-Forwarded-For as for /collect). */
  ip: string | undefined;
  /** The app's answer: counted only when it is a successful HTML page, and marked for the tracker. Without it, the request alone decides. */
  response?: Response;
  /** The route template that answered (`/orders/:id`), for websites with `page_names: "route"`. */
  route?: string;
}

/**
 * Server-side pageviews for fetch frameworks (Hono, Bun, Deno): call the answer after the
 * app answered, `count(request, { ip, response })`. It never throws and awaits nothing
 * (docs/guide/inside-your-app.md). A Response whose headers cannot change (one from `fetch`)
 * is counted unmarked: the tracker's pageview then finds it by address, user agent and URL.
 */
export function countPageviews(tally: Tally, options: PageviewOptions = {}): (request: Request, context: PageviewContext) => void {
  return (request, { ip, response, route }) => {
    const header = (name: string) => request.headers.get(name);
    if (!isPageRequest(request.method, new URL(request.url).pathname, header, options)) return;
    const serverTiming = servePage(
      tally,
      { url: request.url, socketIp: ip, header },
      {
        status: response?.status ?? 200,
        contentType: response ? (response.headers.get("content-type") ?? undefined) : "text/html",
        serverTiming: response?.headers.get("server-timing") ?? undefined,
        route,
      },
    );
    try {
      if (serverTiming !== null) response?.headers.set("server-timing", serverTiming);
    } catch {
      // Immutable headers: see above.
    }
  };
}
