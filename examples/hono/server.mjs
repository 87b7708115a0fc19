// Tally inside a Hono app (docs/guide/hono.md): the API under /analytics/api/v1 through the
// app's own sign-in, server-side pageviews of the app's pages, the tracker on them, and a
// purchase recorded in the app's own transaction.
import { serve } from "@hono/node-server";
import { createTally } from "@tally-analytics/core";
import { countPageviews } from "@tally-analytics/server";
import { tallyHono } from "@tally-analytics/server/hono";
import { Hono } from "hono";
import { exitOnListenError } from "../listen-error.mjs";
import { openOrders, placeOrder } from "../orders.mjs";

const tally = createTally({ database: "file:./data/example.sqlite" });
if ((await tally.accounts.count()) === 0) {
  const { accountId } = await tally.accounts.create({ name: "example" });
  await tally.websites.create(accountId, { domain: "127.0.0.1" }); // this page, as it runs here
}
// The app's own sign-in, cut down to a cookie (yours looks a session up): account 1's owner.
const accountOf = (request) => (/(?:^|;\s*)session=owner(?:;|$)/.test(request.headers.get("cookie") ?? "") ? 1 : null);
const count = countPageviews(tally, { exclude: ["/analytics"] });
const orders = openOrders("data/example.sqlite");

const app = new Hono();
app.use("*", async (c, next) => {
  await next();
  count(c.req.raw, { ip: c.env.incoming.socket.remoteAddress, response: c.res });
});
app.all("/analytics/*", tallyHono(tally, { authenticate: accountOf }));
app.get("/", (c) => c.html('<h1>Hello</h1><script defer src="/analytics/script.js"></script>'));
app.post("/checkout", async (c) => {
  const visitor = { url: c.req.url, ip: c.env.incoming.socket.remoteAddress, userAgent: c.req.header("user-agent") };
  return c.json({ order: await placeOrder(tally, orders, (await c.req.json()).total, visitor) }, 201);
});

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? "127.0.0.1" }, (info) =>
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
