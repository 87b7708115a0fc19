// A small Express app in its own process, as an app developer would write it: a hello
// route, and with `--tally on` Tally created (SQLite file) and mounted under /analytics.
//   node bench/suites/footprint-app.mjs --tally on|off
// Sends { port } over IPC when listening; on "stop" closes (Tally flushes) and sends
// { recorded } (the pageviews and events Tally counted), then exits.
import express from "express";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOMAIN } from "../generate.mjs";
import { args } from "../lib/measure.mjs";
import { importDist } from "../lib/paths.mjs";

const withTally = args().tally === "on";
const dir = mkdtempSync(join(tmpdir(), "tally-bench-footprint-"));
const app = express();
app.get("/hello", (_req, res) => res.send("hello"));
app.post("/hello", (_req, res) => res.status(202).json({ status: 202 }));

let tally = null;
let site = null;
if (withTally) {
  const { createTally } = await importDist("core");
  const { toNodeHandler } = await importDist("node");
  tally = createTally({ database: `file:${join(dir, "tally.sqlite")}`, trustProxy: true });
  const { accountId } = await tally.accounts.create({ name: "footprint" });
  site = { accountId, ...(await tally.websites.create(accountId, { domain: DOMAIN, timezone: "UTC" })) };
  app.use("/analytics", toNodeHandler(tally));
}

const server = await new Promise((resolve) => {
  const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
});

process.on("message", async (message) => {
  if (message !== "stop") return;
  setTimeout(() => process.exit(0), 5000).unref(); // idle keep-alive sockets would hold close() open
  await new Promise((resolve) => server.close(resolve));
  let recorded = null;
  if (tally) {
    const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const query = (name) => tally.stats.query(site.accountId, site.id, { name, from: day(-1), to: day(1), per_page: 100 });
    const sum = (page) => page.data.reduce((total, row) => total + row.count, 0);
    recorded = sum(await query("pageviews")) + sum(await query("event"));
    await tally.close();
  }
  rmSync(dir, { recursive: true, force: true });
  process.send({ recorded }, () => process.exit(0));
});
process.send({ port: server.address().port });
