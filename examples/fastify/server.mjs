// Tally as a Fastify plugin (docs/guide/getting-started.md): the API under /analytics/api/v1
// through the app's own sign-in, server-side pageviews of the app's pages, the tracker on
// them, and a purchase recorded in the app's own transaction.
import { createTally } from "@tally-analytics/core";
import { tallyPageviews, tallyPlugin } from "@tally-analytics/server/fastify";
import Fastify from "fastify";
import { exitOnListenError } from "../listen-error.mjs";
import { openOrders, placeOrder } from "../orders.mjs";

const tally = createTally({ database: "file:./data/example.sqlite" });
if ((await tally.accounts.count()) === 0) {
  const { accountId } = await tally.accounts.create({ name: "example" });
  await tally.websites.create(accountId, { domain: "127.0.0.1" }); // this page, as it runs here
}
// The app's own sign-in, cut down to a cookie (yours looks a session up): account 1's owner.
const accountOf = (request) => (/(?:^|;\s*)session=owner(?:;|$)/.test(request.headers.get("cookie") ?? "") ? 1 : null);
const orders = openOrders("data/example.sqlite");

// No `logger: true`: Fastify's request log would write every visitor's IP address.
const app = Fastify();
await app.register(tallyPlugin, { tally, prefix: "/analytics", authenticate: accountOf });
await app.register(tallyPageviews, { tally, exclude: ["/analytics"] }); // every route of the app
app.get("/", async (_request, reply) => {
  return reply.type("text/html").send('<h1>Hello</h1><script defer src="/analytics/script.js"></script>');
});
app.post("/checkout", async (request, reply) => {
  const visitor = {
    url: `${request.protocol}://${request.host}${request.url}`,
    ip: request.socket.remoteAddress,
    userAgent: request.headers["user-agent"],
  };
  return reply.code(201).send({ order: await placeOrder(tally, orders, request.body.total, visitor) });
});

const address = await app
  .listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? "127.0.0.1" })
  .catch((error) => exitOnListenError(error, tally));
console.log(`Listening on ${address} (API: /analytics/api/v1)`);

async function shutdown() {
  await app.close();
  await tally.close();
  process.exit(0);
}
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
