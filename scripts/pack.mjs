// Packs every published package (`packages/*`) the way `pnpm publish` would, and checks
// each tarball is installable on its own: real version ranges instead of `workspace:`,
// every entry point present, licence, README, engines, no test files, nothing stale.
// Used by `pnpm release:check` (checks in a temporary folder), `pnpm pack:all` (writes the
// checked tarballs to ./tarballs, kept, for an app to install) and the consumer test.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * How to run pnpm: the one running this script (`pnpm test`, `pnpm release:check`),
 * else one on PATH, else the README's `npx --yes pnpm@10`.
 * @returns {[string, string[]]}
 */
export function pnpmCommand() {
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/.test(execPath)) return [process.execPath, [execPath]];
  const onPath = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (onPath.status === 0) return ["pnpm", []];
  return ["npx", ["--yes", "pnpm@10"]];
}

/**
 * @typedef {{ name: string, version: string, tarball: string, files: string[], manifest: Record<string, any> }} PackedPackage
 */

/**
 * Packs `packages/*` (pnpm rewrites `workspace:^` to `^<version>`) into `destination`.
 * @param {string} destination
 * @returns {PackedPackage[]}
 */
export function packPackages(destination) {
  const [command, prefix] = pnpmCommand();
  const result = spawnSync(command, [...prefix, "-r", "--filter", "./packages/*", "pack", "--pack-destination", destination, "--json"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`pnpm pack failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  // pnpm prints one JSON array; npm's warnings about its own config may precede it on stdout.
  const json = result.stdout.slice(result.stdout.indexOf("["));
  /** @type {{ name: string, version: string, filename: string, files: { path: string }[] }[]} */
  const packed = JSON.parse(json);
  return packed.map((entry) => ({
    name: entry.name,
    version: entry.version,
    tarball: entry.filename,
    files: entry.files.map((file) => file.path),
    manifest: readPackedManifest(entry.filename),
  }));
}

/** @param {string} tarball */
function readPackedManifest(tarball) {
  const result = spawnSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`cannot read package.json in ${tarball}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const DEPENDENCY_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"];

/** Every file an `exports` map (or `bin`, `main`, `types`) points to. */
function entryPoints(manifest) {
  const targets = [];
  const walk = (value) => {
    if (typeof value === "string") targets.push(value);
    else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  walk(manifest.main);
  walk(manifest.types);
  return targets.map((target) => target.replace(/^\.\//, ""));
}

/**
 * What is wrong with one packed package, as sentences (empty when it is fine).
 * @param {PackedPackage} pkg
 * @param {PackedPackage[]} siblings
 */
export function checkPackage(pkg, siblings) {
  const { manifest, files } = pkg;
  const problems = [];
  const has = new Set(files);
  for (const field of DEPENDENCY_FIELDS) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      // Protocols npm cannot install from a registry (`workspace:` fails with EUNSUPPORTEDPROTOCOL), or no range at all.
      if (/^[a-z+]+:/i.test(String(range)) || ["", "*", "latest"].includes(String(range).trim())) {
        problems.push(`${field}.${name} is "${range}", not a version range`);
      }
      const sibling = siblings.find((other) => other.name === name);
      if (sibling && String(range) !== `^${sibling.version}`) {
        problems.push(`${field}.${name} is "${range}", expected "^${sibling.version}" (the version packed beside it)`);
      }
    }
  }
  if (manifest.license !== "MIT" || !has.has("LICENSE")) problems.push("no MIT licence field and LICENSE file");
  if (!has.has("README.md")) problems.push("no README.md");
  if (!manifest.engines?.node) problems.push("no engines.node");
  if (!manifest.types || !manifest.exports?.["."]?.types) problems.push("no types for the main entry point");
  if (manifest.publishConfig?.access !== "public")
    problems.push('no publishConfig.access "public" (scoped packages are private by default)');
  for (const target of entryPoints(manifest)) if (!has.has(target)) problems.push(`points to ${target}, which is not in the tarball`);
  for (const file of files) {
    if (/\.test\.[cm]?[jt]s$|\.tsbuildinfo$/.test(file)) problems.push(`ships ${file}`);
    // A compiled file whose source is gone (renamed or deleted since the last build).
    const source = /^dist\/(?!bundle\/)(.+)\.js$/.exec(file);
    if (source && has.has("src/index.ts") && !has.has(`src/${source[1]}.ts`))
      problems.push(`ships ${file}, compiled from a source that no longer exists`);
  }
  for (const bin of Object.values(manifest.bin ?? {})) {
    const result = spawnSync("tar", ["-xzOf", pkg.tarball, `package/${String(bin).replace(/^\.\//, "")}`], { encoding: "utf8" });
    if (!result.stdout.startsWith("#!/usr/bin/env node")) problems.push(`bin ${bin} does not start with #!/usr/bin/env node`);
  }
  return problems;
}

/**
 * How an app installs the kept tarballs. npm takes every tarball at once; pnpm and yarn look a
 * tarball's own dependencies up on the registry, so the app's package.json points them here.
 * @param {PackedPackage[]} packed
 */
function installAdvice(packed) {
  const overrides = Object.fromEntries(packed.map((pkg) => [pkg.name, `file:${pkg.tarball}`]));
  const block = (key) => JSON.stringify({ [key]: overrides }, null, 2);
  return [
    `\nnpm:  npm install ${join(TARBALLS, "*.tgz")} better-sqlite3`,
    `pnpm: add to your package.json, then pnpm add @tally-analytics/core @tally-analytics/server better-sqlite3`,
    block("pnpm")
      .replace(/"pnpm": \{/, '"pnpm": { "overrides": {')
      .replace(/\}\n\}$/, "} }\n}"),
    `yarn: add to your package.json, then yarn add @tally-analytics/core @tally-analytics/server better-sqlite3`,
    block("resolutions"),
  ].join("\n");
}

/** The folder `pnpm pack:all` writes to. */
export const TARBALLS = join(ROOT, "tarballs");

/**
 * Packs and checks every package, in a temporary folder (`release:check`) or in ./tarballs
 * (`--keep`); prints a line per package; exits 1 on any problem.
 */
function main() {
  const keep = process.argv.includes("--keep");
  const missing = ["core", "server", "cli", "client", "tracker", "dashboard"].filter(
    (name) => !existsSync(join(ROOT, "packages", name, "dist", "index.js")),
  );
  if (missing.length > 0) {
    console.error(`release:check: not built (${missing.join(", ")}): run pnpm build first.`);
    process.exit(1);
  }
  if (keep) rmSync(TARBALLS, { recursive: true, force: true });
  const destination = keep ? TARBALLS : mkdtempSync(join(tmpdir(), "tally-pack-"));
  try {
    const packed = packPackages(destination);
    let failed = false;
    for (const pkg of packed) {
      const problems = checkPackage(pkg, packed);
      const size = readFileSync(pkg.tarball).length;
      console.log(
        `${problems.length === 0 ? "ok  " : "FAIL"} ${pkg.name}@${pkg.version}  ${pkg.files.length} files, ${(size / 1024).toFixed(1)} kB`,
      );
      for (const problem of problems) console.log(`       ${problem}`);
      failed ||= problems.length > 0;
    }
    if (failed) process.exit(1);
    if (keep) console.log(installAdvice(packed));
  } finally {
    if (!keep) rmSync(destination, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
