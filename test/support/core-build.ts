import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const core = fileURLToPath(new URL("../../packages/core", import.meta.url));

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const modifiedAt = (path: string) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
};

/** Core's source files whose compiled file in dist/ (what the worker threads load) is missing or older. */
export function staleBuilds(): string[] {
  return sources(join(core, "src"))
    .filter((source) => modifiedAt(join(core, "dist", relative(join(core, "src"), source)).replace(/\.ts$/, ".js")) < modifiedAt(source))
    .map((source) => relative(core, source));
}

/** Core's bundles (what its package exports) older than a compiled file they are made of. */
export function staleBundles(): string[] {
  const dist = join(core, "dist");
  const compiled = sources(join(core, "src")).map((source) => join(dist, relative(join(core, "src"), source)).replace(/\.ts$/, ".js"));
  const newest = Math.max(...compiled.map(modifiedAt));
  return readdirSync(join(dist, "bundle"))
    .filter((file) => file.endsWith(".js") && modifiedAt(join(dist, "bundle", file)) < newest)
    .map((file) => `dist/bundle/${file}`);
}
