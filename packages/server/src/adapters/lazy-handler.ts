import type { Tally } from "@tally-analytics/core";
import type { HandlerOptions, TallyHandler } from "../http/options.js";

/**
 * `createHandler(tally, options)`, loaded with the first request that is not a hit: the
 * API's routes, schemas, dashboard and sign-in pages stay out of an app whose Tally only
 * collects (an adapter answers /collect without them).
 */
export function lazyHandler(tally: Tally, options: HandlerOptions): TallyHandler {
  let handler: Promise<TallyHandler> | null = null;
  return async (request, context) => {
    handler ??= import("../handler.js").then(({ createHandler }) => createHandler(tally, options));
    return (await handler)(request, context);
  };
}
