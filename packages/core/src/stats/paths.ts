import type { Condition } from "../model/filters.js";
import type { FunnelRow, JourneyLink, JourneyNode, JourneyResult } from "../model/path-schemas.js";
import { parseStep, stepText, type PathStep } from "../model/path-steps.js";
import { ratio } from "../model/stat-names.js";
import { comparisonRange } from "./comparison.js";
import type { DayRange } from "./count-reader.js";
import type { JourneyHit, PathReader } from "./path-reader.js";
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

/** The hits of one visit after (or before, nearest first) its first start, repeats of the value before collapsed, `depth` of them at most. */
function stepsFrom(hits: readonly JourneyHit[], direction: "next" | "previous", depth: number): string[] {
  const at = hits.findIndex((hit) => hit.start);
  const key = (hit: JourneyHit) => (hit.event === 0 ? `p${hit.page}` : `e${hit.event}`);
  const steps: string[] = [];
  let last = key(hits[at]!);
  const move = direction === "next" ? 1 : -1;
  for (let i = at + move; i >= 0 && i < hits.length && steps.length < depth; i += move) {
    const value = key(hits[i]!);
    if (value !== last) steps.push((last = value));
  }
  return steps;
}

/** Visitor sets per (step, value key) and per link, from the hits of the visits with a start. */
function journeyCounts(hits: readonly JourneyHit[], query: JourneyQuery) {
  const nodes = new Map<string, Set<number>>();
  const links = new Map<string, Set<number>>();
  const add = (into: Map<string, Set<number>>, key: string, visitor: number) => {
    let visitors = into.get(key);
    if (!visitors) into.set(key, (visitors = new Set()));
    visitors.add(visitor);
  };
  for (let first = 0; first < hits.length;) {
    let end = first;
    while (end < hits.length && hits[end]!.visit === hits[first]!.visit) end++;
    const visitor = hits[first]!.visitor;
    const steps = ["start", ...stepsFrom(hits.slice(first, end), query.direction, query.depth)];
    steps.forEach((value, step) => {
      add(nodes, `${step} ${value}`, visitor);
      if (step > 0) add(links, `${step} ${steps[step - 1]} ${value}`, visitor);
    });
    first = end;
  }
  return { nodes, links };
}

/** Every page and event id a set of value keys (`p12`, `e7`) names, as their values (`page:/x`, `event:Signup`). */
async function keyValues(reader: PathReader, keys: Iterable<string>, start: string): Promise<Map<string, string>> {
  const unique = [...new Set(keys)].filter((key) => key !== "start");
  const values = await reader.valuesOf([...new Set(unique.map((key) => Number(key.slice(1))))]);
  const named = new Map(unique.map((key) => [key, `${key[0] === "p" ? "page" : "event"}:${values.get(Number(key.slice(1))) ?? ""}`]));
  return named.set("start", start);
}

/** Every (step, value) of a range with its visitors, and every link (docs/statistics.md, "Journeys"). */
async function journeyOver(
  reader: PathReader,
  query: JourneyQuery,
  range: DayRange,
): Promise<{ nodes: JourneyNode[]; links: JourneyLink[] }> {
  const counts = journeyCounts(await reader.journeyHits(query.start, range), query);
  const split = (key: string) => key.split(" ");
  const names = await keyValues(
    reader,
    [...counts.nodes.keys()].map((key) => split(key)[1]!),
    stepText(query.start),
  );
  const nodes = [...counts.nodes].map(([key, visitors]) => {
    const [step, value] = split(key);
    return { step: Number(step), value: names.get(value!)!, visitors: visitors.size };
  });
  const links = [...counts.links].map(([key, visitors]) => {
    const [step, from, to] = split(key);
    return { step: Number(step), from: names.get(from!)!, to: names.get(to!)!, visitors: visitors.size };
  });
  return { nodes, links };
}

/** The start and the most frequent values of each step, and the links between the nodes kept. */
function topOf(journey: { nodes: JourneyNode[]; links: JourneyLink[] }, depth: number): { nodes: JourneyNode[]; links: JourneyLink[] } {
  const nodes: JourneyNode[] = [];
  for (let step = 0; step <= depth; step++) {
    const ranked = journey.nodes
      .filter((node) => node.step === step)
      .sort((a, b) => b.visitors - a.visitors || byCodePoint(a.value, b.value))
      .slice(0, JOURNEY_TOP);
    nodes.push(...ranked);
  }
  const kept = new Set(nodes.map((node) => `${node.step} ${node.value}`));
  const links = journey.links
    .filter((link) => kept.has(`${link.step - 1} ${link.from}`) && kept.has(`${link.step} ${link.to}`))
    .sort((a, b) => a.step - b.step || b.visitors - a.visitors || byCodePoint(a.from, b.from) || byCodePoint(a.to, b.to));
  return { nodes, links };
}

/** Answers parsed funnel and journey queries (a part of every StatsRunner). */
export interface PathRunner {
  funnel(websiteId: number, query: FunnelRun): Promise<FunnelAnswer>;
  journey(websiteId: number, query: JourneyQuery): Promise<JourneyResult>;
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
    const { nodes, links } = topOf(await journeyOver(reader, query, range), query.depth);
    if (!query.compare) return { data: nodes, links };
    const comparison = comparisonRange(range, query.compare);
    const before = await journeyOver(reader, query, comparison);
    const previousOf = new Map(before.nodes.map((node) => [`${node.step} ${node.value}`, node.visitors]));
    return { data: nodes.map((node) => ({ ...node, previous: previousOf.get(`${node.step} ${node.value}`) ?? 0 })), links, comparison };
  }

  return { funnel, journey };
}
