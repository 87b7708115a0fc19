/**
 * The order vitest starts test files in: the slowest first, then vitest's own order (which,
 * without a record of earlier runs, starts the largest files first, and the slowest files here
 * are small). With two workers, a slow file started late runs alone at the end of the run.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The slowest files, slowest first (a full run's longest, on the project's 2-core machine). */
const SLOWEST = [
  "test/engine/reference-clickhouse.test.ts",
  "test/engine/reference-segments.test.ts",
  "test/consumer/consumer.test.ts",
  "test/engine/reference.test.ts",
  "test/moving/copy-from-clickhouse.test.ts",
  "test/dashboard/manage-browser.test.ts",
  "test/cli/cli-matrix.test.ts",
  "test/dashboard/every-page-browser.test.ts",
  "test/dashboard/plausible-user-browser.test.ts",
  "test/bench/bench-smoke.test.ts",
  "test/dashboard/first-minutes-browser.test.ts",
  "test/engine/reference-paths.test.ts",
  "test/postgres/multi-instance.test.ts",
];

const rank = (file: TestSpecification) => {
  const at = SLOWEST.findIndex((path) => file.moduleId.endsWith(path));
  return at === -1 ? SLOWEST.length : at;
};

export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
