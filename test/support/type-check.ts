import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const TSC = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));

/** Runs tsc on a test's type project (`tsconfig.json` beside its `.ts` files): its exit code and what it printed. */
export async function typeCheck(project: URL): Promise<{ code: number; output: string }> {
  return promisify(execFile)(process.execPath, [TSC, "-p", fileURLToPath(project)], { encoding: "utf8" }).then(
    () => ({ code: 0, output: "" }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
}
