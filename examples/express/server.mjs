// Tally inside an Express app: the API under /analytics/api/v1, next to your own routes.
import { createTally } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";
import express from "express";
import { exitOnListenError } from "../listen-error.mjs";

const tally = createTally({ database: "file:./data/example.sqlite" });
if ((await tally.accounts.count()) === 0) {
  const { accountId, key } = await tally.accounts.create({ name: "example" });
  // The website of this app's own page, as it runs here: its tracker's pageviews count.
  await tally.websites.create(accountId, { domain: "127.0.0.1" });
  console.log(`Created an account. API key (shown once):\n${key}`);
}

const app = express();
app.get("/", (_req, res) => {
  res.type("html").send('<h1>Hello</h1><script defer src="/analytics/script.js"></script>');
});
app.use("/analytics", toNodeHandler(tally));

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
