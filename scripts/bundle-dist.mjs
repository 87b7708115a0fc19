// Bundles the compiled entry points of core and server (what `tsc -b` wrote to dist/) into
// dist/bundle/, one file per entry point plus the chunks they share (esbuild, ESM, code
// splitting: the entries of one package hold one copy of each module between them).
// Part of `pnpm build`, after `tsc -b`; test/support/build-core.ts runs it for core.
//   node scripts/bundle-dist.mjs [core|server …]
//
// Why: a host process pays for every module it loads, well beyond the module's code (Node's
// loader keeps a record, a compiled script and its source per module). Measured with
// `process.memoryUsage()` around the import: kysely's 279 ES modules +17.7 MB RSS, the same
// bundled into one file +2.3 MB; core and the Node adapter imported into an Express app +44 MB
// as tsc's 230 modules, +24 MB bundled. The SQLite threads load their own copies.
//
// The files stay two folders below the package (dist/bundle/), like the modules they are
// made of: their relative URLs (`../../lists/…`, `../../package.json`) still resolve, and the
// threads' scripts sit beside the chunk that starts them. The package's dependencies stay
// imports (installed once, shared with the host), except the ones named in `inline`.
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PACKAGES = {
  core: {
    entries: ["index", "internal", "addresses", "testing", "backends/sqlite/read-worker"],
    // The writer thread's script, bundled on its own into one file: a thread shares no memory
    // with the host, and sharing chunks with the host's entries cut both into more, smaller
    // files (each a module a process pays for: 32 loaded by a collecting app, 28 without).
    threads: ["backends/sqlite/writer-worker"],
    // The query builder and zod: the largest counts of modules.
    inline: ["kysely", "zod"],
  },
  server: {
    entries: ["index", "internal", "adapters/node", "adapters/fastify", "adapters/hono", "adapters/next"],
    // zod again (what the server's schemas and zod-openapi use of it): a second copy bundled
    // costs less than one loaded as its modules. zod keeps its registry of schema metadata on
    // globalThis, and checks a schema's kind by its traits, not its class: the copies interoperate.
    inline: ["zod", "zod-openapi"],
  },
};

const root = new URL("../packages/", import.meta.url);

/** Bare imports stay imports, but for the packages inlined (and their subpaths). */
function externalDependencies(inline) {
  const inlined = (path) => inline.some((name) => path === name || path.startsWith(`${name}/`));
  return {
    name: "external-dependencies",
    setup(esbuild) {
      esbuild.onResolve({ filter: /^[^./]/ }, ({ path }) => (inlined(path) ? undefined : { path, external: true }));
    },
  };
}

async function bundlePackage(name) {
  const { entries, threads = [], inline } = PACKAGES[name];
  const dist = fileURLToPath(new URL(`${name}/dist/`, root));
  const outdir = `${dist}bundle`;
  rmSync(outdir, { recursive: true, force: true });
  let files = 0;
  let bytes = 0;
  for (const group of [entries, ...threads.map((thread) => [thread])]) {
    const result = await bundleEntries(dist, outdir, group, inline);
    bytes += Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
    files += Object.keys(result.metafile.outputs).filter((file) => file.endsWith(".js")).length;
  }
  return { files, bytes };
}

/** One esbuild run: `entries` and the chunks they share, into `outdir`. */
function bundleEntries(dist, outdir, entries, inline) {
  return build({
    entryPoints: Object.fromEntries(entries.map((entry) => [entry.split("/").at(-1), `${dist}${entry}.js`])),
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: true,
    // Comments and whitespace out, names kept (stack traces stay readable): ~30% less source
    // held per process, and all of it ASCII, which V8 stores at one byte a character (one "…"
    // in a comment made a 780 kB chunk a two-byte string).
    minifyWhitespace: true,
    minifySyntax: true,
    chunkNames: "[name]-[hash]",
    plugins: [externalDependencies(inline)],
    logLevel: "warning",
    metafile: true,
  });
}

const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(PACKAGES);
for (const name of names) {
  if (!PACKAGES[name]) throw new Error(`bundle-dist: no package ${name} (${Object.keys(PACKAGES).join(", ")})`);
  const { files, bytes } = await bundlePackage(name);
  const version = JSON.parse(readFileSync(new URL(`${name}/package.json`, root), "utf8")).version;
  console.log(`bundled @tally-analytics/${name}@${version}: ${files} files, ${Math.round(bytes / 1024)} kB with maps`);
}
