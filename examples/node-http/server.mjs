// Tally on plain node:http: the whole server is Tally, API at /api/v1.
import { createServer } from "node:http";
import { createTally } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";
import { exitOnListenError } from "../listen-error.mjs";

const tally = createTally({ database: "file:./data/example.sqlite" });
if ((await tally.accounts.count()) === 0) {
  const { key } = await tally.accounts.create({ name: "example" });
  console.log(`Created an account. API key (shown once):\n${key}`);
}

const server = createServer(toNodeHandler(tally));
server.once("error", (error) => exitOnListenError(error, tally));
server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address();
  console.log(`Listening on http://${address.includes(":") ? `[${address}]` : address}:${port} (API: /api/v1)`);
});

async function shutdown() {
  server.close();
  server.closeAllConnections();
  await tally.close();
  process.exit(0);
}
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
