// One HTTP server in its own process (so autocannon does not share its event loop):
// Tally's /collect, or a hello-world /collect of the same framework; or an app's HTML page
// with Tally's server-side pageviews (`pages`) or without (`plain-pages`); or an Express
// app's hello-world `GET /hello` (read from a file) beside Tally's sign-in pages under `/analytics`, with
// password checks bounded as Tally bounds them (`sign-in`) or not at all (`sign-in-unbounded`).
//   node bench/suites/http-server.mjs --framework node|express|fastify --kind tally|hello|pages|plain-pages|sign-in|sign-in-unbounded
// Sends { port } over IPC when listening; on "stop" closes (flushing Tally) and sends
// { recorded } (pageviews + events Tally counted), then exits.
import { mkdtempSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOMAIN } from "../generate.mjs";
import { serveRunner } from "../lib/app-process.mjs";
import { args } from "../lib/measure.mjs";
import { importDist } from "../lib/paths.mjs";
import { EXCLUDE_PARAMS } from "../lib/stats-db.mjs";

const { framework, kind } = args();
let tally = null;
let site = null;
const dir = mkdtempSync(join(tmpdir(), "tally-bench-http-"));
if (kind === "tally" || kind === "pages" || kind.startsWith("sign-in")) {
  const { createTally } = await importDist("core");
  // Behind a load balancer: X-Forwarded-For names the (generated) visitor's address.
  // Unbounded: as many checks at once as requests arrive (what Tally did before it bounded them).
  const passwords = kind === "sign-in-unbounded" ? { passwords: { concurrent: 1000, queued: 0 } } : {};
  tally = createTally({ database: `file:${join(dir, "tally.sqlite")}`, trustProxy: true, ...passwords });
  const { accountId } = await tally.accounts.create({ name: "bench" });
  site = { accountId, ...(await tally.websites.create(accountId, { domain: DOMAIN, timezone: "UTC", exclude_params: EXCLUDE_PARAMS })) };
}

/** The app's page, the same for both page kinds. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Pricing</title></head><body>${"<p>Plans and prices.</p>".repeat(40)}</body></html>`;

let close;
let port;
if (framework === "node") {
  const listener = tally ? (await importDist("node")).toNodeHandler(tally) : (_req, res) => res.end("ok");
  const server = http.createServer(listener);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = server.address().port;
  close = () => new Promise((resolve) => server.close(resolve));
} else if (framework === "express") {
  const { default: express } = await import("express");
  const app = express();
  if (kind === "pages") app.use((await importDist("node")).countPageviews(tally));
  if (kind.startsWith("sign-in")) {
    // As most app routes do something on libuv's thread pool (a template, a static file), this one reads a file.
    const { readFile, writeFile } = await import("node:fs/promises");
    const greeting = join(dir, "hello.txt");
    await writeFile(greeting, "Hello, world!");
    app.get("/hello", async (_req, res) => res.type("text").send(await readFile(greeting)));
    app.use("/analytics", (await importDist("node")).toNodeHandler(tally));
  } else if (kind.endsWith("pages")) app.get("/pricing/:plan", (_req, res) => res.type("html").send(PAGE));
  else if (tally) app.use((await importDist("node")).toNodeHandler(tally));
  else app.post("/collect", (_req, res) => res.status(202).json({ status: 202 }));
  const server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  port = server.address().port;
  close = () => new Promise((resolve) => server.close(resolve));
} else if (framework === "fastify") {
  const { default: Fastify } = await import("fastify");
  const app = Fastify();
  if (kind === "pages") await app.register((await importDist("fastify")).tallyPageviews, { tally });
  if (kind.endsWith("pages")) app.get("/pricing/:plan", async (_request, reply) => reply.type("text/html").send(PAGE));
  else if (tally) await app.register((await importDist("fastify")).tallyPlugin, { tally });
  else app.post("/collect", async (_request, reply) => reply.code(202).send({ status: 202 }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  port = app.server.address().port;
  close = () => app.close();
} else throw new Error(`unknown framework ${framework}`);

serveRunner({ port, close, tally, site, dir });
