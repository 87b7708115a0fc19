import { createCounters, type CounterRow } from "./counters.js";
import type { PendingHit, VisitorState } from "./pending-hit.js";
import { processHits } from "./visit-processor.js";

/** What a write touches: the visitor rows it may create (today's) and every row it reads. */
export interface FlushWork {
  claim: { hash: string; websiteId: number; day: string }[];
  read: string[];
}

export function flushWork(hits: readonly PendingHit[]): FlushWork {
  const claim = new Map<string, { hash: string; websiteId: number; day: string }>();
  const read = new Set<string>();
  for (const hit of hits) {
    claim.set(hit.visitor, { hash: hit.visitor, websiteId: hit.websiteId, day: hit.day });
    read.add(hit.visitor);
    if (hit.previousVisitor) read.add(hit.previousVisitor);
  }
  return { claim: [...claim.values()], read: [...read] };
}

/** Applies hits to the loaded visitor states: the states to save and the counts to add. */
export function applyHits(
  hits: readonly PendingHit[],
  states: Map<string, VisitorState>,
): { touched: Iterable<VisitorState>; counts: CounterRow[] } {
  const counters = createCounters();
  const touched = processHits(hits, states, counters);
  return { touched, counts: counters.rows() };
}
