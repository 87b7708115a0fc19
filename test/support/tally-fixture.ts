import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTally, type Tally, type TallyOptions } from "@tally/core";

/**
 * A Tally on a real SQLite file in a fresh temporary directory, removed on close.
 * `options` are passed through (except `database`); `file` is the SQLite file, for
 * tests that look at the stored rows directly.
 */
export function createTempTally(options: Omit<TallyOptions, "database"> = {}): { tally: Tally; file: string; dispose(): Promise<void> } {
  const directory = mkdtempSync(join(tmpdir(), "tally-http-"));
  const file = join(directory, "tally.sqlite");
  const tally = createTally({ ...options, database: `file:${file}` });
  return {
    tally,
    file,
    async dispose() {
      await tally.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
