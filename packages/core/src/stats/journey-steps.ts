/**
 * A visit's part in a journey (docs/statistics.md, "Journeys"), worked out where its hits are
 * read (a day block or rows) so that only the few steps a journey counts leave the reader:
 * the start (the visit's first hit matching it), then up to `depth` values after it (or
 * before it, nearest first), a value repeating the one before collapsed.
 */

/** Which way a journey goes from its start, and how many steps. */
export interface JourneyShape {
  direction: "next" | "previous";
  depth: number;
}

/** One visit's steps: `steps[0]` the start's own value, then the values it went to (or came from). */
export interface JourneyVisit {
  visitor: number;
  steps: number[];
}

/** A hit's value as one number: a page's dictionary id even, an event name's odd. */
export const stepKey = (page: number, event: number): number => (event === 0 ? page * 2 : event * 2 + 1);

/** The dictionary id a step key holds, and whether it is a page's. */
export const stepOfKey = (key: number): { id: number; page: boolean } => ({ id: Math.floor(key / 2), page: key % 2 === 0 });

/** The steps of a visit of `length` hits in its order; null when no hit is the start. */
export function visitJourney(
  length: number,
  isStart: (hit: number) => boolean,
  keyAt: (hit: number) => number,
  { direction, depth }: JourneyShape,
): number[] | null {
  let at = 0;
  while (at < length && !isStart(at)) at++;
  if (at === length) return null;
  let last = keyAt(at);
  const steps = [last];
  const move = direction === "next" ? 1 : -1;
  for (let hit = at + move; hit >= 0 && hit < length && steps.length <= depth; hit += move) {
    const key = keyAt(hit);
    if (key !== last) steps.push((last = key));
  }
  return steps;
}

/** Stands for the start in counts: every visit's first step, whatever page or event matched. */
export const START = -1;
/** Visitors of a value at one step, by its key. */
export type VisitorsBy = Map<number, number>;

/** Visitors per step and value key (`nodes`), and per step and link (`links`: from, then to); the start's key is START. */
export interface JourneyCounts {
  nodes: VisitorsBy[];
  links: Map<number, VisitorsBy>[];
}

/**
 * Visitors per step and value key, and per step and link (`from`, then `to`), from the visits'
 * journeys, a visitor's visits coming together: a visitor counts once for each node and link
 * any of their visits took.
 */
export function journeyCounts(visits: readonly JourneyVisit[]): JourneyCounts {
  const nodes: VisitorsBy[] = [];
  const links: Map<number, VisitorsBy>[] = [];
  const bump = (into: VisitorsBy, key: number) => into.set(key, (into.get(key) ?? 0) + 1);
  for (let first = 0; first < visits.length;) {
    let end = first + 1;
    while (end < visits.length && visits[end]!.visitor === visits[first]!.visitor) end++;
    // Only a visitor with several visits needs to remember what they were counted for.
    const seen = end - first > 1 ? new Set<string>() : null;
    const once = (key: string) => !seen!.has(key) && Boolean(seen!.add(key));
    for (let at = first; at < end; at++) {
      const { steps } = visits[at]!;
      for (let step = 0; step < steps.length; step++) {
        const key = step === 0 ? START : steps[step]!;
        if (!seen || once(`${step} ${key}`)) bump((nodes[step] ??= new Map()), key);
        if (step === 0) continue;
        const from = step === 1 ? START : steps[step - 1]!;
        if (seen && !once(`${step} ${from} ${key}`)) continue;
        const into = (links[step] ??= new Map());
        let to = into.get(from);
        if (!to) into.set(from, (to = new Map()));
        bump(to, key);
      }
    }
    first = end;
  }
  return { nodes, links };
}
