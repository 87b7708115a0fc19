// One Tally for the whole app. Next.js loads this file in several bundles (the route
// handlers, the proxy) and again after each edit in `next dev`: the instance lives on
// globalThis so there is only ever one, and it opens on first use, never during `next build`.
import { createTally } from "@tally-analytics/core";
import { countPageviews, createHandler } from "@tally-analytics/server";

function start() {
  const tally = createTally({ database: "file:./data/tally.sqlite" });
  const ready = (async () => {
    if ((await tally.accounts.count()) === 0) {
      const { accountId } = await tally.accounts.create({ name: "example" });
      await tally.websites.create(accountId, { domain: "127.0.0.1" }); // this page, as it runs here
    }
  })();
  // A route handler is not told where it is mounted: the prefix is an option.
  const handler = createHandler(tally, { basePath: "/analytics", authenticate: accountOf, compression: false });
  const count = countPageviews(tally, { exclude: ["/analytics"] });
  return {
    tally,
    ready,
    /** Tally's answer to a request of app/analytics/[[...path]]/route.js. */
    serve: async (request) => {
      await ready;
      return handler(asSeen(request), { ip: clientIp(request) });
    },
    /** Counts a page request (the proxy's), server-side. */
    count: (request) => count(asSeen(request), { ip: clientIp(request) }),
  };
}

/** @returns {ReturnType<typeof start>} */
export const analytics = () => (globalThis.tally ??= start());

// The app's own sign-in, cut down to a cookie (yours looks a session up): account 1's owner.
function accountOf(request) {
  return /(?:^|;\s*)session=owner(?:;|$)/.test(request.headers.get("cookie") ?? "") ? 1 : null;
}

// Next.js gives route handlers and the proxy no socket: `next start` puts the client's
// address last in X-Forwarded-For (a proxy in front adds its own: see trustProxy).
export const clientIp = (request) => request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();

// Next.js builds request.url from the server's own name (`localhost` unless `next start -H`):
// the address the browser used is in X-Forwarded-Host and X-Forwarded-Proto, which it sets.
export function publicUrl(request) {
  const url = new URL(request.url);
  url.host = request.headers.get("x-forwarded-host") ?? url.host;
  url.protocol = request.headers.get("x-forwarded-proto") ?? url.protocol;
  return url.href;
}

// Next.js also drops a route handler's Content-Encoding and compresses the answer itself:
// Tally is asked for uncompressed answers (without Accept-Encoding), which Next.js then gzips.
function asSeen(request) {
  const { method, body, signal } = request;
  const headers = new Headers(request.headers);
  headers.delete("accept-encoding");
  return new Request(publicUrl(request), { method, headers, body, signal, duplex: "half" });
}
