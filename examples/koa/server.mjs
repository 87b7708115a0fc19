// Tally inside a Koa app (docs/guide/koa.md): the API under /analytics/api/v1 through the
// app's own sign-in, server-side pageviews of the app's pages, the tracker on them, and a
// purchase recorded in the app's own transaction.
import { createTally } from "@tally-analytics/core";
import { countPageviews, toNodeHandler } from "@tally-analytics/server/node";
import Koa from "koa";
import { json } from "node:stream/consumers";
import { exitOnListenError } from "../listen-error.mjs";
import { openOrders, placeOrder } from "../orders.mjs";

const tally = createTally({ database: "file:./data/example.sqlite" });
if ((await tally.accounts.count()) === 0) {
  const { accountId } = await tally.accounts.create({ name: "example" });
  await tally.websites.create(accountId, { domain: "127.0.0.1" }); // this page, as it runs here
}
// The app's own sign-in, cut down to a cookie (yours looks a session up): account 1's owner.
const accountOf = (request) => (/(?:^|;\s*)session=owner(?:;|$)/.test(request.headers.get("cookie") ?? "") ? 1 : null);
// Koa does not tell a middleware where it is mounted: the prefix is an option.
const analytics = toNodeHandler(tally, { basePath: "/analytics", authenticate: accountOf });
const count = countPageviews(tally, { exclude: ["/analytics"] });
const orders = openOrders("data/example.sqlite");

const app = new Koa();
app.use(async (ctx, next) => {
  if (ctx.path !== "/analytics" && !ctx.path.startsWith("/analytics/")) return next();
  ctx.respond = false; // Tally writes the answer itself
  await analytics(ctx.req, ctx.res);
});
app.use((ctx, next) => new Promise((resolve, reject) => count(ctx.req, ctx.res, () => next().then(resolve, reject))));
app.use(async (ctx, next) => {
  if (ctx.method !== "POST" || ctx.path !== "/checkout") return next();
  const visitor = { url: ctx.href, ip: ctx.req.socket.remoteAddress, userAgent: ctx.get("user-agent") };
  ctx.status = 201;
  ctx.body = { order: await placeOrder(tally, orders, (await json(ctx.req)).total, visitor) };
});
app.use((ctx) => {
  if (ctx.path !== "/") return;
  ctx.type = "html";
  ctx.body = '<h1>Hello</h1><script defer src="/analytics/script.js"></script>';
});

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address();
  console.log(`Listening on http://${address}:${port} (API: /analytics/api/v1)`);
});
server.once("error", (error) => exitOnListenError(error, tally));

async function shutdown() {
  server.close();
  await tally.close();
  process.exit(0);
}
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
