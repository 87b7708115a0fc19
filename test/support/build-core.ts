/**
 * Vitest global setup: tests import core's TypeScript sources, but its worker threads
 * (the SQLite writer and reader) load compiled JavaScript from `dist/`, and the CLI and
 * the packed packages load core's bundles (`dist/bundle/`, made from those files). Building
 * core first (incremental: a second or two when nothing changed) makes every test run the
 * current source; test/engine/current-build.test.ts checks that it did.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { staleBuilds } from "./core-build.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));
const build = (...flags: string[]) =>
  execFileSync(process.execPath, [tsc, "-b", "packages/core", ...flags], { cwd: root, stdio: "inherit" });

export default function setup(): void {
  build();
  // A source touched without a change is not emitted again by an incremental build: emit everything then.
  if (staleBuilds().length > 0) build("--force");
  // What the package exports and the CLI loads: the bundles of those compiled files (a second or so).
  execFileSync(process.execPath, ["scripts/bundle-dist.mjs", "core"], { cwd: root, stdio: "inherit" });
}
