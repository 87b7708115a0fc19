import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SlowestFirst } from "./test/support/slowest-first.js";

const source = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

// Tests import the packages by name and run their TypeScript sources directly.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@tally-analytics\/core$/, replacement: source("core/src/index.ts") },
      { find: /^@tally-analytics\/core\/internal$/, replacement: source("core/src/internal.ts") },
      { find: /^@tally-analytics\/core\/testing$/, replacement: source("core/src/testing.ts") },
      { find: /^@tally-analytics\/server$/, replacement: source("server/src/index.ts") },
      { find: /^@tally-analytics\/server\/internal$/, replacement: source("server/src/internal.ts") },
      { find: /^@tally-analytics\/server\/node$/, replacement: source("server/src/adapters/node.ts") },
      { find: /^@tally-analytics\/server\/fastify$/, replacement: source("server/src/adapters/fastify.ts") },
      { find: /^@tally-analytics\/tracker$/, replacement: source("tracker/dist/index.js") },
      { find: /^@tally-analytics\/client$/, replacement: source("client/src/index.ts") },
      { find: /^@tally-analytics\/dashboard$/, replacement: source("dashboard/dist/index.js") },
      { find: /^@tally-analytics\/cli$/, replacement: source("cli/src/index.ts") },
    ],
  },
  test: {
    // Core's worker threads load dist/: build it from the current source first. The run's
    // folder of stores several files read (the reference data set, filled once a dialect).
    globalSetup: ["test/support/build-core.ts", "test/support/shared-stores.ts"],
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two files at a time on this project's 2-core machine (vitest's default is one fewer
    // than the cores): most files wait on browsers, servers and databases as much as they compute.
    maxWorkers: 2,
    // The slowest files start first, so that the two workers finish together.
    sequence: { sequencer: SlowestFirst },
  },
});
