/**
 * The real, built binary (`pnpm build` first), run as a user would: in an empty
 * directory, configured by the environment, stopped by signals.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
export const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
export const KEY = /^tly_[A-Za-z0-9_-]{43}$/;
export const LISTENING = /^Tally is listening on http:\/\/127\.0\.0\.1:(\d+) \(database (.+)\)$/m;
const START_TIMEOUT_MS = 10_000;

/** Every variable Tally reads: none may be inherited from the machine running the tests. */
const TALLY_VARIABLES = [
  "DATABASE_URL",
  "TALLY_API_KEY",
  "TRUST_PROXY",
  "GEOIP_DB",
  "RATE_LIMIT",
  "HOST",
  "FLUSH_INTERVAL_MS",
  "CLOSE_TIMEOUT_MS",
  "TALLY_SPILL_DIR",
  "TALLY_SECRET",
  "DEBUG",
];

/** Only what the test sets: nothing inherited may configure Tally by accident. */
function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", ...extra };
  for (const name of TALLY_VARIABLES) if (!(name in extra)) delete env[name];
  return env;
}

export function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`pnpm build\` first`);
}

const directories: string[] = [];
export function emptyDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "tally-cli-"));
  directories.push(directory);
  return directory;
}
/** For afterAll. */
export function removeDirectories(): void {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
}
/** What a command left in a directory (nothing, when it was refused before it started). */
export const filesIn = (directory: string) => readdirSync(directory, { recursive: true }).map(String).sort();

const children = new Set<ChildProcess>();
/** For afterEach: a failed test must not leave a server behind. */
export function killChildren(): void {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function finished(child: ChildProcess, output: { stdout: string; stderr: string }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      children.delete(child);
      resolve({ code, signal, ...output });
    });
  });
}

function start(args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: environment(env), stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  const output = { stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output.stderr += chunk));
  return { child, output, done: finished(child, output) };
}

/** Runs one command to its end. */
export async function tally(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  return start(args, cwd, env).done;
}

export const lines = (text: string) => text.split("\n").filter((line) => line !== "");

export interface Server {
  base: string;
  /** Milliseconds from spawn to the listening line. */
  startMs: number;
  output: { stdout: string; stderr: string };
  stop(signal: NodeJS.Signals): Promise<Finished>;
}

/** `tally serve`, resolved once it prints its listening line (within `startTimeoutMs`: chDB, 550 MB of library, takes longer to load). */
export async function serve(cwd: string, env: Record<string, string> = {}, startTimeoutMs = START_TIMEOUT_MS): Promise<Server> {
  const began = performance.now();
  const { child, output, done } = start(["serve"], cwd, env);
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line within ${startTimeoutMs} ms:\n${output.stdout}\n${output.stderr}`)),
      startTimeoutMs,
    );
    const check = () => {
      const match = LISTENING.exec(output.stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off("data", check);
      resolve(match[1]!);
    };
    child.stdout!.on("data", check);
    done.then((result) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${result.code}) before listening:\n${result.stdout}\n${result.stderr}`));
    }, reject);
  });
  return {
    base: `http://127.0.0.1:${port}`,
    startMs: performance.now() - began,
    output,
    async stop(signal) {
      child.kill(signal);
      return done;
    },
  };
}

export async function api(server: Server, key: string, method: string, path: string, body?: Record<string, string>) {
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      accept: "application/json",
      ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    ...(body ? { body: new URLSearchParams(body) } : {}),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}
