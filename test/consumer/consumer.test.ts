/**
 * Tally as a user gets it: every package packed as it would be published, installed with
 * npm (not pnpm, not this workspace) into a new app in a temporary folder outside the
 * repository, with Express 5, Fastify 5, Hono, Koa, Next.js 16 and NestJS 12. The app runs
 * every framework guide's example (Next.js from `next build`, NestJS compiled by tsc), each
 * buys once in the app's own transaction, serves a page counted by the server alone and one
 * Chromium loads with the tracker, and the pageviews and the purchase are read back through
 * the API and the app's own sign-in; the embedding code of the README and of Getting
 * started type-checks against the installed types; the `tally` binary from the tarball runs.
 *
 * better-sqlite3: npm installs it from the registry and runs its install script
 * (prebuild-install, then node-gyp). Without network access to GitHub that compiles
 * SQLite from source (1-2 minutes). When this workspace has compiled the same version
 * for the same Node, the app asks for that version and prebuild-install is pointed at a
 * tarball of the workspace's binary through its documented setting
 * (npm_config_better_sqlite3_local_prebuilds), which is exactly what it would otherwise
 * download. TALLY_CONSUMER_COMPILE=1 compiles instead.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPackage, packPackages, type PackedPackage } from "../../scripts/pack.mjs";
import { launchChromium, skipWithoutChromium, warnIfSkipped } from "../support/chromium.js";
import { codeBlocks, docPage, section } from "../support/readme.js";
import { runProcess } from "../support/shell.js";

warnIfSkipped("consumer (browser part)");

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SETUP_TIMEOUT_MS = 10 * 60_000;
const work = mkdtempSync(join(tmpdir(), "tally-consumer-"));
const app = join(work, "app");
const timings: Record<string, number> = {};
const workspaceRequire = createRequire(import.meta.url);

async function timed<T>(name: string, step: () => Promise<T> | T): Promise<T> {
  const began = performance.now();
  try {
    return await step();
  } finally {
    timings[name] = Math.round(performance.now() - began);
  }
}

/** The workspace's better-sqlite3: its version and, if compiled, a prebuild-install tarball of its binary. */
function workspaceSqlitePrebuild(): { version: string; directory: string | null } {
  const pkgDir = dirname(workspaceRequire.resolve("better-sqlite3/package.json"));
  const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string };
  const binary = join(pkgDir, "build", "Release", "better_sqlite3.node");
  if (process.env.TALLY_CONSUMER_COMPILE === "1" || !existsSync(binary)) return { version, directory: null };
  const directory = join(work, "prebuilds");
  mkdirSync(directory, { recursive: true });
  // prebuild-install's file name: {name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const packedBinary = spawnSync("tar", ["-czf", join(directory, name), "build/Release/better_sqlite3.node"], { cwd: pkgDir });
  return { version, directory: packedBinary.status === 0 ? directory : null };
}

/** The README's install command in an app, with the packed tarballs for its glob and the workspace's better-sqlite3 version. */
function installArguments(packed: readonly PackedPackage[], sqliteVersion: string): string[] {
  const line = codeBlocks(section("Embedding"))[0]!
    .body.split("\n")
    .find((text) => text.startsWith("npm install"))!
    .replace(/#.*/, "")
    .trim();
  const words = line.split(/\s+/);
  expect(words.slice(0, 3)).toEqual(["npm", "install", "../tally/tarballs/*.tgz"]);
  expect(words).toContain("better-sqlite3");
  const named = words.slice(3).map((word) => (word === "better-sqlite3" ? `better-sqlite3@${sqliteVersion}` : word));
  return [...packed.map((pkg) => pkg.tarball), ...named];
}

/** `name@version` of every package the installed packages in `roots` depend on (not their peers), found as Node finds them. */
function installedDependencies(roots: readonly string[]): Set<string> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const manifest = (directory: string) =>
    JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as { name: string; version: string; dependencies?: object };
  const locate = (from: string, name: string): string | null => {
    for (let directory = from; directory.startsWith(app); directory = dirname(directory)) {
      const candidate = join(directory, "node_modules", name);
      if (existsSync(join(candidate, "package.json"))) return candidate;
    }
    return null;
  };
  const visit = (directory: string) => {
    if (seen.has(directory)) return;
    seen.add(directory);
    for (const name of Object.keys(manifest(directory).dependencies ?? {})) {
      const installed = locate(directory, name);
      if (!installed) continue;
      const { version } = manifest(installed);
      found.add(`${name}@${version}`);
      visit(installed);
    }
  };
  roots.forEach(visit);
  return found;
}

interface Running {
  child: ChildProcess;
  stdout: string;
  base: string;
  key: string;
  /** Ends it with SIGTERM; answers its exit code, or the signal that ended it. */
  stop(): Promise<number | NodeJS.Signals | null>;
}

/** How an example is started, and the line that says where it listens (its first group: the base URL). */
interface Launch {
  command: string;
  args: string[];
  listening: RegExp;
  env?: Record<string, string>;
  /** How it ends on SIGTERM once it has closed: our examples exit 0. */
  stopped: number | NodeJS.Signals;
}

const NODE_EXAMPLE: Launch = {
  command: process.execPath,
  args: ["server.mjs"],
  listening: /^Listening on (http:\/\/127\.0\.0\.1:\d+) \(API: (?:\/analytics)?\/api\/v1\)$/m,
  stopped: 0,
};

/** Starts one of the examples copied into the app; resolves once it says where it listens. */
function startExample(directory: string, launch: Launch = NODE_EXAMPLE): Promise<Running> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", ...launch.env };
  delete env.HOST;
  const child = spawn(launch.command, launch.args, { cwd: directory, env, stdio: ["ignore", "pipe", "pipe"] });
  const state = { stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (state.stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (state.stderr += chunk));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening within 30 s:\n${state.stdout}\n${state.stderr}`)), 30_000);
    exited.then((code) => reject(new Error(`exited (${code}) before listening:\n${state.stdout}\n${state.stderr}`)));
    child.stdout!.on("data", () => {
      const listening = launch.listening.exec(state.stdout);
      if (!listening) return;
      clearTimeout(timer);
      resolve({
        child,
        get stdout() {
          return state.stdout;
        },
        base: listening[1]!,
        key: /^(tly_[\w-]+)$/m.exec(state.stdout)?.[1] ?? "",
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
  });
}

let packed: PackedPackage[] = [];
let installOutput = "";
/** The Next.js build and the NestJS compile, started once the install is done: they run beside the other tests. */
let frameworkApps: Promise<void> = Promise.resolve();

beforeAll(async () => {
  if (!existsSync(join(ROOT, "packages", "cli", "dist", "bin.js"))) throw new Error("run `pnpm build` first");
  packed = await timed("pack", () => packPackages(join(work, "tarballs")));
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "tally-consumer-app", private: true, type: "module" }, null, 2)}\n`);
  const sqlite = workspaceSqlitePrebuild();
  const args = [
    "install",
    ...installArguments(packed, sqlite.version),
    "fastify@^5",
    "hono@^4",
    "@hono/node-server@^1",
    "koa@^3",
    "next@^16",
    "react@^19",
    "react-dom@^19",
    "@nestjs/core@^12",
    "@nestjs/common@^12",
    "@nestjs/platform-express@^12",
    "reflect-metadata@^0.2",
    "rxjs@^7",
    "@types/node@^20",
    "@types/express@^5",
    "@types/better-sqlite3@^7",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
  ];
  const env = sqlite.directory ? { npm_config_better_sqlite3_local_prebuilds: sqlite.directory } : {};
  const installed = await timed("npm install", () => runProcess("npm", args, app, env));
  if (installed.code !== 0) throw new Error(`npm install failed (${installed.code}):\n${installed.stdout}\n${installed.stderr}`);
  installOutput = installed.stdout + installed.stderr;
  frameworkApps = buildFrameworkApps();
  frameworkApps.catch(() => {}); // reported by the tests that need them
  console.log(
    `[consumer] better-sqlite3 ${sqlite.version}: ${sqlite.directory ? "the workspace's compiled binary, through prebuild-install" : "compiled from source"}`,
  );
}, SETUP_TIMEOUT_MS);

afterAll(() => {
  console.log(`[consumer] timings (ms): ${JSON.stringify(timings)}`);
  rmSync(work, { recursive: true, force: true });
});

describe("the packed packages, installed by npm into an app outside the repository", () => {
  it("every tarball passes the release check (real version ranges, entry points, types, licence, README, engines)", () => {
    expect(packed.map((pkg) => pkg.name).sort()).toEqual([
      "@tally-analytics/cli",
      "@tally-analytics/client",
      "@tally-analytics/core",
      "@tally-analytics/dashboard",
      "@tally-analytics/server",
      "@tally-analytics/tracker",
    ]);
    for (const pkg of packed) expect(checkPackage(pkg, packed), pkg.name).toEqual([]);
    const server = packed.find((pkg) => pkg.name === "@tally-analytics/server")!;
    expect(server.manifest.dependencies["@tally-analytics/core"]).toBe(`^${server.version}`);
  });

  it("installs without warnings: no engine mismatch on Node 20, every bin created; drivers are the app's", async () => {
    expect(installOutput).not.toMatch(/Failed to create bin/);
    // Engine warnings of the app's other packages may remain (fastify 5 pulls a cookie for Node 22): none a
    // dependency of a Tally package (a peer, such as fastify, is the app's own).
    const flagged = [...installOutput.matchAll(/EBADENGINE\s+package: '(@?[^@']+@[^']+)'/g)].map((match) => match[1]!);
    const tallys = packed.map((pkg) => join(app, "node_modules", pkg.name));
    expect(flagged.filter((spec) => installedDependencies(tallys).has(spec))).toEqual([]);
    // pg is a peer dependency the app did not install: one error naming it.
    const script = `import { createTally } from "@tally-analytics/core";
const tally = createTally({ database: "postgres://127.0.0.1:1/none" });
try { await tally.ready(); } catch (error) { console.log(error.message); }`;
    writeFileSync(join(app, "no-pg.mjs"), script);
    expect(existsSync(join(app, "node_modules", "pg"))).toBe(false);
    const run = await runProcess(process.execPath, ["no-pg.mjs"], app);
    expect(run.stdout.trim()).toBe(
      'Cannot open the database postgres://127.0.0.1:1/none: Tally needs the package "pg" for PostgreSQL databases: install it in your app (npm install pg).',
    );
  });

  it("installs real copies (not links into the repository), with Express 5 and Fastify 5", () => {
    for (const name of ["core", "server", "tracker", "dashboard", "cli", "client"]) {
      const installed = join(app, "node_modules", "@tally-analytics", name);
      expect(existsSync(join(installed, "package.json"))).toBe(true);
      expect(realpathSync(installed).startsWith(ROOT)).toBe(false);
      expect(readFileSync(join(installed, "package.json"), "utf8")).not.toContain("workspace:");
    }
    const major = (name: string) =>
      (JSON.parse(readFileSync(join(app, "node_modules", name, "package.json"), "utf8")) as { version: string }).version.split(".")[0];
    expect([major("express"), major("fastify")]).toEqual(["5", "5"]);
  });

  it("the embedding code of the README and of Getting started type-checks against the installed types", { timeout: 120_000 }, async () => {
    const embedding = [section("Embedding"), section("Embedding", docPage("guide/getting-started.md"))];
    const blocks = embedding.flatMap((text) => codeBlocks(text).filter((block) => block.lang === "ts"));
    expect(blocks.map((block) => /from "@tally-analytics\/server\/(\w+)"/.exec(block.body)?.[1])).toEqual(["node", "fastify"]);
    blocks.forEach((block, i) => writeFileSync(join(app, `embedding-${i + 1}.ts`), block.body));
    const tsconfig = {
      compilerOptions: { module: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: false, types: ["node"] },
      include: ["embedding-*.ts"],
    };
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify(tsconfig));
    const tsc = workspaceRequire.resolve("typescript/bin/tsc");
    const checked = await timed("tsc", () => runProcess(process.execPath, [tsc, "-p", "tsconfig.json"], app));
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.code).toBe(0);
  });

  it("the tally binary from the tarball runs: --version, keys create on a new SQLite file, mcp over stdio", async () => {
    const bin = join(app, "node_modules", ".bin", "tally");
    const version = await runProcess(bin, ["--version"], app);
    expect(version.stdout).toBe(`${packed[0]!.version}\n`);
    const cwd = join(work, "cli-run");
    mkdirSync(cwd);
    const created = await runProcess(bin, ["keys", "create"], cwd);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created account 1\. .*\ntly_[\w-]{43}\n$/);

    // The MCP server on standard input and output: the SDK, a dependency of the server package, loads from the install.
    const messages = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "consumer", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ];
    const mcp = spawnSync(bin, ["mcp"], {
      cwd,
      input: messages.map((message) => `${JSON.stringify(message)}\n`).join(""),
      encoding: "utf8",
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
    });
    expect(mcp.status, mcp.stderr).toBe(0);
    const answers = mcp.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number; result: { tools?: { name: string }[] } });
    expect(answers.map((answer) => answer.id)).toEqual([1, 2]);
    expect(answers[1]!.result.tools!.map((tool) => tool.name)).toContain("get_statistic");
  });
});

/** Copies an example into the app (its own folder, so each has its own database) and starts it. */
function runExample(name: string): Promise<Running> {
  const directory = join(app, name);
  mkdirSync(directory);
  copyFileSync(join(ROOT, "examples", name, "server.mjs"), join(directory, "server.mjs"));
  // Shared by the examples: copied once, as rewriting it could empty it under one that is starting.
  for (const shared of ["listen-error.mjs", "orders.mjs"]) {
    if (!existsSync(join(app, shared))) copyFileSync(join(ROOT, "examples", shared), join(app, shared));
  }
  return timed(`${name} start`, () => startExample(directory));
}

describe("the node:http example, run in that app", () => {
  it("binds 127.0.0.1, prints its real address and a key that works", { timeout: 60_000 }, async () => {
    const server = await runExample("node-http");
    try {
      const account = await fetch(`${server.base}/api/v1/account`, { headers: { authorization: `Bearer ${server.key}` } });
      expect(account.status).toBe(200);
      // A second one on the same port (the tour's server still on 3000): one line, exit 1, no crash.
      const port = new URL(server.base).port;
      const taken = await runProcess(process.execPath, ["server.mjs"], join(app, "node-http"), { PORT: port, HOST: "127.0.0.1" });
      expect(taken).toMatchObject({
        code: 1,
        stderr: `Port ${port} is taken by another server: set PORT to another (PORT=0 picks a free one).\n`,
      });
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.stdout.split("\n").filter(Boolean)).toEqual([
      "Created an account. API key (shown once):",
      server.key,
      `Listening on ${server.base} (API: /api/v1)`,
    ]);
  });
});

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** Copies an example's folder (not its installs, builds or data) into the app. */
function copyExample(name: string): string {
  const directory = join(app, name);
  cpSync(join(ROOT, "examples", name), directory, {
    recursive: true,
    filter: (source) => !/(^|\/)(node_modules|\.next|dist|data)$/.test(source),
  });
  return directory;
}

/** Builds the Next.js app (a production build, as it ships) and compiles the NestJS one, at once. */
async function buildFrameworkApps(): Promise<void> {
  const nextjs = copyExample("nextjs");
  const nestjs = copyExample("nestjs");
  const tsc = workspaceRequire.resolve("typescript/bin/tsc");
  const [built, compiled] = await Promise.all([
    timed("next build", () => runProcess(join(app, "node_modules", ".bin", "next"), ["build"], nextjs, { NEXT_TELEMETRY_DISABLED: "1" })),
    timed("nest tsc", () => runProcess(process.execPath, [tsc, "-p", "tsconfig.json"], nestjs)),
  ]);
  if (built.code !== 0) throw new Error(`next build failed (${built.code}):\n${built.stdout}\n${built.stderr}`);
  if (compiled.code !== 0) throw new Error(`tsc failed for the NestJS example (${compiled.code}):\n${compiled.stdout}\n${compiled.stderr}`);
}

const LAUNCHES: Record<string, Launch> = {
  nextjs: {
    command: join(app, "node_modules", ".bin", "next"),
    args: ["start", "-H", "127.0.0.1", "-p", "0"],
    listening: /^- Local:\s+(http:\/\/127\.0\.0\.1:\d+)$[\s\S]*Ready in/m,
    env: { NEXT_TELEMETRY_DISABLED: "1" },
    stopped: 143, // next start's own code for SIGTERM (128 + 15)
  },
  // enableShutdownHooks: Nest closes its modules (Tally with them), then ends by the signal it got.
  nestjs: { ...NODE_EXAMPLE, args: ["dist/main.js"], stopped: "SIGTERM" },
};

const startBuilt = (name: string) => timed(`${name} start`, () => startExample(join(app, name), LAUNCHES[name]));

/** Polls `read` until `done` holds of its answer, or 30 s passed; answers the last one. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    value = await read();
  }
  return value;
}

describe.skipIf(skipWithoutChromium)(
  "the framework guides' examples (Express, Fastify, Hono, Koa, fetch, Next.js, NestJS), run in that app",
  () => {
    let browser: Browser;
    beforeAll(async () => {
      [browser] = await Promise.all([launchChromium(), frameworkApps]);
    }, 180_000);
    afterAll(async () => {
      await browser?.close();
    });

    // All at once: a server-side pageview without the tracker waits 10 s for it before it counts alone.
    it(
      "a purchase in the app's transaction, a server-side pageview and the tracker's in Chromium counted; the API through the app's own sign-in",
      { timeout: 120_000 },
      async () => {
        const names = ["express", "fastify", "hono", "koa", "fetch", "nextjs", "nestjs"];
        const servers = await Promise.all(names.map((name) => (LAUNCHES[name] ? startBuilt(name) : runExample(name))));
        try {
          const day = new Date().toISOString().slice(0, 10);
          const checks = servers.map(async (server, i) => {
            const api = (path: string, init: RequestInit = {}) =>
              fetch(`${server.base}/analytics/api/v1${path}`, { ...init, headers: { cookie: "session=owner", ...init.headers } });
            // The app's order and its Purchase event in one transaction, first thing in a fresh process
            // (Tally's own writer has written nothing yet).
            const bought = await fetch(`${server.base}/checkout`, {
              method: "POST",
              headers: { "content-type": "application/json", "user-agent": CHROME },
              body: JSON.stringify({ total: 42 }),
            });
            expect(bought.status, names[i]).toBe(201);
            expect(await bought.json()).toEqual({ order: 1 });
            expect((await fetch(`${server.base}/analytics/api/v1/websites`)).status).toBe(401);
            const listed = (await (await api("/websites")).json()) as { data: { id: number; domain: string }[] };
            const id = listed.data.find((website) => website.domain === "127.0.0.1")!.id;
            // Headless Chromium is a bot to isbot: the website counts bots (a JSON body: the hook's sign-in takes no forms).
            const saved = await api(`/websites/${id}`, {
              method: "PUT",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ exclude_bots: 0 }),
            });
            expect(saved.status).toBe(200);
            // A visitor without JavaScript: the app's own page, counted by the server alone.
            const served = await fetch(`${server.base}/?plain`, {
              headers: { accept: "text/html", "user-agent": CHROME, "sec-fetch-dest": "document", "sec-fetch-mode": "navigate" },
            });
            expect(served.status).toBe(200);
            const page = await browser.newPage();
            const collected = page.waitForResponse((response) => response.url().endsWith("/analytics/collect"));
            await page.goto(`${server.base}/`);
            expect((await collected.catch((error: Error) => Promise.reject(new Error(`${names[i]}: ${error.message}`)))).status()).toBe(
              202,
            );
            await page.close();
            const totals = await eventually(
              async () => ((await (await api(`/stats/${id}/totals?from=${day}&to=${day}`)).json()) as { data: { pageviews: number } }).data,
              (data) => data.pageviews >= 2,
            );
            expect(totals.pageviews, names[i]).toBe(2);
            const goals = await api(`/stats/${id}?name=goals&from=${day}&to=${day}`);
            expect(((await goals.json()) as { data: unknown[] }).data, names[i]).toEqual([
              expect.objectContaining({ value: "Purchase", events: 1 }),
            ]);
          });
          await Promise.all(checks);
        } finally {
          const stopped = await Promise.all(servers.map((server) => server.stop()));
          expect(stopped).toEqual(names.map((name) => (LAUNCHES[name] ?? NODE_EXAMPLE).stopped));
        }
        // The node examples print where they listen and nothing else: no request log (which would hold the visitor's IP address).
        const plain = servers.filter((_, i) => !LAUNCHES[names[i]!]);
        expect(plain.map((server) => server.stdout)).toEqual(
          plain.map((server) => `Listening on ${server.base} (API: /analytics/api/v1)\n`),
        );
      },
    );
  },
);
