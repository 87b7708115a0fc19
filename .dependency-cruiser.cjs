/**
 * The layering the code keeps (docs/architecture.md), checked by `pnpm lint` in the test
 * command. A folder may import from folders listed before it, never after.
 */
const CORE_LAYERS = [
  "shared",
  "model",
  "storage",
  "enrich",
  "accounts",
  "websites",
  "ingest",
  "stats",
  "reports",
  "alerts",
  "moving",
  "backends",
];
const SERVER_LAYERS = ["http", "collect", "api", "dashboard", "team", "mcp"];

/** One rule per layer: nothing in it imports a folder above it (root files included). */
function layerRules(pkg, layers, top) {
  return layers
    .map((layer, index) => ({
      name: `${pkg}-${layer}-layer`,
      comment: `${pkg}/src/${layer} imports only ${layers.slice(0, index).join(", ") || "nothing of its package"}`,
      severity: "error",
      from: { path: `^packages/${pkg}/src/${layer}/`, pathNot: "\\.test\\.ts$" },
      to: {
        path: `^packages/${pkg}/src/`,
        pathNot: [`^packages/${pkg}/src/(${layers.slice(0, index + 1).join("|")})/`],
      },
    }))
    .concat(
      top.map((folder) => ({
        name: `${pkg}-${folder}-on-top`,
        comment: `only ${folder}/ imports the composition root's files`,
        severity: "error",
        from: { path: `^packages/${pkg}/src/`, pathNot: `^packages/${pkg}/src/(${folder})/` },
        to: { path: `^packages/${pkg}/src/${folder}/` },
      })),
    );
}

module.exports = {
  forbidden: [
    ...layerRules("core", CORE_LAYERS, []),
    ...layerRules("server", SERVER_LAYERS, ["adapters"]),
    {
      name: "backends-apart",
      comment: "one backend never imports another (the port beside them, backends/backend.ts, is theirs to share)",
      severity: "error",
      from: { path: "^packages/core/src/backends/([^/]+)/" },
      to: { path: "^packages/core/src/backends/", pathNot: ["^packages/core/src/backends/$1/", "^packages/core/src/backends/[^/]+\\.ts$"] },
    },
    {
      name: "only-root-picks-a-backend",
      comment: "a concrete backend is imported only by the composition root (core/src/*.ts)",
      severity: "error",
      from: { path: "^packages/core/src/[^/]+/", pathNot: "^packages/core/src/backends/" },
      to: { path: "^packages/core/src/backends/" },
    },
    {
      name: "no-reaching-into-src",
      comment: "packages use each other through their exports maps, never by path",
      severity: "error",
      from: { path: "^packages/([^/]+)/" },
      to: { path: "^packages/([^/]+)/src/", pathNot: "^packages/$1/src/" },
    },
    {
      name: "tests-use-entry-points",
      comment: "tests and benchmarks import packages by name (./internal for internals), never src/ by path",
      severity: "error",
      from: { path: "^(test|bench)/" },
      to: { path: "^packages/[^/]+/src/" },
    },
    {
      name: "no-cycle",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs"], conditionNames: ["import", "types", "default"] },
  },
};
