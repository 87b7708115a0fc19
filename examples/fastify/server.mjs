// Tally as a Fastify plugin: the API under /analytics/api/v1, next to your own routes.
import { createTally } from "@tally-analytics/core";
import { tallyPlugin } from "@tally-analytics/server/fastify";
import Fastify from "fastify";
import { exitOnListenError } from "../listen-error.mjs";

const tally = createTally({ database: "file:./data/example.sqlite" });
if ((await tally.accounts.count()) === 0) {
  const { key } = await tally.accounts.create({ name: "example" });
  console.log(`Created an account. API key (shown once):\n${key}`);
}

// No `logger: true`: Fastify's request log would write every visitor's IP address.
const app = Fastify();
app.get("/", async (_request, reply) => {
  return reply.type("text/html").send('<h1>Hello</h1><script defer src="/analytics/script.js"></script>');
});
await app.register(tallyPlugin, { tally, prefix: "/analytics" });

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
