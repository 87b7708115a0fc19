// Deletes compiled files whose TypeScript source is gone (renamed or deleted since the
// last build): `tsc -b` never removes them, and `pnpm pack` would publish them.
// Part of `pnpm build`, before `tsc -b`.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const COMPILED = /\.(d\.ts\.map|d\.ts|js\.map|js)$/;

for (const name of ["core", "server", "cli", "client"]) {
  const dist = join(ROOT, "packages", name, "dist");
  if (!existsSync(dist)) continue;
  for (const file of readdirSync(dist, { recursive: true }).map(String)) {
    // dist/bundle/ is bundled from the compiled files (scripts/bundle-dist.mjs), and rebuilt whole.
    if (!COMPILED.test(file) || file.startsWith("bundle/")) continue;
    const source = join(ROOT, "packages", name, "src", file.replace(COMPILED, ".ts"));
    if (!existsSync(source)) {
      rmSync(join(dist, file));
      console.log(`pruned packages/${name}/dist/${file} (no src/${file.replace(COMPILED, ".ts")})`);
    }
  }
}
