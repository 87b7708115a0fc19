/**
 * A store several test files read, filled once in a run: by the first file that asks, in the
 * run's folder (shared-stores.ts), while the others wait for it. Each file then reads a copy.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";

const WAIT_MS = 300_000;

/**
 * What `fill` answered for `name` in this run, filled by this file or by another: `url` is
 * the closed database to copy (removed after the run), the rest whatever a copy needs to know.
 */
export async function filledOnce<T extends { url: string }>(name: string, fill: () => Promise<T>): Promise<T> {
  const folder = inject("sharedStores");
  const done = join(folder, `${name}.json`);
  const failed = join(folder, `${name}.failed`);
  if (claimed(join(folder, `${name}.lock`))) {
    try {
      const filled = await fill();
      writeFileSync(`${done}.part`, JSON.stringify(filled));
      renameSync(`${done}.part`, done);
      return filled;
    } catch (error) {
      writeFileSync(failed, String(error));
      throw error;
    }
  }
  for (const started = Date.now(); Date.now() - started < WAIT_MS; await new Promise((resolve) => setTimeout(resolve, 200))) {
    if (existsSync(done)) return JSON.parse(readFileSync(done, "utf8")) as T;
    if (existsSync(failed)) throw new Error(`Another test file could not fill ${name}: ${readFileSync(failed, "utf8")}`);
  }
  throw new Error(`${name} was not filled within ${WAIT_MS / 1000} s`);
}

/** Whether this process made the folder `path` (the first to ask); false when another did. */
function claimed(path: string): boolean {
  try {
    mkdirSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}
