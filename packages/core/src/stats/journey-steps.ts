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
