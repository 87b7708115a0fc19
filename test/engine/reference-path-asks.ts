/**
 * The funnels and journeys the path reference tests ask of a real Tally, each against the
 * brute force over the visits the store still holds (reference-paths.ts): every funnel and
 * journey, over ranges, with and without filters and comparisons. The SQLite/PostgreSQL and
 * ClickHouse reference tests share them.
 */
import { isDeepStrictEqual } from "node:util";
import { comparisonRange, type CompareMode } from "./reference-answers.js";
import type { Reference } from "./reference-fixture.js";
import { modelFunnel, modelJourney, visitsOf, type JourneyAsk } from "./reference-paths.js";
import { filterText, keptVisits, type FilterCondition } from "./reference-segments.js";

export const FUNNELS: string[][] = [
  ["page:/", "page:/pricing"],
  ["page:/blog/*", "event:signup", "event:purchase"],
  ["page:/pricing", "page:/signup*", "event:signup", "event:purchase"],
  // A step repeated, an event on any page between pageviews, a pattern matching every page.
  ["event:Search", "page:/*", "event:Search", "page:/docs*"],
  ["page:/caf%C3%A9", "page:/a|b", "event:🎉 Celebrate"],
  ["page:/*", "page:/*", "page:/*", "page:/*", "page:/*", "page:/*", "page:/*", "page:/*"],
];

export const JOURNEYS: JourneyAsk[] = [
  { start: "page:/pricing", direction: "next", depth: 3 },
  { start: "page:/pricing", direction: "previous", depth: 2 },
  { start: "page:/blog/*", direction: "next", depth: 5 },
  { start: "event:signup", direction: "previous", depth: 5 },
  { start: "event:purchase", direction: "next", depth: 1 },
  { start: "page:/", direction: "next", depth: 4 },
];

/** Ranges, filters and comparisons asked of every funnel and journey on every site. */
const CASES: { from: string; to: string; filter: FilterCondition[]; compare?: CompareMode }[] = [
  { from: "2026-02-20", to: "2026-04-10", filter: [] },
  { from: "2025-01-01", to: "2028-12-31", filter: [] },
  { from: "2026-03-08", to: "2026-03-08", filter: [] },
  { from: "2026-06-01", to: "2026-06-30", filter: [] },
  { from: "2026-02-20", to: "2026-04-10", filter: [{ dimension: "device", operator: "is", values: ["mobile"] }] },
  { from: "2026-02-20", to: "2026-04-10", filter: [{ dimension: "page", operator: "contains", values: ["/blog"] }] },
  {
    from: "2026-03-05",
    to: "2026-03-11",
    filter: [{ dimension: "country", operator: "is_not", values: ["US"] }],
    compare: "previous_period",
  },
  { from: "2026-02-20", to: "2026-03-21", filter: [], compare: "year" },
  // Any of a visit condition and a hit condition (`||`).
  {
    from: "2026-02-20",
    to: "2026-04-10",
    filter: [
      {
        any: [
          { dimension: "device", operator: "is", values: ["mobile"] },
          { dimension: "page", operator: "contains", values: ["/blog"] },
        ],
      },
    ],
  },
];

/** Each site's funnels, defined through `tally.funnels`: their ids by their steps. */
export async function createFunnels(reference: Reference): Promise<Map<string, Map<string, number>>> {
  const funnelIds = new Map<string, Map<string, number>>();
  for (const [site, websiteId] of reference.websiteIds) {
    const ids = new Map<string, number>();
    for (const [index, steps] of FUNNELS.entries()) {
      const funnel = await reference.tally.funnels.create(reference.accountId, websiteId, { name: `Funnel ${index}`, steps });
      ids.set(steps.join(" → "), funnel.id);
    }
    funnelIds.set(site, ids);
  }
  return funnelIds;
}

const visitsFor = (reference: Reference, site: string, from: string, to: string, filter: FilterCondition[]) =>
  visitsOf(keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!), from, to, filter);

/** Every funnel on `sites`, over every range, filter set and comparison: the first problems, and the visitors of the funnels' last steps. */
export async function funnelProblems(
  reference: Reference,
  funnelIds: Map<string, Map<string, number>>,
  sites: readonly string[] = [...reference.websiteIds.keys()],
): Promise<{ problems: string[]; converted: number }> {
  const problems: string[] = [];
  let converted = 0;
  for (const site of sites) {
    for (const steps of FUNNELS) {
      for (const { from, to, filter, compare } of CASES) {
        const rows = modelFunnel(visitsFor(reference, site, from, to, filter), steps);
        let expected: unknown = { data: rows };
        if (compare) {
          const comparison = comparisonRange(from, to, compare);
          const previous = modelFunnel(visitsFor(reference, site, comparison.from, comparison.to, filter), steps);
          expected = { data: rows.map((row, index) => ({ ...row, previous: previous[index]!.visitors })), comparison };
        }
        const funnel = funnelIds.get(site)!.get(steps.join(" → "))!;
        const got = await reference.tally.stats.funnel(reference.accountId, reference.websiteIds.get(site)!, {
          funnel,
          from,
          to,
          filter: filter.map(filterText),
          ...(compare ? { compare } : {}),
        });
        const { funnel: named, ...answer } = got;
        if (named.id !== funnel) problems.push(`${site} ${steps.join(" → ")}: answered funnel ${named.id}, asked ${funnel}`);
        converted += rows.at(-1)!.visitors;
        if (!isDeepStrictEqual(answer, expected) && problems.length < 5) {
          problems.push(
            `${site} ${steps.join(" → ")} ${from}..${to} ${JSON.stringify(filter)}: got ${JSON.stringify(answer)} expected ${JSON.stringify(expected)}`,
          );
        }
      }
    }
  }
  return { problems, converted };
}

/** Every journey on `sites`, over every range, filter set and comparison: the first problems, and the deepest step the model reached. */
export async function journeyProblems(
  reference: Reference,
  sites: readonly string[] = [...reference.websiteIds.keys()],
): Promise<{ problems: string[]; deepest: number }> {
  const problems: string[] = [];
  let deepest = 0;
  for (const site of sites) {
    for (const ask of JOURNEYS) {
      for (const { from, to, filter, compare } of CASES) {
        const comparison = compare ? comparisonRange(from, to, compare) : undefined;
        const journey = modelJourney(
          visitsFor(reference, site, from, to, filter),
          ask,
          comparison ? visitsFor(reference, site, comparison.from, comparison.to, filter) : undefined,
        );
        const expected = comparison ? { ...journey, comparison } : journey;
        const [kind, value] = [ask.start.slice(0, ask.start.indexOf(":")), ask.start.slice(ask.start.indexOf(":") + 1)];
        const got = await reference.tally.stats.journey(reference.accountId, reference.websiteIds.get(site)!, {
          [kind === "page" ? "from_page" : "from_event"]: value,
          direction: ask.direction,
          depth: ask.depth,
          from,
          to,
          filter: filter.map(filterText),
          ...(compare ? { compare } : {}),
        });
        deepest = Math.max(deepest, ...journey.data.map((node) => node.step));
        if (!isDeepStrictEqual({ ...got }, expected) && problems.length < 5) {
          problems.push(
            `${site} ${JSON.stringify(ask)} ${from}..${to} ${JSON.stringify(filter)}: got ${JSON.stringify(got)} expected ${JSON.stringify(expected)}`,
          );
        }
      }
    }
  }
  return { problems, deepest };
}
