import { createCounters, type Counters } from "../model/counters.js";
import { PAGEVIEW_EVENT, PROPERTY_SEPARATOR, VISIT_COLUMNS, type Counted, type VisitColumnOf } from "../model/dimensions.js";
import { newVisitorState, type Hit, type VisitorState } from "../model/hit.js";
import {
  createVisitLedger,
  type EngagementRow,
  type HitRow,
  type NewVisit,
  type PropRow,
  type RevenueRow,
  type VisitChange,
  type VisitLedger,
} from "./visit-ledger.js";

/** The visit columns by how their statistic is counted. */
const COUNTED = Object.fromEntries(
  (["visit", "visitor", "visitor-value", "exit", "pageview"] as const).map((counted) => [
    counted,
    VISIT_COLUMNS.filter((column) => column.counted === counted),
  ]),
) as unknown as Record<Counted, readonly VisitColumnOf[]>;

/** A visit ends after this long without activity. */
export const VISIT_TIMEOUT_MS = 30 * 60 * 1000;

/** Values remembered per visitor-day for the once-per-visitor counts: bounded work and row size whatever a client sends. */
export const MAX_SEEN_PER_VISITOR = 32;

/** Everything a flush writes, besides the dimension values it interned before. */
export interface FlushChanges {
  /** Visitor states to save. */
  states: VisitorState[];
  /** The rollup counts, turned into rows once the flush knows which periods have closed. */
  counts: Counters;
  newVisits: readonly NewVisit[];
  visitUpdates: VisitChange[];
  hits: HitRow[];
  props: PropRow[];
  revenues: RevenueRow[];
  engagements: EngagementRow[];
}

/** What one flush works with: counters, visits, the hit rows and the states it touched. */
interface Flush {
  states: Map<string, VisitorState>;
  counters: Counters;
  visits: VisitLedger;
  touched: Set<VisitorState>;
  hits: HitRow[];
  props: PropRow[];
  revenues: RevenueRow[];
  engagements: EngagementRow[];
}

/**
 * Applies hits and engagement signals, in the order given, to the visitor states they
 * touch: rollup increments, new and changed visits, hit rows. Pure: the caller loads the
 * states before and stores everything after, in one transaction (docs/statistics.md).
 */
export function processHits(hits: readonly Hit[], states: Map<string, VisitorState>): FlushChanges {
  const flush: Flush = {
    states,
    counters: createCounters(),
    visits: createVisitLedger(),
    touched: new Set(),
    hits: [],
    props: [],
    revenues: [],
    engagements: [],
  };
  for (const hit of hits) {
    if (hit.kind === "engagement") applyEngagement(flush, hit);
    else applyHit(flush, hit);
  }
  return {
    states: [...flush.touched],
    counts: flush.counters,
    newVisits: flush.visits.created(),
    visitUpdates: flush.visits.updates(),
    hits: flush.hits,
    props: flush.props,
    revenues: flush.revenues,
    engagements: flush.engagements,
  };
}

function applyHit(flush: Flush, hit: Hit): void {
  const own = stateFor(flush, hit);
  // A hit older than the person's latest one (this day's, or the next day's) joins that visit.
  const next = hit.nextVisitorHash ? flush.states.get(hit.nextVisitorHash) : undefined;
  const holder = next !== undefined && next.lastSeen > hit.timestamp ? next : own;
  const late = hit.timestamp < holder.lastSeen;
  if (!late && startsVisit(hit, own)) startVisit(flush, hit, own);
  flush.touched.add(own).add(holder);
  for (const { statistic, kind } of COUNTED["visitor-value"]) countOncePerValue(flush.counters, hit, own, statistic, hit.values[kind]);
  if (hit.kind === "event") countOncePerValue(flush.counters, hit, own, "event_visitors", hit.values.event, "goal");
  addToVisit(flush, hit, holder, late);
  countHit(flush, hit, holder);
  own.lastSeen = Math.max(own.lastSeen, hit.timestamp);
}

/** This day's state of the hit's visitor; on their first hit of the day, counts the visitor. */
function stateFor(flush: Flush, hit: Hit): VisitorState {
  const known = flush.states.get(hit.visitorHash);
  if (known && known.lastSeen > 0) return known;
  const state = newVisitorState(hit.visitorHash, hit.websiteId, hit.day);
  const yesterday = hit.previousVisitorHash ? flush.states.get(hit.previousVisitorHash) : undefined;
  if (yesterday !== undefined && yesterday.lastSeen > 0 && hit.timestamp - yesterday.lastSeen < VISIT_TIMEOUT_MS) {
    // The visit under way runs past midnight: this day's state carries it on.
    Object.assign(state, visitOf(yesterday), { lastSeen: yesterday.lastSeen });
  }
  flush.states.set(hit.visitorHash, state);
  const { counters } = flush;
  const { websiteId, day } = hit;
  counters.addDaily(websiteId, "visitors", day, day);
  counters.add(websiteId, "visitors_hours", day, hit.hour);
  for (const { statistic, kind } of COUNTED.visitor) counters.add(websiteId, statistic, day, hit.values[kind]);
  return state;
}

const visitOf = (state: VisitorState) => ({
  visitReferrer: state.visitReferrer,
  visitCampaign: state.visitCampaign,
  visitHostname: state.visitHostname,
  visit: state.visit,
  visitStart: state.visitStart,
  visitDay: state.visitDay,
  visitPageviews: state.visitPageviews,
  visitEvents: state.visitEvents,
  visitExit: state.visitExit,
});

function startsVisit(hit: Hit, state: VisitorState): boolean {
  if (state.lastSeen === 0 || state.visit === 0 || hit.timestamp - state.lastSeen >= VISIT_TIMEOUT_MS) return true;
  const { referrer, utm_campaign: campaign, hostname } = hit.values;
  if (referrer !== "" && referrer !== state.visitReferrer) return true;
  // A visit is on one host (docs/statistics.md, "Hostname"); "" is a state from before hosts were kept.
  if (hostname !== "" && state.visitHostname !== "" && hostname !== state.visitHostname) return true;
  return campaign !== "" && campaign !== state.visitCampaign;
}

function startVisit(flush: Flush, hit: Hit, state: VisitorState): void {
  const visit = flush.visits.start(hit, state.firstVisitId);
  Object.assign(state, {
    firstVisitId: visit.firstVisitId,
    visit: visit.id,
    visitStart: hit.timestamp,
    visitDay: hit.day,
    visitReferrer: hit.values.referrer,
    visitCampaign: hit.values.utm_campaign,
    visitHostname: hit.values.hostname,
    visitPageviews: 0,
    visitEvents: 0,
    visitExit: "",
  });
  const { counters } = flush;
  const { websiteId, day } = hit;
  counters.addDaily(websiteId, "visits", day, day);
  for (const { statistic, kind } of COUNTED.visit) counters.add(websiteId, statistic, day, hit.values[kind]);
}

const isBounce = (state: VisitorState) => state.visitPageviews === 1 && state.visitEvents === 0;
const durationOf = (state: VisitorState) => Math.max(0, Math.floor((state.lastSeen - state.visitStart) / 1000));

/**
 * Counts a hit into the visit `holder` carries: its counts, bounce, exit page and
 * duration, and the rollups keyed by the day the visit started. A late hit never moves
 * the exit page or the duration (a later hit was counted already).
 */
function addToVisit(flush: Flush, hit: Hit, holder: VisitorState, late: boolean): void {
  const { counters, visits } = flush;
  const { websiteId } = hit;
  const day = holder.visitDay;
  const change = visits.change(holder.visit, websiteId, day);
  const bounced = isBounce(holder);
  if (hit.kind === "pageview") {
    holder.visitPageviews++;
    change.pageviews++;
    counters.addDaily(websiteId, "visit_pageviews", day, day);
    const { page } = hit.values;
    if (!late && holder.visitExit !== page) {
      for (const { statistic } of COUNTED.exit) {
        counters.add(websiteId, statistic, day, holder.visitExit, -1);
        counters.add(websiteId, statistic, day, page);
      }
      holder.visitExit = change.exitPage = page;
    }
  } else {
    holder.visitEvents++;
    change.events++;
  }
  counters.addDaily(websiteId, "bounces", day, day, Number(isBounce(holder)) - Number(bounced));
  if (!late) extendVisit(flush, holder, hit.timestamp);
}

/** New activity at `time`: the visit lasts until then (and `holder.lastSeen` moves there). */
function extendVisit(flush: Flush, holder: VisitorState, time: number): void {
  if (time <= holder.lastSeen && holder.lastSeen >= holder.visitStart) return;
  const before = holder.lastSeen >= holder.visitStart ? durationOf(holder) : 0;
  holder.lastSeen = Math.max(holder.lastSeen, time);
  const after = durationOf(holder);
  const change = flush.visits.change(holder.visit, holder.websiteId, holder.visitDay);
  change.duration = Math.max(change.duration, after);
  flush.counters.addDaily(holder.websiteId, "visit_duration", holder.visitDay, holder.visitDay, after - before);
}

/**
 * An engagement signal: engaged time and activity for the visit of the person's latest
 * activity that day (or the day before); never a visitor, a visit or a hit.
 */
function applyEngagement(flush: Flush, signal: Hit): void {
  const today = flush.states.get(signal.visitorHash);
  const yesterday = signal.previousVisitorHash ? flush.states.get(signal.previousVisitorHash) : undefined;
  const holder = today && today.lastSeen > 0 && today.visit !== 0 ? today : yesterday;
  if (!holder || holder.lastSeen === 0 || holder.visit === 0) return;
  flush.visits.change(holder.visit, holder.websiteId, holder.visitDay).engagedMs += signal.engagedMs;
  const { websiteId, localTime: time, engagedMs, scrollDepth, vitals } = signal;
  flush.engagements.push({ websiteId, visit: holder.visit, time, page: signal.values.page, engagedMs, scrollDepth, vitals });
  if (signal.timestamp > holder.lastSeen) extendVisit(flush, holder, signal.timestamp);
  flush.touched.add(holder);
}

/** Counts `value` once per visitor-day, remembering at most MAX_SEEN_PER_VISITOR values. */
function countOncePerValue(counters: Counters, hit: Hit, state: VisitorState, name: string, value: string, tag = name): void {
  if (value === "") return;
  const marker = `${tag}:${value}`;
  if (state.seen.has(marker) || state.seen.size >= MAX_SEEN_PER_VISITOR) return;
  state.seen.add(marker);
  counters.add(hit.websiteId, name, hit.day, value);
}

/** Counts a hit, the latest of the visit `holder` carries, and keeps its row and its properties' rows. */
function countHit(flush: Flush, hit: Hit, holder: VisitorState): void {
  const { counters } = flush;
  const { websiteId, day } = hit;
  const { page, event } = hit.values;
  const { visit } = holder;
  const seq = holder.visitPageviews + holder.visitEvents - 1;
  flush.hits.push({ websiteId, visit, time: hit.localTime, page, event, seq });
  if (hit.kind === "pageview") {
    counters.addDaily(websiteId, "pageviews", day, day);
    counters.add(websiteId, "pageviews_hours", day, hit.hour);
    counters.add(websiteId, "page", day, page);
    // Under the visit's host: a late hit of another host joined this visit all the same.
    for (const { statistic } of COUNTED.pageview) counters.add(websiteId, statistic, day, holder.visitHostname);
  } else counters.add(websiteId, "event", day, event);
  // A pageview's properties are listed under the event `pageview`; its rows keep its own event, "".
  const listedAs = hit.kind === "pageview" ? PAGEVIEW_EVENT : event;
  for (const [name, value] of Object.entries(hit.props ?? {})) {
    // An empty value is stored (`prop:<name>:is_not:…` sees it) but, like every empty value, never listed.
    if (value !== "") counters.add(websiteId, "event_property", day, [listedAs, name, value].join(PROPERTY_SEPARATOR));
    flush.props.push({ websiteId, visit, time: hit.localTime, event, seq, name, value });
  }
  if (hit.revenue) flush.revenues.push({ websiteId, visit, time: hit.localTime, event, seq, ...hit.revenue });
}
