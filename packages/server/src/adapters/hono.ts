import type { Tally } from "@tally-analytics/core";
import { createHandler } from "../handler.js";
import type { HandlerOptions } from "../http/options.js";

export type { HandlerOptions } from "../http/options.js";

/** What Tally reads of Hono's `Context` (Hono stays the app's: nothing of it is imported). */
export interface HonoContextLike {
  req: { raw: Request; routePath: string };
  env?: unknown;
}

/** `"/analytics/*"` → `"/analytics"`: the mount, from the path the app registered the handler under. */
function mountOf(routePath: string): string {
  return routePath.replace(/\/?\*$/, "");
}

/**
 * The peer's address where the runtime gives it: `@hono/node-server`'s socket
 * (`c.env.incoming`), Bun's `server.requestIP`.
 */
function socketAddress(env: unknown, request: Request): string | undefined {
  const node = env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  if (node?.incoming?.socket?.remoteAddress) return node.incoming.socket.remoteAddress;
  const bun = env as { requestIP?: (request: Request) => { address?: string } | null } | undefined;
  return typeof bun?.requestIP === "function" ? (bun.requestIP(request)?.address ?? undefined) : undefined;
}

/**
 * Tally as a Hono handler: `app.all("/analytics/*", tallyHono(tally))`. The mount comes from
 * the route's own path and the client's address from the runtime, so neither is an option.
 * Behind a proxy, set `trustProxy` on `createTally`.
 */
export function tallyHono(tally: Tally, options: Omit<HandlerOptions, "basePath"> = {}): (c: HonoContextLike) => Promise<Response> {
  const handler = createHandler(tally, options);
  return (c) => handler(c.req.raw, { basePath: mountOf(c.req.routePath), ip: socketAddress(c.env, c.req.raw) });
}
