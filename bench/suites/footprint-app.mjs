// A small Express app in its own process, as an app developer would write it: a hello
// route, and with `--tally on` Tally created (SQLite file) and mounted under /analytics.
//   node bench/suites/footprint-app.mjs --tally on|off
// Talks to the runner as bench/lib/app-process.mjs says.
import express from "express";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOMAIN } from "../generate.mjs";
import { serveRunner } from "../lib/app-process.mjs";
import { args } from "../lib/measure.mjs";

const withTally = args().tally === "on";
const dir = mkdtempSync(join(tmpdir(), "tally-bench-footprint-"));
const app = express();
app.get("/hello", (_req, res) => res.send("hello"));
app.post("/hello", (_req, res) => res.status(202).json({ status: 202 }));

let tally = null;
let site = null;
if (withTally) {
  // By package name, through the packages' exports, as an app imports them.
  const { createTally } = await import("@tally-analytics/core");
  const { toNodeHandler } = await import("@tally-analytics/server/node");
  tally = createTally({ database: `file:${join(dir, "tally.sqlite")}`, trustProxy: true });
  const { accountId } = await tally.accounts.create({ name: "footprint" });
  site = { accountId, ...(await tally.websites.create(accountId, { domain: DOMAIN, timezone: "UTC" })) };
  app.use("/analytics", toNodeHandler(tally));
}

const server = await new Promise((resolve) => {
  const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
});

serveRunner({ port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)), tally, site, dir });
