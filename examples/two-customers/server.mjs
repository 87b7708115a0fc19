// Analytics inside your product: a SaaS app (an Express app) whose customers each see their
// own site's traffic on a page of the app, drawn by Tally's web components. The app's own
// sign-in (here a cookie naming the customer; a real app checks its session) is Tally's
// `authenticate` hook, so each customer's browser reads the API as that customer's account:
// the other customer's site answers 404 to them.
//   node server.mjs   then open http://127.0.0.1:3000/sign-in/alice (or /sign-in/bob)
import { mkdirSync } from "node:fs";
import { createTally } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";
import express from "express";
import { exitOnListenError } from "../listen-error.mjs";

const database = process.env.DATABASE_URL ?? "file:./data/two-customers.sqlite";
if (database.startsWith("file:./data/")) mkdirSync("data", { recursive: true });
const tally = createTally({ database });

/** The app's customers: each an account of Tally with one website, created on the first start. */
const CUSTOMERS = {
  alice: { domain: "alice-shop.example", pages: ["/", "/shoes", "/shoes", "/checkout"] },
  bob: { domain: "bob-books.example", pages: ["/", "/novels"] },
};
const customers = new Map();
for (const [name, { domain, pages }] of Object.entries(CUSTOMERS)) {
  const existing = (await tally.accounts.list()).find((account) => account.name === name);
  const accountId = existing?.id ?? (await tally.accounts.create({ name })).accountId;
  let [site] = (await tally.websites.list(accountId)).data;
  if (!site) {
    site = await tally.websites.create(accountId, { domain });
    // A little traffic, so that the page has something to show.
    for (const [i, page] of pages.entries()) {
      await tally.collect({
        url: `https://${domain}${page}`,
        ip: `192.0.2.${i + 1}`,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
      });
    }
  }
  customers.set(name, { accountId, siteId: site.id });
}

const customerOf = (cookie) => customers.get(/(?:^|;\s*)customer=(\w+)/.exec(cookie ?? "")?.[1] ?? "");

const app = express();
app.use("/analytics", toNodeHandler(tally, { authenticate: (request) => customerOf(request.headers.get("cookie"))?.accountId ?? null }));
app.get("/sign-in/:name", (req, res) => {
  if (!customers.has(req.params.name)) return void res.status(404).send("No such customer.");
  res.cookie("customer", req.params.name, { httpOnly: true, sameSite: "lax" }).redirect("/traffic");
});
app.get("/traffic", (req, res) => {
  const customer = customerOf(req.get("cookie"));
  if (!customer)
    return void res.status(401).type("html").send('Sign in first: <a href="/sign-in/alice">alice</a> or <a href="/sign-in/bob">bob</a>.');
  const api = "/analytics/api/v1";
  const site = customer.siteId;
  res
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your traffic</title>` +
        `<script src="/analytics/assets/components.js"></script></head><body><main><h1>Your traffic</h1>` +
        `<tally-totals api="${api}" site="${site}"></tally-totals>` +
        `<tally-chart api="${api}" site="${site}" name="pageviews" days="7"></tally-chart>` +
        `<tally-top api="${api}" site="${site}" name="page" limit="5"></tally-top></main></body></html>`,
    );
});

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1", (error) => {
  if (error) return exitOnListenError(error, tally);
  const { address, port } = server.address();
  console.log(`Listening on http://${address}:${port} (sign in at /sign-in/alice or /sign-in/bob)`);
});

async function shutdown() {
  server.close();
  await tally.close();
  process.exit(0);
}
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
