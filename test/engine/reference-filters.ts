/**
 * A seeded sample of filter sets for the reference test: every dimension with every
 * operator at least once, alone and combined, with values drawn from the generated data
 * (weighted by how often they occur), some that match nothing, codes for countries and
 * continents, and values that need escaping.
 */
import { seededRandom } from "../support/random.js";
import type { CompareMode } from "./reference-answers.js";
import { VISIT_DIMENSIONS, type ModelVisit } from "./reference-model.js";
import type { FilterCondition, Operator, SimpleFilter } from "./reference-segments.js";

/** Every dimension a filter may name (`prop` for `prop:<name>`). */
export const FILTER_DIMENSIONS = ["page", ...VISIT_DIMENSIONS, "event", "prop"] as const;
export type FilterDimension = (typeof FILTER_DIMENSIONS)[number];
const OPERATORS: readonly Operator[] = ["is", "is_not", "contains"];
const HIT_DIMENSIONS: readonly FilterDimension[] = ["page", "event", "prop"];

/** Filter sets with conditions joined by `||` (any of them), at the end of the sample. */
export const ANY_CASES = 12;

export interface FilterCase {
  site: string;
  conditions: FilterCondition[];
  from: string;
  to: string;
  compare?: CompareMode;
}

/** Ranges a filter set is asked over, in turn; each is useful on every site (or meant to be empty). */
const RANGES: readonly [string, string][] = [
  ["2026-02-20", "2026-04-10"], // the main block
  ["2026-03-05", "2026-03-11"],
  ["2025-01-01", "2028-12-31"], // everything
  ["2026-03-08", "2026-03-08"], // NY's spring DST change
  ["2026-10-31", "2026-11-02"], // NY's autumn change
  ["2025-02-20", "2025-03-21"], // the year-before block (before ny's retention)
  ["2028-02-28", "2028-02-29"], // a leap day
  ["2026-03-18", "2026-03-23"], // ny's first kept day in the middle
];
const COMPARE: readonly (CompareMode | undefined)[] = [undefined, "previous_period", "year"];

/** Every occurrence of each dimension's values on a website (a value that occurs often is drawn often). */
function occurrences(visits: readonly ModelVisit[]): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const note = (dimension: string, value: string) => {
    if (value === "") return;
    let values = seen.get(dimension);
    if (!values) seen.set(dimension, (values = []));
    values.push(value);
  };
  for (const visit of visits) {
    for (const [dimension, value] of Object.entries(visit.dims)) note(dimension, value);
    for (const hit of visit.hits) {
      note("page", hit.page);
      if (hit.event !== null) note("event", hit.event);
      for (const [name, value] of hit.props ?? []) {
        note("prop names", name);
        note(`prop:${name}`, value);
      }
    }
  }
  return seen;
}

export function filterCases(visits: readonly ModelVisit[], sites: readonly string[], seed: number, combined: number): FilterCase[] {
  const rand = seededRandom(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const bySite = new Map(sites.map((site) => [site, occurrences(visits.filter((visit) => visit.site === site))]));

  /** A value for `is` / `is_not`: mostly one that occurs, sometimes none that does; codes for countries, continents and regions. */
  function exact(dimension: string, values: readonly string[]): string {
    if (rand() < 0.12) return pick(["zz-none", "/none", "Nothing|Here"]);
    const value = pick(values);
    if ((dimension === "country" || dimension === "continent" || dimension === "region") && rand() < 0.4) {
      const code = value.split(":")[0]!;
      return rand() < 0.5 ? code : code.toLowerCase();
    }
    return value;
  }

  /** A piece of a value that occurs, in any case; cut between characters (never half of 🎉's surrogate pair). */
  function piece(values: readonly string[]): string {
    const value = pick(values);
    const characters = Array.from(value);
    const start = int(characters.length);
    const text = characters.slice(start, start + 1 + int(4)).join("");
    const cased = rand() < 0.3 ? text.toUpperCase() : rand() < 0.5 ? text.toLowerCase() : text;
    return cased.trim() === "" ? value : cased;
  }

  function condition(site: string, dimension: FilterDimension, operator: Operator): SimpleFilter {
    const seen = bySite.get(site)!;
    const name = dimension === "prop" ? pick(seen.get("prop names")!) : "";
    const key = dimension === "prop" ? `prop:${name}` : dimension;
    const values = seen.get(key) ?? ["zz-none"];
    const count = rand() < 0.6 ? 1 : rand() < 0.75 ? 2 : 3;
    const chosen = new Set<string>();
    for (let attempt = 0; chosen.size < count && attempt < 20; attempt++)
      chosen.add(operator.startsWith("contains") ? piece(values) : exact(dimension, values));
    return { dimension: key, operator, values: [...chosen] };
  }

  const cases: FilterCase[] = [];
  const add = (site: string, conditions: FilterCondition[]) => {
    const index = cases.length;
    const [from, to] = RANGES[index % RANGES.length]!;
    const compare = COMPARE[Math.floor(index / RANGES.length) % COMPARE.length];
    cases.push({ site, conditions, from, to, ...(compare ? { compare } : {}) });
  };

  // Each dimension with each operator, alone, on the websites in turn.
  for (const [index, dimension] of FILTER_DIMENSIONS.entries()) {
    for (const [offset, operator] of OPERATORS.entries()) {
      const site = sites[(index + offset) % sites.length]!;
      add(site, [condition(site, dimension, operator)]);
    }
  }
  // Two or three conditions together (sometimes on the same dimension).
  for (let i = 0; i < combined; i++) {
    const site = pick(sites);
    const conditions = Array.from({ length: 2 + int(2) }, () => condition(site, pick(FILTER_DIMENSIONS), pick(OPERATORS)));
    add(site, conditions);
  }
  // Escaped values, a funnel, and filters that keep every visit or none.
  add("utc", [{ dimension: "page", operator: "is", values: ["/a|b", "/pricing"] }]);
  add("ny", [{ dimension: "prop:plan", operator: "is", values: ["a|b\\c", "Team Plus"] }]);
  add("kolkata", [
    { dimension: "event", operator: "is", values: ["purchase"] },
    { dimension: "prop:plan", operator: "is", values: ["pro", "team"] },
  ]);
  add("lordhowe", [
    { dimension: "page", operator: "contains", values: ["/BLOG"] },
    { dimension: "page", operator: "is_not", values: ["/blog/"] },
  ]);
  add("utc", [{ dimension: "page", operator: "is_not", values: ["/never-visited"] }]);
  add("ny", [{ dimension: "browser", operator: "is", values: ["No Such Browser"] }]);
  // contains_not, each dimension alone: last, so the sample above stays as it was.
  for (const [index, dimension] of FILTER_DIMENSIONS.entries()) {
    const site = sites[index % sites.length]!;
    add(site, [condition(site, dimension, "contains_not")]);
  }
  // Pageview properties (after the rest, which stays as it was): one only pageviews have,
  // one events have too (with an event condition), and one among other hit conditions.
  add("ny", [{ dimension: "prop:author", operator: "is", values: ["Jane", "a|b"] }]);
  add("kolkata", [
    { dimension: "prop:plan", operator: "is_not", values: ["pro"] },
    { dimension: "event", operator: "is", values: ["purchase"] },
  ]);
  add("utc", [
    { dimension: "prop:author", operator: "contains", values: ["ü"] },
    { dimension: "page", operator: "contains", values: ["/"] },
  ]);
  add("lordhowe", [{ dimension: "prop:plan", operator: "is", values: ["Team Plus", "free"] }]);
  // Any of a hit condition and a visit condition (and sometimes a third), sometimes beside another condition: last, as above.
  for (let i = 0; i < ANY_CASES; i++) {
    const site = pick(sites);
    const other = () => condition(site, pick(FILTER_DIMENSIONS), pick(OPERATORS));
    const parts = [condition(site, pick(HIT_DIMENSIONS), pick(OPERATORS)), condition(site, pick(VISIT_DIMENSIONS), pick(OPERATORS))];
    if (rand() < 0.4) parts.push(other());
    const any: FilterCondition = { any: parts };
    add(site, rand() < 0.3 ? [any, other()] : [any]);
  }
  return cases;
}
