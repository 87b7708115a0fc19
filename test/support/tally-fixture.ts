import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTally, type Tally } from "@tally/core";

/** A Tally on a real SQLite file in a fresh temporary directory, removed on close. */
export function createTempTally(): { tally: Tally; dispose(): Promise<void> } {
  const directory = mkdtempSync(join(tmpdir(), "tally-http-"));
  const tally = createTally({ database: `file:${join(directory, "tally.sqlite")}` });
  return {
    tally,
    async dispose() {
      await tally.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
