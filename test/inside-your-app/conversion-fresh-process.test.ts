// The conversion snippet of docs/guide/inside-your-app.md, run from the page's text in a new
// Node process on a SQLite file: the day's salt not yet made, nothing counted yet in that
// process, then again while the process counts pageviews and flushes every few milliseconds.
// The app's transaction never waits for Tally's own writer: each order commits at once.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { codeBlocks, docPage, section } from "../support/readme.js";
import { runProcess } from "../support/shell.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
mkdirSync(join(ROOT, ".vitest-tmp"), { recursive: true });
const work = mkdtempSync(join(ROOT, ".vitest-tmp", "conversion-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const snippet = codeBlocks(section("Conversions in your own transaction", docPage("guide/inside-your-app.md")))[0]!.body;

const script = (body: string) => `
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { createTally } from "@tally-analytics/core";
import { recorded } from "@tally-analytics/core/testing";
const file = ${JSON.stringify(join(work, "app.sqlite"))};
const tally = createTally({ database: "file:" + file, flushIntervalMs: Number(process.env.FLUSH_MS ?? 1000) });
const db = new Kysely({ dialect: new SqliteDialect({ database: new Database(file) }) });
const url = "https://shop.example/checkout";
const userAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
await tally.ready(); // the app opened Tally at its start, as the guide says
const times = [];
async function purchase(cart, req) {
  const began = performance.now();
${body}
  times.push(Math.round(performance.now() - began));
}
${"$"}{MAIN}
console.log(JSON.stringify({ times, recorded: await recorded(tally, "shop.example") }));
await db.destroy();
await tally.close();
`;

it("runs in a new process without waiting for Tally's writer, also under load", { timeout: 60_000 }, async () => {
  expect(snippet).toContain("await tally.record(");
  const setup = `
import { createTally } from "@tally-analytics/core";
const tally = createTally({ database: "file:" + ${JSON.stringify(join(work, "app.sqlite"))} });
const { accountId } = await tally.accounts.create({ name: "shop" });
await tally.websites.create(accountId, { domain: "shop.example" });
await tally.close();
const { default: Database } = await import("better-sqlite3");
const db = new Database(${JSON.stringify(join(work, "app.sqlite"))});
db.exec("create table orders (id integer primary key, total integer not null)");
db.close();`;
  const run = async (name: string, main: string, env: Record<string, string> = {}) => {
    writeFileSync(join(work, name), script(snippet).replace("${MAIN}", main));
    const result = await runProcess(process.execPath, [join(work, name)], ROOT, env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as { times: number[]; recorded: Record<string, number> };
  };
  writeFileSync(join(work, "setup.mjs"), setup);
  expect((await runProcess(process.execPath, [join(work, "setup.mjs")], ROOT)).code).toBe(0);

  // A new process, the day's salt not made yet: before, SQLITE_BUSY after the busy timeout and the order rolled back.
  const fresh = await run("fresh.mjs", `await purchase({ total: 42 }, { ip: "198.51.100.23" });`);
  expect(fresh.recorded).toEqual({ Purchase: 1 });
  expect(fresh.times[0]).toBeLessThan(2_000);

  // Under load: pageviews counted and flushed every 5 ms while 20 orders commit.
  const loaded = await run(
    "load.mjs",
    `let stop = false;
const load = (async () => { for (let i = 0; !stop; i++) { await tally.collect({ url: "https://shop.example/p" + (i % 50), ip: "203.0.113." + (i % 200), userAgent }); if (i % 20 === 0) await new Promise((r) => setImmediate(r)); } })();
for (let i = 0; i < 20; i++) await purchase({ total: i }, { ip: "192.0.2." + i });
stop = true;
await load;`,
    { FLUSH_MS: "5" },
  );
  expect(loaded.recorded).toEqual({ Purchase: 21 });
  expect(Math.max(...loaded.times)).toBeLessThan(2_000);
});
