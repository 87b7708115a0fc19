// Tally inside an Express app (docs/guide/express.md): the API under /analytics/api/v1 through
// the app's own sign-in, server-side pageviews of the app's pages, the tracker on them, and a
// purchase recorded in the app's own transaction.
import { createTally } from "@tally-analytics/core";
import { countPageviews, toNodeHandler } from "@tally-analytics/server/node";
import express from "express";
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

const app = express();
app.use("/analytics", toNodeHandler(tally, { authenticate: accountOf }));
app.use(countPageviews(tally)); // after Tally's mount: the app's pages, counted by the server
app.get("/", (_req, res) => {
  res.type("html").send('<h1>Hello</h1><script defer src="/analytics/script.js"></script>');
});
app.post("/checkout", express.json(), async (req, res) => {
  const visitor = {
    url: `${req.protocol}://${req.get("host")}${req.originalUrl}`,
    ip: req.socket.remoteAddress,
    userAgent: req.get("user-agent"),
  };
  res.status(201).json({ order: await placeOrder(tally, orders, req.body.total, visitor) });
});

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1", (error) => {
  if (error) return exitOnListenError(error, tally);
  const { address, port } = server.address();
  console.log(`Listening on http://${address.includes(":") ? `[${address}]` : address}:${port} (API: /analytics/api/v1)`);
});

async function shutdown() {
  server.close();
  await tally.close();
  process.exit(0);
}
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
