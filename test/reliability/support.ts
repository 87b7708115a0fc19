/**
 * Shared by the reliability proofs: real `tally serve` child processes (killed with
 * any signal), a seeded random source, a keep-alive HTTP client that never shares the
 * server's event loop, and a byte-exact snapshot of every table of a SQLite file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { seededRandom as sharedSeededRandom } from "../support/random.js";

export const CLI_BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

export const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
export const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
export const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
export const BROWSERS = [CHROME, FIREFOX, SAFARI_IPHONE] as const;

/** A temporary directory, removed by the returned function. */
export function tempDirectory(prefix = "tally-rel-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The shared seeded PRNG with the helpers the fuzz cases use. */
export function seededRandom(seed: number) {
  const next = sharedSeededRandom(seed);
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
export type Random = ReturnType<typeof seededRandom>;

// ---------------------------------------------------------------------------
// `tally serve` as a child process

export interface Child {
  base: string;
  port: number;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output: { stdout: string; stderr: string };
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
/** For afterAll/afterEach: no test leaves a server behind, whatever failed. */
export function killAllChildren(): void {
  for (const child of running) child.kill("SIGKILL");
}

/** Spawns the built `tally serve` with exactly the given Tally environment; resolves once it listens. */
export function spawnServe(env: Record<string, string>, timeoutMs = 20_000): Promise<Child> {
  if (!existsSync(CLI_BIN)) throw new Error(`${CLI_BIN} is missing: run \`pnpm build\` first.`);
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    "DATABASE_URL",
    "TALLY_API_KEY",
    "TRUST_PROXY",
    "GEOIP_DB",
    "RATE_LIMIT",
    "HOST",
    "PORT",
    "FLUSH_INTERVAL_MS",
    "CLOSE_TIMEOUT_MS",
    "TALLY_SPILL_DIR",
    "TALLY_SECRET",
  ]) {
    delete inherited[name];
  }
  const child = spawn(process.execPath, [CLI_BIN, "serve"], {
    env: { ...inherited, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  const output = { stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  return new Promise<Child>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`tally serve did not start within ${timeoutMs} ms:\n${output.stdout}\n${output.stderr}`));
    }, timeoutMs);
    const check = () => {
      const match = /Tally is listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output.stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off("data", check);
      const port = Number(match[1]);
      resolve({
        base: `http://127.0.0.1:${port}`,
        port,
        child,
        output,
        exited,
        async stop(signal = "SIGTERM") {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout!.on("data", check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`tally serve exited (${code ?? signal}) before listening:\n${output.stdout}\n${output.stderr}`));
    });
  });
}

// ---------------------------------------------------------------------------
// A plain node:http client (keep-alive), for many requests in flight

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function keepAliveAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

/** One request; rejects on a transport error (connection refused or reset). */
export function send(
  agent: Agent,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Runs `task` for 0..count-1 with at most `limit` in flight. */
export async function pool(count: number, limit: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

// ---------------------------------------------------------------------------
// The stored data, table by table

/** Every row of every table, in a stable order, as JSON text (read through a separate connection). */
export function snapshotTables(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as {
      name: string;
    }[];
    const snapshot: Record<string, string> = {};
    for (const { name } of tables) {
      const rows = db.prepare(`select * from "${name}"`).all() as Record<string, unknown>[];
      snapshot[name] = JSON.stringify(rows.map((row) => JSON.stringify(row)).sort());
    }
    return snapshot;
  } finally {
    db.close();
  }
}

/** Every value of every row of every table, as one text (for "is this string stored anywhere"). */
export function allStoredText(file: string): string {
  return Object.values(snapshotTables(file)).join("\n");
}

/** The statistics of one website straight from the rollups: sum of the daily rows per name and value. */
export function rollupTotals(file: string, websiteId: number): Map<string, Map<string, number>> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare("select name, value, sum(count) as n from rollups where website_id = ? and length(period) = 10 group by name, value")
      .all(websiteId) as { name: string; value: string; n: number }[];
    const totals = new Map<string, Map<string, number>>();
    for (const row of rows) {
      if (!totals.has(row.name)) totals.set(row.name, new Map());
      totals.get(row.name)!.set(row.value, Number(row.n));
    }
    return totals;
  } finally {
    db.close();
  }
}

export const sum = (values: Iterable<number>) => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};

export const todayUtc = () => new Date().toISOString().slice(0, 10);
export const dayFrom = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

// ---------------------------------------------------------------------------
// A steady stream of hits, as browsers send them during an incident

export interface SteadyLoad {
  /** Answers by status (202, 503…), and requests that got no answer at all. */
  statuses: Map<number, number>;
  transportErrors: number;
  accepted(): number;
  /** Stops sending and waits for the answers still out. */
  stop(): Promise<void>;
}

/**
 * `perSecond` hits a second to `/collect` of `domain`, each a pageview of one of 60
 * visitors (an address each), sent every 20 ms in small groups without waiting for the
 * answers (browsers' beacons do not wait either).
 */
export function steadyLoad(base: string, domain: string, perSecond: number): SteadyLoad {
  const agent = keepAliveAgent(32);
  const statuses = new Map<number, number>();
  const out = new Set<Promise<void>>();
  let sent = 0;
  let transportErrors = 0;
  const tickMs = 20;
  const began = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - began) / 1000) * perSecond);
    for (; sent < due; sent++) {
      const index = sent;
      const answered = send(agent, `${base}/collect`, {
        method: "POST",
        headers: { "content-type": "text/plain", "user-agent": CHROME, "x-forwarded-for": `198.51.100.${index % 60}` },
        body: JSON.stringify({ u: `https://${domain}/page-${index % 7}` }),
      }).then(
        (reply) => void statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1),
        () => void transportErrors++,
      );
      out.add(answered);
      void answered.finally(() => out.delete(answered));
    }
  }, tickMs);
  return {
    statuses,
    get transportErrors() {
      return transportErrors;
    },
    accepted: () => statuses.get(202) ?? 0,
    async stop() {
      clearInterval(timer);
      await Promise.all([...out]);
      agent.destroy();
    },
  };
}

/** Polls `check` every 100 ms until it answers true, or fails after `timeoutMs` saying `what`. */
export async function eventually(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A served Tally's `/health`: its status code and body. */
export interface Health {
  code: number;
  body: { status: string; buffered: number; reason?: string };
}
export async function health(server: Child): Promise<Health> {
  const response = await fetch(`${server.base}/health`);
  return { code: response.status, body: (await response.json()) as Health["body"] };
}

/** Adds a website through a served Tally's API (bots counted, as the load sends none). */
export async function createWebsite(server: Child, apiKey: string, domain: string): Promise<Response> {
  return fetch(`${server.base}/api/v1/websites`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ domain, exclude_bots: 0 }),
  });
}
