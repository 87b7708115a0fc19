/**
 * Vitest global setup: a folder where the run keeps stores that several test files read
 * (test/engine/reference-fixture.ts fills the reference data set once per dialect there;
 * each file reads a copy; filled-once.ts). Each store is a `<name>.json` that names its
 * database; after the run, and before a rerun in watch mode (the code may have changed),
 * those databases and the folder's files are removed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { removeTestDatabase } from "./databases.js";

declare module "vitest" {
  export interface ProvidedContext {
    sharedStores: string;
  }
}

async function removeStores(folder: string): Promise<void> {
  for (const file of readdirSync(folder)) {
    if (file.endsWith(".json")) {
      const { url } = JSON.parse(readFileSync(join(folder, file), "utf8")) as { url: string };
      await removeTestDatabase(url);
    }
    rmSync(join(folder, file), { recursive: true, force: true });
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "tally-shared-stores-"));
  project.provide("sharedStores", folder);
  project.onTestsRerun(() => removeStores(folder));
  return async () => {
    await removeStores(folder);
    rmSync(folder, { recursive: true, force: true });
  };
}
