// An app that only collects holds only the code that collects: in a new Node process, an
// Express-style app imports core and the Node adapter by package name, creates Tally on a
// SQLite file with its account and website, and counts hits through /collect and the
// pageview middleware. Every file the process loaded is recorded (a module hook); none of
// Tally's may hold the statistics, the API's routes and schemas, teams, reports, alerts or
// imports (the bundles keep their functions' names). Then a statistic is asked for, and
// that code loads and answers.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { runProcess } from "../support/shell.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
mkdirSync(join(ROOT, ".vitest-tmp"), { recursive: true });
const work = mkdtempSync(join(ROOT, ".vitest-tmp", "collecting-only-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const LOADED = join(work, "loaded.txt");

/** Records the URL of every file the process loads, one a line. */
const hooks = `
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(${JSON.stringify(LOADED)}, url + "\\n");
  return next(url, context);
}`;

const app = `
import { register } from "node:module";
import { createServer, request } from "node:http";
register(${JSON.stringify(new URL(`file://${join(work, "hooks.mjs")}`).href)});
const { createTally } = await import("@tally-analytics/core");
const { toNodeHandler, countPageviews } = await import("@tally-analytics/server/node");
const tally = createTally({ database: "file:" + ${JSON.stringify(join(work, "app.sqlite"))}, trustProxy: true });
const { accountId } = await tally.accounts.create({ name: "shop" });
const website = await tally.websites.create(accountId, { domain: "shop.example" });
const handler = toNodeHandler(tally);
const pageviews = countPageviews(tally);
const server = createServer((req, res) =>
  req.url.startsWith("/analytics") ? ((req.url = req.url.slice("/analytics".length)), handler(req, res)) : pageviews(req, res, () => res.writeHead(200, { "content-type": "text/html" }).end("<p>page</p>")),
);
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = server.address().port;
/** A request with any headers (fetch would not send Host), answering its status. */
const send = (method, path, headers, body) =>
  new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => res.resume().on("end", () => resolve(res.statusCode)));
    req.on("error", reject).end(body);
  });
const userAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const statuses = [];
for (let i = 0; i < 3; i++) {
  const headers = { "content-type": "text/plain", "user-agent": userAgent, "x-forwarded-for": "198.51.100." + i };
  statuses.push(await send("POST", "/analytics/collect", headers, JSON.stringify({ u: "https://shop.example/p" + i, r: "https://news.example/" })));
}
const page = { host: "shop.example", accept: "text/html", "sec-fetch-dest": "document", "user-agent": userAgent, "x-forwarded-for": "203.0.113.9" };
statuses.push(await send("GET", "/pricing", page));
await tally.flush();
const { readFileSync, writeFileSync } = await import("node:fs");
writeFileSync(${JSON.stringify(join(work, "collected.txt"))}, readFileSync(${JSON.stringify(LOADED)}, "utf8"));
const day = new Date().toISOString().slice(0, 10);
const views = await tally.stats.query(accountId, website.id, { name: "pageviews", from: day, to: day });
console.log(JSON.stringify({ statuses, pageviews: views.data.reduce((sum, row) => sum + row.count, 0) }));
server.close();
await tally.close();
`;

/** Functions of the code an app that only collects never calls, as the bundles name them. */
const NOT_COLLECTING = [
  "function createStats(",
  "function openManagement(",
  "function createHandler(",
  "function createTeam(",
  "function createReports(",
  "function createAlerts(",
  "function runImport(",
];

/** Tally's bundle files among the loaded ones. */
const tallyFiles = (list: string) =>
  list
    .split("\n")
    .filter((url) => /\/packages\/(core|server)\/dist\/bundle\//.test(url))
    .map((url) => fileURLToPath(url));

const holding = (files: readonly string[], name: string) => files.filter((file) => readFileSync(file, "utf8").includes(name));

it("loads only what collects until a statistic is asked for", { timeout: 60_000 }, async () => {
  writeFileSync(join(work, "hooks.mjs"), hooks);
  writeFileSync(join(work, "app.mjs"), app);
  const result = await runProcess(process.execPath, [join(work, "app.mjs")], ROOT);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  // Three hits and a page, every one counted: the statistic answered once asked.
  expect(JSON.parse(result.stdout)).toEqual({ statuses: [202, 202, 202, 200], pageviews: 4 });

  const collecting = tallyFiles(readFileSync(join(work, "collected.txt"), "utf8"));
  expect(collecting.length).toBeGreaterThan(0);
  expect(holding(collecting, "function createCollector(").length).toBe(1);
  for (const name of NOT_COLLECTING) expect(holding(collecting, name), name).toEqual([]);
  const afterStats = tallyFiles(readFileSync(LOADED, "utf8"));
  expect(holding(afterStats, "function createStats(").length).toBe(1);
});
