// Tally behind a plain fetch handler (docs/guide/fetch.md): `(Request) => Response`, as Bun,
// Deno and Cloudflare serve it; here on Node through @hono/node-server's `serve`, which hands
// the handler Node's request as `env.incoming`. Bun: `Bun.serve({ fetch })`, the address from
// `server.requestIP(request)`.
import { serve } from "@hono/node-server";
import { createTally } from "@tally-analytics/core";
import { countPageviews, createHandler } from "@tally-analytics/server";
import { exitOnListenError } from "../listen-error.mjs";
import { openOrders, placeOrder } from "../orders.mjs";

const tally = createTally({ database: "file:./data/example.sqlite" });
if ((await tally.accounts.count()) === 0) {
  const { accountId } = await tally.accounts.create({ name: "example" });
  await tally.websites.create(accountId, { domain: "127.0.0.1" }); // this page, as it runs here
}
// The app's own sign-in, cut down to a cookie (yours looks a session up): account 1's owner.
const accountOf = (request) => (/(?:^|;\s*)session=owner(?:;|$)/.test(request.headers.get("cookie") ?? "") ? 1 : null);
// A bare fetch handler knows neither its mount nor the client: both are said.
const analytics = createHandler(tally, { basePath: "/analytics", authenticate: accountOf });
const count = countPageviews(tally, { exclude: ["/analytics"] });
const orders = openOrders("data/example.sqlite");

async function fetchHandler(request, env) {
  const ip = env.incoming.socket.remoteAddress;
  const { pathname } = new URL(request.url);
  if (pathname === "/analytics" || pathname.startsWith("/analytics/")) return analytics(request, { ip });
  if (request.method === "POST" && pathname === "/checkout") {
    const visitor = { url: request.url, ip, userAgent: request.headers.get("user-agent") };
    return Response.json({ order: await placeOrder(tally, orders, (await request.json()).total, visitor) }, { status: 201 });
  }
  const response =
    pathname === "/"
      ? new Response('<h1>Hello</h1><script defer src="/analytics/script.js"></script>', { headers: { "content-type": "text/html" } })
      : new Response("Not found", { status: 404 });
  count(request, { ip, response });
  return response;
}

const server = serve({ fetch: fetchHandler, port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? "127.0.0.1" }, (info) =>
  console.log(`Listening on http://${info.address}:${info.port} (API: /analytics/api/v1)`),
);
server.once("error", (error) => exitOnListenError(error, tally));

async function shutdown() {
  server.close();
  await tally.close();
  process.exit(0);
}
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
