import type { Counters } from "./counters.js";
import type { PendingHit, VisitorState } from "./pending-hit.js";

/** A visit ends after this long without hits. */
export const VISIT_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * Applies hits, in the order they happened, to the visitor states they touch and
 * turns them into counter increments. Pure: the caller loads the states before and
 * saves the touched ones after, in the same transaction.
 */
export function processHits(
  hits: readonly PendingHit[],
  states: Map<string, VisitorState>,
  counters: Counters,
): Set<VisitorState> {
  const touched = new Set<VisitorState>();
  for (const hit of hits) {
    const state = stateFor(hit, states, counters);
    if (startsVisit(hit, state)) {
      state.visitReferrer = hit.referrer;
      state.visitCampaign = hit.campaign;
      counters.add(hit.websiteId, "landing_page", hit.day, hit.page);
      counters.add(hit.websiteId, "referrer", hit.day, hit.referrer);
      counters.add(hit.websiteId, "campaign", hit.day, hit.campaign);
    }
    countOncePerValue(hit, state, counters, "resolution", hit.screen);
    countOncePerValue(hit, state, counters, "language", hit.language);
    countHit(hit, counters);
    state.lastSeen = Math.max(state.lastSeen, hit.timestamp);
    touched.add(state);
  }
  return touched;
}

interface LiveState extends VisitorState {
  /** When the visit this hit may continue last saw a hit (yesterday's, across midnight); 0 for none. */
  visitLastSeen?: number;
}

/** Today's state of the hit's visitor; on their first hit of the day, counts the visitor. */
function stateFor(hit: PendingHit, states: Map<string, VisitorState>, counters: Counters): LiveState {
  let state: LiveState | undefined = states.get(hit.visitor);
  if (state && state.lastSeen > 0) return state;
  const yesterday = hit.previousVisitor ? states.get(hit.previousVisitor) : undefined;
  const continues = yesterday !== undefined && yesterday.lastSeen > 0 && hit.timestamp - yesterday.lastSeen < VISIT_TIMEOUT_MS;
  state = {
    hash: hit.visitor,
    websiteId: hit.websiteId,
    day: hit.day,
    lastSeen: 0,
    visitReferrer: continues ? yesterday.visitReferrer : "",
    visitCampaign: continues ? yesterday.visitCampaign : "",
    seen: "",
    visitLastSeen: continues ? yesterday.lastSeen : 0,
  };
  states.set(hit.visitor, state);
  const { websiteId, day } = hit;
  counters.addDaily(websiteId, "visitors", day, day);
  counters.add(websiteId, "visitors_hours", day, hit.hour);
  counters.add(websiteId, "browser", day, hit.browser);
  counters.add(websiteId, "os", day, hit.os);
  counters.add(websiteId, "device", day, hit.device);
  counters.add(websiteId, "country", day, hit.country);
  counters.add(websiteId, "continent", day, hit.continent);
  counters.add(websiteId, "city", day, hit.city);
  return state;
}

function startsVisit(hit: PendingHit, state: LiveState): boolean {
  const lastSeen = state.lastSeen > 0 ? state.lastSeen : (state.visitLastSeen ?? 0);
  state.visitLastSeen = 0;
  if (lastSeen === 0 || hit.timestamp - lastSeen >= VISIT_TIMEOUT_MS) return true;
  // A hit older than one already counted (two instances flushing a visitor's hits in
  // the other order) joins the visit under way rather than starting a second one.
  if (hit.timestamp < lastSeen) return false;
  if (hit.referrer !== "" && hit.referrer !== state.visitReferrer) return true;
  return hit.campaign !== "" && hit.campaign !== state.visitCampaign;
}

function countOncePerValue(hit: PendingHit, state: VisitorState, counters: Counters, name: string, value: string): void {
  if (value === "") return;
  const marker = `${name}:${value}`;
  if (state.seen.split("\n").includes(marker)) return;
  state.seen = state.seen === "" ? marker : `${state.seen}\n${marker}`;
  counters.add(hit.websiteId, name, hit.day, value);
}

function countHit(hit: PendingHit, counters: Counters): void {
  const { websiteId, day } = hit;
  if (hit.event === null) {
    counters.addDaily(websiteId, "pageviews", day, day);
    counters.add(websiteId, "pageviews_hours", day, hit.hour);
    counters.add(websiteId, "page", day, hit.page);
    return;
  }
  counters.add(websiteId, "event", day, hit.event);
  for (const [key, value] of Object.entries(hit.props ?? {})) {
    counters.add(websiteId, "event_property", day, `${hit.event}\u001f${key}\u001f${value}`);
  }
}
