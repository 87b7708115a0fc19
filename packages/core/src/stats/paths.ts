import type { Condition } from "../model/filters.js";
import type { FunnelRow, JourneyLink, JourneyResult } from "../model/path-schemas.js";
import { parseStep, stepText, type PathStep } from "../model/path-steps.js";
import { ratio } from "../model/stat-names.js";
import { comparisonRange } from "./comparison.js";
import type { DayRange } from "./count-reader.js";
import type { PathReader } from "./path-reader.js";
import { START, stepOfKey, type JourneyCounts, type VisitorsBy } from "./journey-steps.js";
import type { VisitsAnswer, VisitsRequest } from "./sessions.js";
import type { FunnelQuery, JourneyQuery } from "./path-query.js";

/** The reader of one website's hits under a request's filters. */
export type PathsFor = (websiteId: number, conditions: readonly Condition[]) => PathReader;

/** A funnel query with the funnel's steps (`page:…`, `event:…`) looked up. */
export type FunnelRun = FunnelQuery & { steps: readonly string[] };
export type FunnelAnswer = { data: FunnelRow[]; comparison?: DayRange };

/** Most values shown per journey step. */
export const JOURNEY_TOP = 10;

/** Percent with one decimal, as the conversion rate of goals. */
const percent = (part: number, whole: number) => ratio("bounce_rate", part, whole);
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every step key's value (`page:/x`, `event:Signup`), the start as the journey's start. */
async function keyValues(reader: PathReader, keys: readonly number[], start: string): Promise<Map<number, string>> {
  const named = keys.filter((key) => key !== START);
  const values = await reader.valuesOf([...new Set(named.map((key) => stepOfKey(key).id))]);
  const names = new Map(
    named.map((key) => {
      const { id, page } = stepOfKey(key);
      return [key, `${page ? "page" : "event"}:${values.get(id) ?? ""}`];
    }),
  );
  return names.set(START, start);
}

/** Every (step, value) of a range with its visitors, and every link (docs/statistics.md, "Journeys"). */
async function journeyOver(reader: PathReader, query: JourneyQuery, range: DayRange): Promise<JourneyCounts> {
  return reader.journeyCounts(query.start, range, query);
}

/** A step's most frequent keys: the first JOURNEY_TOP by visitors, and any tied with the last of them (names order those). */
function frequentKeys(values: VisitorsBy | undefined): number[] {
  if (!values) return [];
  const counts = [...values.values()].sort((a, b) => b - a);
  const least = counts[Math.min(JOURNEY_TOP, counts.length) - 1]!;
  return [...values].filter(([, visitors]) => visitors >= least).map(([key]) => key);
}

/** The start and the most frequent values of each step (their keys beside), and the links between the nodes kept. */
async function topOf(reader: PathReader, query: JourneyQuery, counts: JourneyCounts) {
  const frequent = counts.nodes.map(frequentKeys);
  const names = await keyValues(reader, frequent.flat(), stepText(query.start));
  const kept = frequent.map((keys, step) =>
    keys
      .map((key) => ({ key, node: { step, value: names.get(key)!, visitors: counts.nodes[step]!.get(key)! } }))
      .sort((a, b) => b.node.visitors - a.node.visitors || byCodePoint(a.node.value, b.node.value))
      .slice(0, JOURNEY_TOP),
  );
  const keptKeys = kept.map((ranked) => new Set(ranked.map(({ key }) => key)));
  const links: JourneyLink[] = [];
  counts.links.forEach((froms, step) => {
    for (const [from, tos] of froms) {
      if (!keptKeys[step - 1]!.has(from)) continue;
      for (const [to, visitors] of tos)
        if (keptKeys[step]!.has(to)) links.push({ step, from: names.get(from)!, to: names.get(to)!, visitors });
    }
  });
  links.sort((a, b) => a.step - b.step || b.visitors - a.visitors || byCodePoint(a.from, b.from) || byCodePoint(a.to, b.to));
  return { kept: kept.flat(), links };
}

/** Answers parsed funnel and journey queries (a part of every StatsRunner). */
export interface PathRunner {
  funnel(websiteId: number, query: FunnelRun): Promise<FunnelAnswer>;
  journey(websiteId: number, query: JourneyQuery): Promise<JourneyResult>;
  /** The sessions explorer's reads (stats/sessions.ts); null for a visit the website does not have. */
  visits(websiteId: number, request: VisitsRequest): Promise<VisitsAnswer | null>;
}

/** Funnels and journeys of a website, read through `pathsFor` (the database of the request's thread). */
export function createPathRunner(pathsFor: PathsFor): PathRunner {
  async function funnel(websiteId: number, query: FunnelRun): Promise<FunnelAnswer> {
    const reader = pathsFor(websiteId, query.conditions);
    const steps = query.steps.map((text) => parseStep(text)).filter((step): step is PathStep => step !== null);
    const visitorsOver = (range: DayRange) => reader.funnelVisitors(steps, range);
    const range = { from: query.from, to: query.to };
    const visitors = await visitorsOver(range);
    const data: FunnelRow[] = visitors.map((count, index) => ({
      step: index + 1,
      label: query.steps[index]!,
      visitors: count,
      conversion_rate: percent(count, visitors[0]!),
      drop_off: index === 0 ? 0 : visitors[index - 1]! - count,
    }));
    if (!query.compare) return { data };
    const comparison = comparisonRange(range, query.compare);
    const previous = await visitorsOver(comparison);
    return { data: data.map((row, index) => ({ ...row, previous: previous[index]! })), comparison };
  }

  async function journey(websiteId: number, query: JourneyQuery): Promise<JourneyResult> {
    const reader = pathsFor(websiteId, query.conditions);
    const range = { from: query.from, to: query.to };
    const { kept, links } = await topOf(reader, query, await journeyOver(reader, query, range));
    const data = kept.map(({ node }) => node);
    if (!query.compare) return { data, links };
    const comparison = comparisonRange(range, query.compare);
    const before = await journeyOver(reader, query, comparison);
    return {
      data: kept.map(({ key, node }) => ({ ...node, previous: before.nodes[node.step]?.get(key) ?? 0 })),
      links,
      comparison,
    };
  }

  const visits = (websiteId: number, request: VisitsRequest) =>
    pathsFor(websiteId, request.kind === "sessions" ? request.query.conditions : []).visits(request);

  return { funnel, journey, visits };
}
