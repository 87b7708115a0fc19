// Tally as a Fastify plugin: the API under /analytics/api/v1, next to your own routes.
import { createTally } from "@tally-analytics/core";
import { tallyPlugin } from "@tally-analytics/server/fastify";
import Fastify from "fastify";

const tally = createTally({ database: "file:./data/example.sqlite" });
if ((await tally.accounts.count()) === 0) {
  const { key } = await tally.accounts.create({ name: "example" });
  console.log(`Created an account. API key (shown once):\n${key}`);
}

const app = Fastify({ logger: true });
app.get("/", async (_request, reply) => {
  return reply.type("text/html").send('<h1>Hello</h1><script defer src="/analytics/script.js"></script>');
});
await app.register(tallyPlugin, { tally, prefix: "/analytics" });

const port = Number(process.env.PORT ?? 3000);
await app.listen({ port });

async function shutdown() {
  await app.close();
  await tally.close();
  process.exit(0);
}
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
