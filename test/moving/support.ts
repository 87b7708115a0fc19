import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { STAT_NAMES, type Tally, type TallyOptions } from "@tally-analytics/core";
import { zipSync, strToU8 } from "fflate";
import { afterAll, beforeAll } from "vitest";
import type { DialectName } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";

/** Every statistic of a range as `{name: {value: count}}` (event_property of every event and property), plus totals. */
export async function allStatistics(tally: Tally, accountId: number, websiteId: number, from: string, to: string, filter?: string) {
  const result: Record<string, Record<string, number>> = {};
  const query = async (name: string, extra: Record<string, string> = {}) => {
    const rows: Record<string, number> = {};
    for (let page = 1; ; page++) {
      const answer = await tally.stats.query(accountId, websiteId, {
        name,
        from,
        to,
        per_page: "100",
        page: String(page),
        ...extra,
        ...(filter ? { filter } : {}),
      });
      for (const row of answer.data) rows[row.value] = row.count;
      if (page * 100 >= answer.total) return rows;
    }
  };
  for (const name of STAT_NAMES) if (name !== "event_property") result[name] = await query(name);
  for (const event of Object.keys(result.event ?? {})) {
    for (const property of ["plan", "seats", "url", "path"]) {
      const rows = await query("event_property", { event, property });
      if (Object.keys(rows).length > 0) result[`event_property:${event}:${property}`] = rows;
    }
  }
  const totals = await tally.stats.totals(accountId, websiteId, { from, to, ...(filter ? { filter } : {}) });
  return { stats: result, totals: totals.data };
}

/** A temporary directory for fixture files, removed by `dispose`. */
export function fixtureDirectory() {
  const directory = mkdtempSync(join(tmpdir(), "tally-moving-"));
  return {
    directory,
    write(name: string, content: string | Uint8Array): string {
      const path = join(directory, name);
      writeFileSync(path, content);
      return path;
    },
    gzip(name: string, content: string): string {
      return this.write(name, gzipSync(Buffer.from(content)));
    },
    zip(name: string, files: Record<string, string>): string {
      return this.write(name, zipSync(Object.fromEntries(Object.entries(files).map(([file, text]) => [file, strToU8(text)]))));
    },
    dispose: () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** CSV lines with CRLF endings. */
export const crlf = (lines: readonly string[]) => lines.map((line) => `${line}\r\n`).join("");

/** A Tally on a fresh database of the dialect with one account, and a directory for fixture files: set up before the suite, removed after. */
export function importFixture(dialect: DialectName, options: Omit<TallyOptions, "database"> = {}) {
  const fixture = { stored: undefined as unknown as TestTally, accountId: 0, files: fixtureDirectory() };
  beforeAll(async () => {
    fixture.stored = await createTestTally(dialect, options);
    fixture.accountId = (await fixture.stored.tally.accounts.create({ name: "importer" })).accountId;
  });
  afterAll(async () => {
    await fixture.stored?.dispose();
    fixture.files.dispose();
  });
  return fixture;
}
