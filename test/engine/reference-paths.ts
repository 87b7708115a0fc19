/**
 * Funnels and journeys by brute force, from the model's visits and docs/statistics.md
 * ("Funnels and journeys"), written apart from Tally's code: which visits count, what
 * each step is, and what each row counts.
 */
import type { ModelHit, ModelVisit } from "./reference-model.js";
import { pagePattern, visitMatches, type FilterCondition } from "./reference-segments.js";

/** The visits a funnel or journey reads: those that started in the range's local days and match every filter. */
export const visitsOf = (visits: readonly ModelVisit[], from: string, to: string, conditions: readonly FilterCondition[]) =>
  visits.filter((visit) => visit.day >= from && visit.day <= to && conditions.every((condition) => visitMatches(visit, condition)));

/** A step as a test of one hit: `page:<pattern>` a pageview of a matching page, `event:<name>` an event of that name. */
function stepTest(step: string): (hit: ModelHit) => boolean {
  if (step.startsWith("event:")) return (hit) => hit.event === step.slice(6);
  const matches = pagePattern(step.slice(5));
  return (hit) => hit.event === null && matches(hit.page);
}

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((1000 * part) / whole) / 10);

/** Rows of a funnel: visitor-days with a visit that did steps 1…n in order, each step a later hit than the one before. */
export function modelFunnel(visits: readonly ModelVisit[], steps: readonly string[]) {
  const tests = steps.map(stepTest);
  const reached = steps.map(() => new Set<string>());
  for (const visit of visits) {
    let done = 0;
    for (const hit of visit.hits) {
      if (done < steps.length && tests[done]!(hit)) reached[done++]!.add(visit.visitor);
    }
  }
  const visitors = reached.map((set) => set.size);
  return steps.map((label, index) => ({
    step: index + 1,
    label,
    visitors: visitors[index]!,
    conversion_rate: percent(visitors[index]!, visitors[0]!),
    drop_off: index === 0 ? 0 : visitors[index - 1]! - visitors[index]!,
  }));
}

const valueOf = (hit: ModelHit) => (hit.event === null ? `page:${hit.page}` : `event:${hit.event}`);
const codePointOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface JourneyAsk {
  start: string;
  direction: "next" | "previous";
  depth: number;
}

/** Every (step, value) and link with its visitor-days, before keeping the top ten of each step. */
function journeyCounts(visits: readonly ModelVisit[], ask: JourneyAsk) {
  const isStart = stepTest(ask.start);
  const nodes = new Map<string, { step: number; value: string; visitors: Set<string> }>();
  const links = new Map<string, { step: number; from: string; to: string; visitors: Set<string> }>();
  for (const visit of visits) {
    const at = visit.hits.findIndex(isStart);
    if (at < 0) continue;
    // The start, then the values after (or before) it, a value equal to the one before it skipped.
    const path = [ask.start];
    let last = valueOf(visit.hits[at]!);
    const order = ask.direction === "next" ? visit.hits.slice(at + 1) : visit.hits.slice(0, at).reverse();
    for (const hit of order) {
      if (path.length > ask.depth) break;
      if (valueOf(hit) === last) continue;
      last = valueOf(hit);
      path.push(last);
    }
    path.forEach((value, step) => {
      const key = JSON.stringify([step, value]);
      if (!nodes.has(key)) nodes.set(key, { step, value, visitors: new Set() });
      nodes.get(key)!.visitors.add(visit.visitor);
      if (step === 0) return;
      const linkKey = JSON.stringify([step, path[step - 1], value]);
      if (!links.has(linkKey)) links.set(linkKey, { step, from: path[step - 1]!, to: value, visitors: new Set() });
      links.get(linkKey)!.visitors.add(visit.visitor);
    });
  }
  return { nodes: [...nodes.values()], links: [...links.values()] };
}

/** The journey's answer: the ten most frequent values of each step (ties by value), links between nodes shown. */
export function modelJourney(visits: readonly ModelVisit[], ask: JourneyAsk, comparisonVisits?: readonly ModelVisit[]) {
  const { nodes, links } = journeyCounts(visits, ask);
  const shown = nodes
    .map((node) => ({ step: node.step, value: node.value, visitors: node.visitors.size }))
    .sort((a, b) => a.step - b.step || b.visitors - a.visitors || codePointOrder(a.value, b.value))
    .filter((node, index, all) => all.filter((other, j) => j < index && other.step === node.step).length < 10);
  const isShown = (step: number, value: string) => shown.some((node) => node.step === step && node.value === value);
  const shownLinks = links
    .filter((link) => isShown(link.step - 1, link.from) && isShown(link.step, link.to))
    .map((link) => ({ step: link.step, from: link.from, to: link.to, visitors: link.visitors.size }))
    .sort((a, b) => a.step - b.step || b.visitors - a.visitors || codePointOrder(a.from, b.from) || codePointOrder(a.to, b.to));
  if (!comparisonVisits) return { data: shown, links: shownLinks };
  const before = journeyCounts(comparisonVisits, ask).nodes;
  const previousOf = (step: number, value: string) => before.find((node) => node.step === step && node.value === value)?.visitors.size ?? 0;
  return { data: shown.map((node) => ({ ...node, previous: previousOf(node.step, node.value) })), links: shownLinks };
}
