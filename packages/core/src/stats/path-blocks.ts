import { sql, type Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { BlockColumn } from "./day-block-builder.js";
import { prepareBlock, type ResolvedCondition } from "./day-block-counter.js";
import { decodeColumn, valueAt, type Column } from "./day-block-format.js";
import { stepKey, visitJourney, type JourneyShape, type JourneyVisit } from "./journey-steps.js";

/**
 * Funnels and journeys read from day blocks (docs/architecture.md, "A query's path"): a
 * block holds a day's visits in visitor-day runs and each visit's hits in its order, a
 * few bytes a hit, so a range is a scan of typed arrays instead of a join over its hits.
 * A funnel is counted per block; a journey's visits come out as path-reader.ts gives them
 * from rows, with visitors of their own: a block's visitor-day run `r` of day `d` is visitor
 * `-(d·2²⁴ + r + 1)` (the rows' ids are positive, and a visitor-day is one day's, so a
 * block's and the rows' never meet).
 */

/** A current block's columns, by name. */
export type PathBlock = (name: BlockColumn) => Column;

/** The columns a path scan reads, and those the conditions need besides. */
const PATH_COLUMNS: readonly BlockColumn[] = ["v.run_start", "v.hits", "h.page", "h.event"];

const blockId = (day: number, index: number) => -(day * 2 ** 24 + index + 1);

/** The days of a range that have visits, and the current blocks of those that have one. */
export interface RangeBlocks {
  days: readonly number[];
  blocks: ReadonlyMap<number, PathBlock>;
}

/**
 * The days in `[firstDay, endDay)` with visits (a day without a version has none), and the
 * current blocks among them that hold every column named (a block whose day was written
 * since it was built is not current), in day order.
 */
export async function currentBlocks(
  db: Kysely<Database>,
  websiteId: number,
  firstDay: number,
  endDay: number,
  extra: readonly BlockColumn[],
): Promise<RangeBlocks> {
  const names = [...new Set([...PATH_COLUMNS, ...extra])];
  const rows = (
    await sql<{ day: number; name: BlockColumn | null; data: Uint8Array | null }>`
      select d.day, b.name, b.data from day_versions d
      left join day_blocks b on b.website_id = d.website_id and b.day = d.day and b.version = d.version and b.name in (${sql.join(names)})
      where d.website_id = ${websiteId} and d.day >= ${firstDay} and d.day < ${endDay}`.execute(db)
  ).rows;
  const byDay = new Map<number, Map<BlockColumn, Column>>();
  for (const row of rows) {
    const day = Number(row.day);
    let columns = byDay.get(day);
    if (!columns) byDay.set(day, (columns = new Map()));
    if (row.name !== null && row.data !== null) columns.set(row.name, decodeColumn(row.data));
  }
  const days = [...byDay.keys()].sort((a, b) => a - b);
  const blocks = new Map<number, PathBlock>();
  for (const day of days) {
    const columns = byDay.get(day)!;
    if (names.every((name) => columns.has(name))) blocks.set(day, (name) => columns.get(name)!);
  }
  return { days, blocks };
}

/** A block's visits, their hit offsets, visitor-day runs, and which match the conditions. */
function visitsOf(block: PathBlock, conditions: readonly ResolvedCondition[]) {
  const { runs, hitStart, visitOk } = prepareBlock(0, block, conditions);
  return { runs, hitStart, ok: visitOk };
}

/** Marks a pageview (event id 0) among the event bits; steps use the bits below it (8 at most). */
const PAGEVIEW = 2 ** 30;

/** Which steps each id is (bit i: step i), pages and event names apart: built once per request. */
export interface StepBits {
  pages: ReadonlyMap<number, number>;
  events: ReadonlyMap<number, number>;
}

/** The bits of steps given as id sets: a page step's pages (pageviews only), an event step's event names. */
export function stepBits(steps: readonly { kind: "page" | "event"; ids: ReadonlySet<number> }[]): StepBits {
  const pages = new Map<number, number>();
  const events = new Map<number, number>([[0, PAGEVIEW]]);
  steps.forEach((step, i) => {
    const into = step.kind === "page" ? pages : events;
    for (const id of step.ids) into.set(id, (into.get(id) ?? 0) | (2 ** i));
  });
  return { pages, events };
}

/** Where `value` is in a sorted table, or -1. */
function find(values: ArrayLike<number>, value: number): number {
  let [low, high] = [0, values.length - 1];
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < value) low = middle + 1;
    else if (values[middle]! > value) high = middle - 1;
    else return middle;
  }
  return -1;
}

/**
 * A column's row → bits: a table per distinct value where the column has one (its values
 * are sorted: the step ids are looked up there when they are fewer), else a lookup per row.
 */
function bitsOf(column: Column, bits: ReadonlyMap<number, number>): (row: number) => number {
  const { values, index } = column;
  if (values) {
    const table = new Uint32Array(values.length);
    if (bits.size < values.length) {
      for (const [id, steps] of bits) {
        const at = find(values, id);
        if (at >= 0) table[at] = steps;
      }
    } else for (let i = 0; i < values.length; i++) table[i] = bits.get(values[i]!) ?? 0;
    return (row) => table[index[row]!]!;
  }
  return (row) => bits.get(index[row]!) ?? 0;
}

/** Each hit's steps: a page step matches pageviews only. */
function hitSteps(block: PathBlock, bits: StepBits): (hit: number) => number {
  const page = bitsOf(block("h.page"), bits.pages);
  const event = bitsOf(block("h.event"), bits.events);
  return (hit) => {
    const e = event(hit);
    return e === PAGEVIEW ? page(hit) : e;
  };
}

/**
 * Adds a block's funnel into `visitors` (per step): each visitor-day counts once at the
 * furthest step any of its matching visits reached, steps 1…n done in order within a visit.
 */
export function countBlockFunnel(block: PathBlock, conditions: readonly ResolvedCondition[], bits: StepBits, visitors: number[]): void {
  const { runs, hitStart, ok } = visitsOf(block, conditions);
  const steps = hitSteps(block, bits);
  const stepCount = visitors.length;
  let run = -1;
  let furthest = 0;
  const close = () => {
    for (let step = 0; step < furthest; step++) visitors[step]!++;
  };
  for (let v = 0; v < runs.length; v++) {
    if (runs[v] !== run) {
      close();
      [run, furthest] = [runs[v]!, 0];
    }
    if (!ok[v]) continue;
    let next = 0;
    for (let h = hitStart[v]!; h < hitStart[v + 1]! && next < stepCount; h++) if ((steps(h) & (2 ** next)) !== 0) next++;
    if (next > furthest) furthest = next;
  }
  close();
}

/** The journeys of a block's visits that match the conditions and have a start. */
export function blockJourneyVisits(
  day: number,
  block: PathBlock,
  conditions: readonly ResolvedCondition[],
  bits: StepBits,
  shape: JourneyShape,
): JourneyVisit[] {
  const { runs, hitStart, ok } = visitsOf(block, conditions);
  const isStart = hitSteps(block, bits);
  const page = block("h.page");
  const event = block("h.event");
  const visits: JourneyVisit[] = [];
  for (let v = 0; v < runs.length; v++) {
    if (!ok[v]) continue;
    const first = hitStart[v]!;
    const steps = visitJourney(
      hitStart[v + 1]! - first,
      (hit) => isStart(first + hit) !== 0,
      (hit) => stepKey(valueAt(page, first + hit), valueAt(event, first + hit)),
      shape,
    );
    if (steps) visits.push({ visitor: blockId(day, runs[v]!), steps });
  }
  return visits;
}
