import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import type { Condition } from "../model/filters.js";
import type { PathStep } from "../model/path-steps.js";
import { localBounds, type DayRange } from "./count-reader.js";
import { dictionaryValues } from "./dictionary-values.js";
import { segmentConditions } from "./segment-conditions.js";
import { preparedConditions } from "./pattern-matches.js";
import { resolveConditions, VISITOR } from "./segment-reader.js";
import { conditionColumns, type ResolvedCondition } from "./day-block-counter.js";
import {
  blockJourneyVisits,
  countBlockFunnel,
  currentBlocks,
  stepBits,
  type PathBlock,
  type RangeBlocks,
  type StepBits,
} from "./path-blocks.js";
import { journeyCounts, stepKey, visitJourney, type JourneyCounts, type JourneyShape, type JourneyVisit } from "./journey-steps.js";
import type { EngagementSignal } from "./engagement.js";
import { sessionReads, type VisitsAnswer, type VisitsRequest } from "./sessions.js";
import { VITALS } from "../model/hit-input.js";
import type { RevenueSum } from "../model/revenue.js";

type Sql = RawBuilder<unknown>;

/** A hit of a visit read from rows, in the visit's order: `steps` has bit i set when it matches step i. */
interface StepHit {
  visit: number;
  visitor: number;
  steps: number;
}

/** The stored hits funnels and journeys are computed from (docs/statistics.md, "Funnels and journeys"). */
export interface PathReader {
  /** Visitors of each step, of the visits starting in the range that match the filters (docs/statistics.md, "Funnels"). */
  funnelVisitors(steps: readonly PathStep[], range: DayRange): Promise<number[]>;
  /** The visitors of each journey step and link, of the visits starting in the range, matching the filters, that have a hit matching `start`. */
  journeyCounts(start: PathStep, range: DayRange, shape: JourneyShape): Promise<JourneyCounts>;
  /** The engagement signals of the visits starting in the range that match the filters (docs/statistics.md, "Engagement"). */
  engagementSignals(range: DayRange): Promise<EngagementSignal[]>;
  /**
   * Revenue of the events in the range (by their own time) that the filters count, per event
   * name and currency (docs/revenue.md): from the rows only, so within `retention_days`.
   */
  revenue(range: DayRange): Promise<RevenueSum[]>;
  /** The values of dictionary ids (pages, event names). */
  valuesOf(ids: readonly number[]): Promise<Map<number, string>>;
  /** How many hits lie in the range, counting no further than `atMost + 1` (a bound checked before running). */
  rowsRead(range: DayRange, atMost: number): Promise<number>;
  /** The sessions explorer's reads (stats/sessions.ts): a page of matching visits, a visit's hits, an event's property names. */
  visits(request: VisitsRequest): Promise<VisitsAnswer | null>;
}

/** Visitors of each step: visitor-days with a visit that did steps 1…n in order. */
function visitorsOfHits(hits: readonly StepHit[], stepCount: number): number[] {
  const reached = Array.from({ length: stepCount }, () => new Set<number>());
  let visit = -1;
  let next = 0;
  for (const hit of hits) {
    if (hit.visit !== visit) [visit, next] = [hit.visit, 0];
    // The earliest hit of each step, in order: one hit makes one step.
    if (next < stepCount && (hit.steps & (2 ** next)) !== 0) reached[next++]!.add(hit.visitor);
  }
  return reached.map((visitors) => visitors.size);
}

/** Local seconds `[start, end)`. */
type Span = [number, number];

/** The runs of consecutive days without a block, as spans. */
function spansWithout({ days, blocks }: RangeBlocks): Span[] {
  const spans: Span[] = [];
  for (const day of days) {
    if (blocks.has(day)) continue;
    const last = spans[spans.length - 1];
    if (last && last[1] === day * 86_400) last[1] += 86_400;
    else spans.push([day * 86_400, (day + 1) * 86_400]);
  }
  return spans;
}

/** Visits and hits of one website, filtered by `conditions`, read a visit at a time in hit order. */
export function createPathReader(
  db: Kysely<Database>,
  dialect: SqlDialect,
  websiteId: number,
  conditions: readonly Condition[],
): PathReader {
  const prepare = preparedConditions(db, dialect, websiteId, conditions);
  /** The conditions' SQL: patterns matched first where the database cannot (every read starts with `prepare`). */
  let where = segmentConditions(dialect, websiteId, conditions);

  async function run<T>(query: Sql): Promise<T[]> {
    return (await query.execute(db)).rows as T[];
  }

  /** Whether the hit `h` is the step: a pageview of a matching page, or an event of the name. */
  const isStep = (step: PathStep): Sql =>
    step.kind === "page"
      ? sql`(h.event = 0 and h.page in ${where.pagesMatching(step.pattern)})`
      : sql`h.event in ${where.idsOf("event", step.name)}`;

  /**
   * Hits of the matching visits that started in `[start, end)` (local seconds), in each visit's
   * order: by `seq`, as they came (local times go back when clocks do; rows older than `seq` all
   * have 0). The hits drive, read by time (rows lie in about that order): from a day before
   * (a late hit joins the visit its person started next) to the latest hit of the visits
   * started in it (`day_versions`).
   */
  function hitsOf(start: number, end: number): Sql {
    const lastHit = sql`(select max(d.last_hit) from day_versions d
      where d.website_id = ${websiteId} and d.day >= ${start / 86_400} and d.day < ${end / 86_400})`;
    return sql`h.website_id = ${websiteId} and h.time >= ${start - 86_400} and h.time <= ${lastHit}`;
  }

  function visitHits(columns: Sql, condition: Sql, [start, end]: Span): Sql {
    return sql`select v.id as visit, ${VISITOR} as visitor, ${columns} from hits h cross join visits v
      where ${hitsOf(start, end)} and v.id = h.visit_id and v.start >= ${start} and v.start < ${end} and ${where.visit()} and ${condition}
      order by v.id, h.seq, h.time`;
  }

  async function idSet(query: Sql): Promise<Set<number>> {
    return new Set((await run<{ id: number }>(sql`select id from ${query} ids`)).map((row) => Number(row.id)));
  }

  /** Which steps each page and event id is, looked up once per call. */
  const bitsOf = async (steps: readonly PathStep[]): Promise<StepBits> =>
    stepBits(
      await Promise.all(
        steps.map(async (step) => ({
          kind: step.kind,
          ids: await idSet(step.kind === "page" ? where.pagesMatching(step.pattern) : where.idsOf("event", step.name)),
        })),
      ),
    );

  let resolving: Promise<ResolvedCondition[]> | null = null;
  const resolvedConditions = () => (resolving ??= resolveConditions(db, where));

  /**
   * The range's days with a current day block, scanned by `fromBlock`, and the runs of its
   * other days with visits (today, days written since their block was built), read from rows
   * by `fromRows`.
   */
  async function eachPart(
    range: DayRange,
    fromBlock: (day: number, block: PathBlock, conditions: readonly ResolvedCondition[]) => void,
    fromRows: (span: Span) => Promise<void>,
  ): Promise<void> {
    const [start, end] = localBounds(range);
    const conditions = await resolvedConditions();
    const stored = await currentBlocks(
      db,
      websiteId,
      start / 86_400,
      end / 86_400,
      conditionColumns(conditions.map((resolved) => resolved.condition)),
    );
    for (const [day, block] of stored.blocks) fromBlock(day, block, conditions);
    for (const span of spansWithout(stored)) await fromRows(span);
  }

  return {
    async funnelVisitors(steps, range) {
      where = await prepare();
      const tests = steps.map(isStep);
      const mask = sql.join(
        tests.map((test, index) => sql`case when ${test} then ${2 ** index} else 0 end`),
        sql` + `,
      );
      const bits = await bitsOf(steps);
      const visitors = steps.map(() => 0);
      // Block days and row spans hold different days, so different visitor-days: their counts add up.
      await eachPart(
        range,
        (_day, block, conditions) => countBlockFunnel(block, conditions, bits, visitors),
        async (span) => {
          const rows = await run<{ visit: number; visitor: number; steps: number }>(
            visitHits(sql`${mask} as steps`, sql`(${sql.join(tests, sql` or `)})`, span),
          );
          const hits = rows.map((row) => ({ visit: Number(row.visit), visitor: Number(row.visitor), steps: Number(row.steps) }));
          visitorsOfHits(hits, steps.length).forEach((count, step) => (visitors[step]! += count));
        },
      );
      return visitors;
    },
    async journeyCounts(start, range, shape) {
      where = await prepare();
      const startTest = isStep(start);
      const bits = await bitsOf([start]);
      const visits: JourneyVisit[] = [];
      // A block's visits come a visitor-day at a time; the rows' come by visit, so theirs are sorted.
      await eachPart(
        range,
        (day, block, conditions) => {
          for (const visit of blockJourneyVisits(day, block, conditions, bits, shape)) visits.push(visit);
        },
        async (span) => {
          // The visits with a start, found once among the same hits.
          const hasStart = sql`v.id in (select h.visit_id from hits h where ${hitsOf(...span)} and ${startTest})`;
          const rows = await run<{ visit: number; visitor: number; page: number; event: number; start: number }>(
            visitHits(sql`h.page, h.event, case when ${startTest} then 1 else 0 end as start`, hasStart, span),
          );
          const found: JourneyVisit[] = [];
          // Rows come a visit at a time, in its order.
          for (let first = 0; first < rows.length;) {
            let end = first;
            while (end < rows.length && rows[end]!.visit === rows[first]!.visit) end++;
            const steps = visitJourney(
              end - first,
              (hit) => Number(rows[first + hit]!.start) === 1,
              (hit) => stepKey(Number(rows[first + hit]!.page), Number(rows[first + hit]!.event)),
              shape,
            );
            if (steps) found.push({ visitor: Number(rows[first]!.visitor), steps });
            first = end;
          }
          for (const visit of found.sort((a, b) => a.visitor - b.visitor)) visits.push(visit);
        },
      );
      return journeyCounts(visits);
    },
    async engagementSignals(range) {
      where = await prepare();
      const [start, end] = localBounds(range);
      // Driven by the range's visits (a signal may come days after its visit started, when the visit ran past midnight).
      const rows = await run<Record<string, number | string | null>>(sql`select e.visit_id as visit, dp.value as page, e.engaged_ms,
          e.scroll_depth, ${sql.join(VITALS.map((vital) => sql`e.${sql.ref(vital)}`))}
        from visits v cross join page_engagement e cross join dimensions dp
        where v.website_id = ${websiteId} and v.start >= ${start} and v.start < ${end} and ${where.visit()}
          and e.visit_id = v.id and dp.id = e.page`);
      const numberOrNull = (value: number | string | null | undefined) => (value === null || value === undefined ? null : Number(value));
      return rows.map((row) => ({
        visit: Number(row.visit),
        page: String(row.page),
        engagedMs: Number(row.engaged_ms),
        scrollDepth: numberOrNull(row.scroll_depth),
        vitals: Object.fromEntries(VITALS.map((vital) => [vital, numberOrNull(row[vital])])) as EngagementSignal["vitals"],
      }));
    },
    async revenue(range) {
      where = await prepare();
      const [start, end] = localBounds(range);
      // Driven by the range's revenue rows; each one's hit and visit found by the visit.
      const rows = await run<{ event: string; currency: string; amount: number | string; n: number | string }>(sql`select
          dn.value as event, r.currency, sum(r.amount) as amount, count(*) as n
        from event_revenue r cross join hits h cross join visits v cross join dimensions dn
        where r.website_id = ${websiteId} and r.time >= ${start} and r.time < ${end}
          and h.visit_id = r.visit_id and h.time = r.time and h.event = r.event and h.seq = r.seq
          and v.id = r.visit_id and dn.id = r.event and ${where.visit()} and ${where.hit(true)}
        group by dn.value, r.currency`);
      return rows.map((row) => ({ event: row.event, currency: row.currency, amount: Number(row.amount), events: Number(row.n) }));
    },
    valuesOf: (ids) => dictionaryValues(db, ids),
    async visits(request) {
      where = await prepare();
      const reads = sessionReads(run, websiteId, (ids) => dictionaryValues(db, ids));
      if (request.kind === "sessions") return reads.sessions(where, request.query);
      if (request.kind === "propertyNames") return reads.propertyNames(where, request.query);
      return reads.session(request.visit);
    },
    async rowsRead(range, atMost) {
      const [start, end] = localBounds(range);
      const [row] = await run<{ n: number }>(sql`select count(*) as n from (
        select 1 from hits where website_id = ${websiteId} and time >= ${start} and time < ${end} limit ${atMost + 1}) s`);
      return Number(row?.n ?? 0);
    },
  };
}
