import { dayNumber } from "../shared/calendar.js";
import { VISIT_COLUMNS } from "../model/dimensions.js";
import { compileLiteral } from "../shared/compiled-literal.js";
import type { Dictionary } from "./dictionary.js";
import type { FlushIo, TouchedDay, VisitRow } from "./flush-io.js";
import { rowOf, stateOf } from "./flush-io.js";
import type { Hit } from "../model/hit.js";
import type { NewVisit } from "./visit-ledger.js";
import type { Steps } from "../shared/steps.js";
import { processHits, type FlushChanges } from "./visit-processor.js";
import { writeCounts } from "./rollup-counts.js";

/** What a flush touches: its websites, in order, and the visitor rows it reads. */
export interface FlushWork {
  websites: number[];
  read: string[];
}

export function flushWork(hits: readonly Hit[]): FlushWork {
  const websites = new Set<number>();
  const read = new Set<string>();
  for (const hit of hits) {
    websites.add(hit.websiteId);
    read.add(hit.visitorHash);
    if (hit.previousVisitorHash) read.add(hit.previousVisitorHash);
    if (hit.nextVisitorHash) read.add(hit.nextVisitorHash);
  }
  return { websites: [...websites].sort((a, b) => a - b), read: [...read] };
}

/** A new visit's row: its counts, then the id of each visit column's value (model/dimensions.ts). */
const visitRow = compileLiteral<(visit: NewVisit, id: Dictionary["id"], firstVisitId: number) => VisitRow>(
  ["visit", "id", "firstVisitId"],
  [
    ["website_id", "visit.first.websiteId"],
    ["visitor", "firstVisitId"],
    ["start", "visit.first.localTime"],
    ["duration", "visit.change.duration"],
    ["pageviews", "visit.change.pageviews"],
    ["events", "visit.change.events"],
    ["engaged", "Math.floor(visit.change.engagedMs / 1000)"],
    ...VISIT_COLUMNS.map(({ column, kind, counted }) => {
      const value = counted === "exit" ? `visit.change.exitPage ?? ""` : `visit.first.values.${kind}`;
      return [column, `id(visit.first.websiteId, "${kind}", ${value})`] as const;
    }),
  ],
);

/** The days (of visit start) whose visits, hits or properties a flush adds or changes, each with its latest hit. */
export function touchedDays(changes: FlushChanges): TouchedDay[] {
  const days = new Map<string, TouchedDay>();
  const dayOfVisit = new Map<number, TouchedDay>();
  for (const change of [...changes.newVisits.map((visit) => visit.change), ...changes.visitUpdates]) {
    const day = dayNumber(change.day);
    const key = `${change.websiteId}:${day}`;
    let touched = days.get(key);
    if (!touched) days.set(key, (touched = { website_id: change.websiteId, day, last_hit: 0 }));
    dayOfVisit.set(change.id, touched);
  }
  for (const hit of changes.hits) {
    const touched = dayOfVisit.get(hit.visit);
    if (touched) touched.last_hit = Math.max(touched.last_hit, hit.time);
  }
  return [...days.values()];
}

/**
 * Stores the flush's new visits and answers their ids by provisional order (-1 → [0]).
 * A visit's `visitor` column is 0 when it is its visitor-day's first, else the id of that
 * first (always stored before it).
 */
function* storeNewVisits(
  io: FlushIo,
  visits: readonly NewVisit[],
  rowOf: (visit: NewVisit, firstVisitId: number) => VisitRow,
): Steps<number[]> {
  const firstIdOf = ({ id, firstVisitId }: NewVisit, ids: readonly number[]) =>
    firstVisitId === id ? 0 : firstVisitId < 0 ? ids[-firstVisitId - 1]! : firstVisitId;
  if (io.reserveVisitIds) {
    const ids = visits.length === 0 ? [] : yield* io.reserveVisitIds(visits.length);
    yield* io.insertVisitsWithIds(visits.map((visit, index) => ({ id: ids[index]!, ...rowOf(visit, firstIdOf(visit, ids)) })));
    return ids;
  }
  const ids: number[] = [];
  for (const visit of visits) ids.push(yield* io.insertVisit(rowOf(visit, firstIdOf(visit, ids))));
  return ids;
}

/**
 * One flush, inside the transaction the store opened: record its batch id (or stop: that
 * batch is written already), intern the hits' values, load and
 * apply the visitor states, then store new visits (learning their ids), visit changes,
 * hit and property rows, states and rollup counts.
 */
export function* writeFlush(io: FlushIo, dictionary: Dictionary, batch: readonly Hit[], batchId: string): Steps<void> {
  // First, so that a second process replaying the same batch waits here for this one to commit, then skips it.
  if (!(yield* io.claimBatch(batchId, Date.now()))) return;
  const outboxIds = batch.flatMap((hit) => (hit.outboxId === undefined ? [] : [hit.outboxId]));
  if (outboxIds.length > 0) yield* io.deleteOutboxRows(outboxIds);
  const hits = yield* dictionary.intern(io, batch);
  const work = flushWork(hits);
  yield* io.lockWebsites(work.websites);
  const loaded = yield* io.loadVisitors(work.read);
  const states = new Map(loaded.map((row) => [row.hash, stateOf(row)]));
  const changes = processHits(hits, states);
  const id = dictionary.id;

  const stored = yield* storeNewVisits(io, changes.newVisits, (visit, visitor) => visitRow(visit, id, visitor));
  const real = (visit: number) => (visit < 0 ? stored[-visit - 1]! : visit);

  yield* io.updateVisits(
    changes.visitUpdates.map((change) => ({
      id: change.id,
      pageviews: change.pageviews,
      events: change.events,
      duration: change.duration,
      exit_page: change.exitPage === null ? 0 : id(change.websiteId, "page", change.exitPage),
      engaged: Math.floor(change.engagedMs / 1000),
    })),
  );
  yield* io.insertHits(
    changes.hits.map((hit) => ({
      website_id: hit.websiteId,
      visit_id: real(hit.visit),
      time: hit.time,
      page: id(hit.websiteId, "page", hit.page),
      event: id(hit.websiteId, "event", hit.event),
      seq: hit.seq,
    })),
  );
  yield* io.insertProps(
    changes.props.map((prop) => ({
      website_id: prop.websiteId,
      visit_id: real(prop.visit),
      time: prop.time,
      event: id(prop.websiteId, "event", prop.event),
      seq: prop.seq,
      name: id(prop.websiteId, "prop_name", prop.name),
      value: id(prop.websiteId, "prop_value", prop.value),
    })),
  );
  yield* io.insertRevenues(
    changes.revenues.map(({ websiteId, visit, time, event, seq, amount, currency }) => ({
      website_id: websiteId,
      visit_id: real(visit),
      time,
      event: id(websiteId, "event", event),
      seq,
      amount,
      currency,
    })),
  );
  yield* io.insertEngagements(
    changes.engagements.map(({ websiteId, visit, time, page, engagedMs, scrollDepth, vitals }) => ({
      website_id: websiteId,
      visit_id: real(visit),
      time,
      page: id(websiteId, "page", page),
      engaged_ms: engagedMs,
      scroll_depth: scrollDepth ?? null, // a signal spilled by an older version has none
      lcp: vitals?.lcp ?? null,
      inp: vitals?.inp ?? null,
      cls: vitals?.cls ?? null,
      fcp: vitals?.fcp ?? null,
      ttfb: vitals?.ttfb ?? null,
    })),
  );
  yield* io.saveVisitors(
    changes.states.map((state) => rowOf({ ...state, firstVisitId: real(state.firstVisitId), visit: real(state.visit) })),
  );
  yield* writeCounts(io, changes.counts);
  yield* io.touchDays(touchedDays(changes));
}
