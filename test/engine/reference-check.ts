/**
 * Compares what `tally.stats` answers with what the reference model expects: one page,
 * or every row of a range read through pages, rows and range totals field by field.
 */
import { ValidationError, type StatsPage, type Tally } from "@tally-analytics/core";
import type { Answer, ComparedAnswer, StatQuery } from "./reference-answers.js";
import { compareValues, expectedPage, type ListQuery, type Row } from "./reference-model.js";
import { remembered } from "./reference-memo.js";

/** A row with its fields in one order, absent ones left out, so JSON compares values only. */
const normal = (row: { [K in keyof Row]: Row[K] | undefined }) => ({
  value: row.value,
  count: row.count,
  ...(row.events === undefined ? {} : { events: row.events }),
  ...(row.conversion_rate === undefined ? {} : { conversion_rate: row.conversion_rate }),
  ...(row.revenue === undefined ? {} : { revenue: row.revenue }),
  ...(row.previous === undefined ? {} : { previous: row.previous }),
  ...(row.average === undefined ? {} : { average: row.average, median: row.median }),
  ...(row.seconds === undefined ? {} : { seconds: row.seconds }),
  ...(row.previous_figure === undefined ? {} : { previous_figure: row.previous_figure }),
  ...(row.vitals === undefined ? {} : { vitals: row.vitals }),
});

export interface Asked extends StatQuery {
  site: string;
  filter?: string[];
  compare?: "previous_period" | "year";
}

/** Characters `start`… of a text (whole characters, never half of a surrogate pair), at most 255 UTF-16 units as a search may be. */
export function piece(text: string, start: number, length: number): string {
  let result = "";
  for (const char of [...text].slice(start, start + length)) {
    if (result.length + char.length > 255) break;
    result += char;
  }
  return result;
}

/** Fixed searches, plus pieces of the first, middle and last values. */
export function searchesFor(all: readonly Row[], fixed: readonly string[]): string[] {
  const searches = [...fixed];
  if (all.length > 0) {
    const sorted = [...all].sort((a, b) => compareValues(a.value, b.value));
    for (const index of [0, Math.floor(sorted.length / 2), sorted.length - 1]) {
      const value = sorted[index]!.value;
      searches.push(piece(value, Math.floor([...value].length / 3), 3).toUpperCase(), piece(value, 0, 255));
    }
  }
  return searches;
}

export function createChecker(tally: Tally, accountId: number, websiteIds: ReadonlyMap<string, number>) {
  let queries = 0;

  async function ask(asked: Asked, list: ListQuery): Promise<StatsPage> {
    queries++;
    const { site, ...input } = asked;
    try {
      return await tally.stats.query(accountId, websiteIds.get(site)!, { ...input, ...list });
    } catch (error) {
      const detail = error instanceof ValidationError ? JSON.stringify(error.errors) : String(error);
      throw new Error(`${JSON.stringify({ ...asked, ...list })}: ${detail}`, { cause: error });
    }
  }

  /** One page; a description of the difference, or null. */
  async function page(asked: Asked, expected: Answer | ComparedAnswer, list: ListQuery): Promise<string | null> {
    const want = remembered(expected.rows, JSON.stringify(list), () => expectedPage(expected.rows, list));
    const got = await ask(asked, list);
    const label = `${asked.site} ${asked.name}${asked.event ? `(${asked.event}.${asked.property})` : ""} ${asked.from}..${asked.to} ${JSON.stringify({ filter: asked.filter, compare: asked.compare, ...list })}`;
    const problems: string[] = [];
    if (got.total !== want.total) problems.push(`total ${got.total} (expected ${want.total})`);
    const gotRows = got.data.map(normal);
    const wantRows = want.data.map(normal);
    if (JSON.stringify(gotRows) !== JSON.stringify(wantRows)) {
      const i = wantRows.findIndex((row, index) => JSON.stringify(row) !== JSON.stringify(gotRows[index]));
      const at = i === -1 ? wantRows.length : i;
      problems.push(`first differing row ${at}: got ${JSON.stringify(gotRows[at])} expected ${JSON.stringify(wantRows[at])}`);
    }
    if (got.rangeTotal !== expected.total) problems.push(`range total ${got.rangeTotal} (expected ${expected.total})`);
    if ("comparison" in expected) {
      if (JSON.stringify(got.comparison) !== JSON.stringify(expected.comparison))
        problems.push(`comparison ${JSON.stringify(got.comparison)} (expected ${JSON.stringify(expected.comparison)})`);
      if (got.previousRangeTotal !== expected.previousTotal)
        problems.push(`previous total ${got.previousRangeTotal} (expected ${expected.previousTotal})`);
    }
    return problems.length === 0 ? null : `${label}: ${problems.join("; ")}`;
  }

  /** Every row in the default order, read through pages of 100. */
  async function whole(asked: Asked, expected: Answer | ComparedAnswer): Promise<string[]> {
    const problems: string[] = [];
    const pages = Math.max(1, Math.ceil(expected.rows.length / 100));
    for (let index = 1; index <= pages; index++) {
      const problem = await page(asked, expected, { per_page: 100, page: index });
      if (problem) problems.push(problem);
    }
    return problems;
  }

  return {
    page,
    whole,
    get queries() {
      return queries;
    },
  };
}
