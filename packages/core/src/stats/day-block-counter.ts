import type { BlockColumn } from "./day-block-builder.js";
import { asDictionary, valueAt, type Column } from "./day-block-format.js";
import { appliesToHit, isNegated, simpleConditions, type Condition, type SimpleCondition, type VisitDimension } from "../model/filters.js";

/** A statistic as counted from a day block: the same definitions as the SQL of segment-reader.ts. */
export interface BlockCounting {
  from: "visits" | "pageviews" | "events" | "properties";
  /** `first-hour`: the hour of each visitor-day's first matching visit; `day-hour`, `first-day-hour`: the same hours keyed day × 24 + hour. */
  key:
    "day" | "hour" | "day-hour" | "first-hour" | "first-day-hour" | "goal" | "h.page" | "h.event" | "p.value" | { visit: VisitDimension };
  count: "rows" | "visitors" | "bounces" | "duration" | "pageviews";
}

/** A filter condition with its dictionary ids (and property name ids) looked up; `any`: its conditions, each resolved. */
export interface ResolvedCondition {
  condition: Condition;
  ids: ReadonlySet<number>;
  names: ReadonlySet<number>;
  branches?: readonly ResolvedCondition[];
}

export interface BlockScan {
  counting: BlockCounting;
  conditions: readonly ResolvedCondition[];
  /** Local seconds: the range (hits are counted by their own time, visits by their start). */
  start: number;
  end: number;
  /** event_property: the event and property name ids; page goals: the matching page ids. */
  eventIds?: ReadonlySet<number>;
  /** event_property of `pageview`: the hits counted are pageviews (event id 0). */
  ofPageviews?: boolean;
  propNames?: ReadonlySet<number>;
  goalPages?: ReadonlySet<number>;
}

const visitColumn = (dimension: VisitDimension): BlockColumn => `v.${dimension}`;

/** The columns the conditions are tested on. */
export function conditionColumns(conditions: readonly Condition[]): BlockColumn[] {
  const columns = new Set<BlockColumn>();
  for (const condition of simpleConditions(conditions)) {
    if (condition.on === "visit") columns.add(visitColumn(condition.dimension));
    else if (condition.on === "page") columns.add("h.page");
    else if (condition.on === "event") columns.add("h.event");
    else for (const column of ["p.hit", "p.name", "p.value", "h.event"] as const) columns.add(column);
  }
  return [...columns];
}

/** The columns a scan reads; `h.time` only where some hits may fall outside the range. */
export function columnsFor(counting: BlockCounting, conditions: readonly Condition[], withTime: boolean): BlockColumn[] {
  const columns = new Set<BlockColumn>(["v.run_start", "v.hits", ...conditionColumns(conditions)]);
  if (typeof counting.key === "object") columns.add(visitColumn(counting.key.visit));
  if (counting.from === "visits") {
    columns.add("v.start");
    if (counting.count === "bounces") columns.add("v.pageviews").add("v.events");
    if (counting.count === "duration") columns.add("v.duration");
    if (counting.count === "pageviews") columns.add("v.pageviews");
    return [...columns];
  }
  if (fromVisitPageviews(counting, conditions, withTime)) return [...columns.add("v.pageviews")];
  columns.add("h.event");
  if (withTime || counting.key === "day" || counting.key === "hour" || counting.key === "day-hour") columns.add("h.time");
  if (counting.key === "h.page" || counting.key === "goal") columns.add("h.page");
  if (counting.from === "properties") columns.add("p.hit").add("p.name").add("p.value");
  return [...columns];
}

/** Per distinct value of a column, whether it is one of `ids`: a test per row is then an array read. */
export function matcher(column: Column, ids: ReadonlySet<number>): (row: number) => boolean {
  const { values, index } = asDictionary(column);
  const hit = Uint8Array.from(values, (value) => Number(ids.has(value)));
  return (row) => hit[index[row]!] === 1;
}

/** Where each visit's hits start: prefix sums over the block's order. */
export function offsets(counts: Column, rows: number): Uint32Array {
  const at = new Uint32Array(rows + 1);
  const { values, index } = counts;
  if (values) for (let i = 0; i < rows; i++) at[i + 1] = at[i]! + values[index[i]!]!;
  else for (let i = 0; i < rows; i++) at[i + 1] = at[i]! + index[i]!;
  return at;
}

/** Where each hit's properties start. */
function propOffsets(propHit: Column, hits: number): Uint32Array {
  const at = new Uint32Array(hits + 1);
  for (let p = 0; p < propHit.length; p++) at[valueAt(propHit, p) + 1]!++;
  for (let h = 0; h < hits; h++) at[h + 1]! += at[h]!;
  return at;
}

/** Each visit's visitor-day run number, from the flags where runs start. */
export function runsOf(starts: Column): Uint32Array {
  const runs = new Uint32Array(starts.length);
  const { values, index } = starts;
  let run = 0;
  if (values) for (let v = 0; v < starts.length; v++) runs[v] = run += values[index[v]!]!;
  else for (let v = 0; v < starts.length; v++) runs[v] = run += index[v]!;
  return runs;
}

/**
 * Counts by slot (a small integer per key: a dictionary position, a day, an hour), each
 * visitor-day's keys once when counting visitors: rows arrive in visitor-day runs, so a
 * run's keys are only remembered until the next run.
 */
function createSlotCounter(distinctVisitors: boolean, runs: Uint32Array) {
  const slots: number[] = [];
  /** Slots below 0: the days before a visit's own (a late hit that joined a visit which started after it). */
  const below = new Map<number, number>();
  let run = -1;
  const runSlots: number[] = [];
  return {
    add(v: number, slot: number, n: number): void {
      if (distinctVisitors) {
        if (runs[v] !== run) {
          run = runs[v]!;
          runSlots.length = 0;
        }
        if (runSlots.includes(slot)) return;
        runSlots.push(slot);
        n = 1;
      }
      if (slot >= 0) slots[slot] = (slots[slot] ?? 0) + n;
      else below.set(slot, (below.get(slot) ?? 0) + n);
    },
    forEach(fn: (n: number, slot: number) => void): void {
      slots.forEach(fn);
      below.forEach(fn);
    },
  };
}

/** Tests of a block's hits against page, event and property conditions (before negation). */
export function hitTests(column: (name: BlockColumn) => Column, hitCount: number) {
  let propStart: Uint32Array | null = null;
  const propsOfHit = () => (propStart ??= propOffsets(column("p.hit"), hitCount));

  /** Whether hit `h` has a property named one of `names` with a value among `values`. */
  function hasProp(resolved: ResolvedCondition): (h: number) => boolean {
    const name = matcher(column("p.name"), resolved.names);
    const value = matcher(column("p.value"), resolved.ids);
    const at = propsOfHit();
    return (h) => {
      for (let p = at[h]!; p < at[h + 1]!; p++) if (name(p) && value(p)) return true;
      return false;
    };
  }

  /** A hit's own match of a page, event or property condition (before negation). */
  function hitTest(resolved: ResolvedCondition): (h: number) => boolean {
    const { condition } = resolved;
    if (condition.on === "page") return matcher(column("h.page"), resolved.ids);
    if (condition.on === "event") return matcher(column("h.event"), resolved.ids);
    return hasProp(resolved);
  }
  return { hitTest, propsOfHit };
}

/** Which visits of a block match one condition (1) or not (0); hits are tested only for the visits `candidates` keeps. */
function visitsMatching(
  column: (name: BlockColumn) => Column,
  resolved: ResolvedCondition,
  hitStart: Uint32Array,
  hitTest: (resolved: ResolvedCondition) => (h: number) => boolean,
  candidates: Uint8Array,
): Uint8Array {
  const visitCount = hitStart.length - 1;
  const matched = new Uint8Array(visitCount);
  const { condition } = resolved;
  if (condition.on === "any") {
    for (const branch of resolved.branches ?? []) {
      const part = visitsMatching(column, branch, hitStart, hitTest, candidates);
      for (let v = 0; v < visitCount; v++) matched[v]! |= part[v]!;
    }
    return matched;
  }
  const negated = isNegated(condition.operator);
  if (condition.on === "visit") {
    const { values, index } = asDictionary(column(visitColumn(condition.dimension)));
    const kept = Uint8Array.from(values, (value) => Number(resolved.ids.has(value) !== negated));
    for (let v = 0; v < visitCount; v++) matched[v] = kept[index[v]!]!;
    return matched;
  }
  const test = hitTest(resolved);
  for (let v = 0; v < visitCount; v++) {
    if (!candidates[v]) continue;
    let any = false;
    for (let h = hitStart[v]!; h < hitStart[v + 1]! && !any; h++) any = test(h);
    matched[v] = Number(any !== negated);
  }
  return matched;
}

/** Which visits of a block match every condition (1) or not (0), worked out once per block. */
export function matchingVisits(
  column: (name: BlockColumn) => Column,
  conditions: readonly ResolvedCondition[],
  hitStart: Uint32Array,
  hitTest: (resolved: ResolvedCondition) => (h: number) => boolean,
): Uint8Array {
  const visitOk = new Uint8Array(hitStart.length - 1).fill(1);
  for (const resolved of conditions) {
    const matched = visitsMatching(column, resolved, hitStart, hitTest, visitOk);
    for (let v = 0; v < visitOk.length; v++) visitOk[v]! &= matched[v]!;
  }
  return visitOk;
}

/** Whether some condition narrows the hits counted (a page or property condition; an event one for events), alone or in an `any`. */
function narrowsHits(conditions: readonly Condition[], events: boolean): boolean {
  return conditions.some((condition) =>
    condition.on === "any" ? condition.conditions.some((part) => appliesToHit(part, events)) : appliesToHit(condition, events),
  );
}

/** Pageviews by a visit column where no hit needs testing: each matching visit's own count (`v.pageviews`). */
const fromVisitPageviews = (counting: BlockCounting, conditions: readonly Condition[], withTime: boolean) =>
  counting.from === "pageviews" && typeof counting.key === "object" && !withTime && !narrowsHits(conditions, false);

/**
 * The tests a counted hit `h` of visit `v` must pass, as segment-conditions.ts's `hit`: each
 * condition that narrows hits, on the hit itself; `any`: one of its conditions, on the hit
 * where it narrows hits, else on the visit.
 */
function countedHitTests(
  column: (name: BlockColumn) => Column,
  conditions: readonly ResolvedCondition[],
  hitStart: Uint32Array,
  hitTest: (resolved: ResolvedCondition) => (h: number) => boolean,
  events: boolean,
): ((h: number, v: number) => boolean)[] {
  const onHit = (resolved: ResolvedCondition) => {
    const test = hitTest(resolved);
    return isNegated((resolved.condition as SimpleCondition).operator) ? (h: number) => !test(h) : test;
  };
  const all = new Uint8Array(hitStart.length - 1).fill(1);
  const tests: ((h: number, v: number) => boolean)[] = [];
  for (const resolved of conditions) {
    const { condition } = resolved;
    if (condition.on !== "any") {
      if (appliesToHit(condition, events)) tests.push(onHit(resolved));
      continue;
    }
    const branches = resolved.branches ?? [];
    if (!branches.some((branch) => appliesToHit(branch.condition as SimpleCondition, events))) continue;
    const parts = branches.map((branch) => {
      if (appliesToHit(branch.condition as SimpleCondition, events)) return onHit(branch);
      const visits = visitsMatching(column, branch, hitStart, hitTest, all);
      return (_h: number, v: number) => visits[v] === 1;
    });
    tests.push((h, v) => parts.some((part) => part(h, v)));
  }
  return tests;
}

/**
 * What every statistic of a request reads from one day's block, worked out once: its
 * visitor-day runs, where each visit's hits start, and which visits match the conditions.
 */
export interface PreparedBlock {
  day: number;
  column: (name: BlockColumn) => Column;
  runs: Uint32Array;
  hitStart: Uint32Array;
  visitOk: Uint8Array;
  hitTest: (resolved: ResolvedCondition) => (h: number) => boolean;
  propsOfHit: () => Uint32Array;
  /** The matching visits' figures by the value of a visit column, worked out once for all of them. */
  byValue: Map<VisitDimension, ValueSums>;
}

/** Per dictionary position of a visit column: the matching visits' figures. */
interface ValueSums {
  values: Float64Array | Int32Array;
  /** The figures the block's columns read so far allow. */
  sums: Partial<Record<BlockCounting["count"], Float64Array>>;
}

/** Arrays worked out from a decoded column, by the column: readers that share columns share these too. */
const derived = new WeakMap<Column, Uint32Array>();
function derivedFrom(column: Column, derive: (column: Column) => Uint32Array): Uint32Array {
  let found = derived.get(column);
  if (!found) derived.set(column, (found = derive(column)));
  return found;
}

const plainArrays = new WeakMap<Column, Float64Array>();
/** Every row's value in one array (worked out once per column): what hot loops read. */
export function plainValues(column: Column): ArrayLike<number> {
  const { values, index } = column;
  if (!values) return index;
  let found = plainArrays.get(column);
  if (!found) {
    found = new Float64Array(column.length);
    for (let i = 0; i < column.length; i++) found[i] = values[index[i]!]!;
    plainArrays.set(column, found);
  }
  return found;
}

export function prepareBlock(day: number, column: (name: BlockColumn) => Column, conditions: readonly ResolvedCondition[]): PreparedBlock {
  const runs = derivedFrom(column("v.run_start"), runsOf);
  const hitStart = derivedFrom(column("v.hits"), (hits) => offsets(hits, runs.length));
  const { hitTest, propsOfHit } = hitTests(column, hitStart[runs.length]!);
  const visitOk = matchingVisits(column, conditions, hitStart, hitTest);
  return { day, column, runs, hitStart, hitTest, propsOfHit, visitOk, byValue: new Map() };
}

/** One statistic counted from one prepared block into `into` (key → count). */
export interface BlockCount {
  block: PreparedBlock;
  scan: BlockScan;
  /** Whether hits' times are checked against the range (some may fall outside it). */
  withTime: boolean;
  into: Map<number, number>;
}

/**
 * Counts one day block, as segment-reader.ts's SQL counts the same rows: visits that
 * match every condition, and of those the hits the statistic counts. Keys are day
 * numbers, hours, dictionary ids, or 0 for a page goal.
 */
export function countBlock(count: BlockCount): void {
  const { block, scan, into } = count;
  if (scan.counting.from === "visits" && scan.counting.key === "day") {
    into.set(block.day, (into.get(block.day) ?? 0) + dayTotal(block, scan.counting.count));
    return;
  }
  if (scan.counting.from === "visits" && typeof scan.counting.key === "object") {
    countVisitsByValue(block, scan.counting.key.visit, scan.counting.count, into);
    return;
  }
  // Pageviews by a visit column, every hit of the block in the range and none narrowed by a
  // condition: each matching visit's own count of pageviews.
  if (
    fromVisitPageviews(
      scan.counting,
      scan.conditions.map(({ condition }) => condition),
      count.withTime,
    )
  ) {
    countVisitsByValue(block, (scan.counting.key as { visit: VisitDimension }).visit, "pageviews", into);
    return;
  }
  const slots = createSlotCounter(scan.counting.count === "visitors", block.runs);
  const keyOf = scan.counting.from === "visits" ? countVisits(block, scan.counting, slots.add) : countHits(count, slots.add);
  slots.forEach((n, slot) => {
    const key = keyOf(slot);
    into.set(key, (into.get(key) ?? 0) + n);
  });
}

/** What each visit adds: 1, whether it bounced, its duration or its pageviews. */
function visitFigures(column: (name: BlockColumn) => Column, counting: BlockCounting): (v: number) => number {
  if (counting.count === "bounces") {
    const [pageviews, events] = [column("v.pageviews"), column("v.events")];
    return (v) => Number(valueAt(pageviews, v) === 1 && valueAt(events, v) === 0);
  }
  if (counting.count === "duration" || counting.count === "pageviews") {
    const figure = column(counting.count === "duration" ? "v.duration" : "v.pageviews");
    return (v) => valueAt(figure, v);
  }
  return () => 1;
}

/** A day's matching visits, visitor-days, bounces, seconds or pageviews: one sum. */
function dayTotal({ column, visitOk, runs }: PreparedBlock, count: BlockCounting["count"]): number {
  let total = 0;
  if (count === "visitors") {
    // A visitor-day's visits are side by side: count where a matching visit starts a new run.
    let run = -1;
    for (let v = 0; v < visitOk.length; v++) {
      if (visitOk[v] && runs[v] !== run) {
        run = runs[v]!;
        total++;
      }
    }
    return total;
  }
  if (count === "rows") {
    for (let v = 0; v < visitOk.length; v++) total += visitOk[v]!;
    return total;
  }
  if (count === "bounces") {
    const pageviews = plainValues(column("v.pageviews"));
    const events = plainValues(column("v.events"));
    for (let v = 0; v < visitOk.length; v++) if (visitOk[v] && pageviews[v] === 1 && events[v] === 0) total++;
    return total;
  }
  const summed = plainValues(column(count === "duration" ? "v.duration" : "v.pageviews"));
  for (let v = 0; v < visitOk.length; v++) if (visitOk[v]) total += summed[v]!;
  return total;
}

/** Visits by the value of one of their columns (`browser`: a breakdown, v2's grouped totals). */
function countVisitsByValue(
  block: PreparedBlock,
  dimension: VisitDimension,
  count: BlockCounting["count"],
  into: Map<number, number>,
): void {
  let found = block.byValue.get(dimension);
  if (!found?.sums[count]) block.byValue.set(dimension, (found = valueSums(block, dimension)));
  const { values, sums } = found;
  const counted = sums[count]!;
  for (let slot = 0; slot < counted.length; slot++) {
    const n = counted[slot]!;
    if (n > 0) into.set(values[slot]!, (into.get(values[slot]!) ?? 0) + n);
  }
}

/**
 * One pass over a block's matching visits, straight into arrays by dictionary position: every
 * figure the columns read so far allow (a v2 breakdown's totals ask them together). A
 * visitor-day is counted once per value by remembering the last run each value was counted in
 * (runs only go up).
 */
function valueSums({ column, visitOk, runs }: PreparedBlock, dimension: VisitDimension): ValueSums {
  const { values, index } = asDictionary(column(visitColumn(dimension)));
  const array = () => new Float64Array(values.length);
  const [rows, visitors, lastRun] = [array(), array(), array().fill(-1)];
  const read = (name: BlockColumn) => {
    const found = column(name) as Column | null | undefined;
    return found ? plainValues(found) : null;
  };
  const [pageviews, events, duration] = [read("v.pageviews"), read("v.events"), read("v.duration")];
  const bounces = pageviews && events ? array() : null;
  const views = pageviews ? array() : null;
  const seconds = duration ? array() : null;
  for (let v = 0; v < visitOk.length; v++) {
    if (!visitOk[v]) continue;
    const slot = index[v]!;
    rows[slot]!++;
    if (lastRun[slot] !== runs[v]) {
      lastRun[slot] = runs[v]!;
      visitors[slot]!++;
    }
    if (views) views[slot]! += pageviews![v]!;
    if (bounces && pageviews![v] === 1 && events![v] === 0) bounces[slot]!++;
    if (seconds) seconds[slot]! += duration![v]!;
  }
  const sums: ValueSums["sums"] = { rows, visitors };
  if (bounces) sums.bounces = bounces;
  if (views) sums.pageviews = views;
  if (seconds) sums.duration = seconds;
  return { values, sums };
}

/** Visits: keyed by their day, the hour of the day they started, or (first-hour) the hour of each visitor-day's first matching visit. */
function countVisits(
  { day, column, visitOk, runs }: PreparedBlock,
  counting: BlockCounting,
  add: (v: number, slot: number, n: number) => void,
): (slot: number) => number {
  const visitCount = visitOk.length;
  if (counting.key === "first-hour" || counting.key === "first-day-hour") {
    const start = column("v.start");
    const firsts = new Map<number, number>();
    for (let v = 0; v < visitCount; v++) {
      if (!visitOk[v]) continue;
      const offset = valueAt(start, v);
      const first = firsts.get(runs[v]!);
      if (first === undefined || offset < first) firsts.set(runs[v]!, offset);
    }
    for (const offset of firsts.values()) add(0, Math.floor(offset / 3600), 1);
    return counting.key === "first-hour" ? (hour) => hour : (hour) => day * 24 + hour;
  }
  const figure = visitFigures(column, counting);
  if (counting.key === "day-hour") {
    const start = column("v.start");
    for (let v = 0; v < visitCount; v++) if (visitOk[v]) add(v, Math.floor(valueAt(start, v) / 3600), figure(v));
    return (hour) => day * 24 + hour;
  }
  for (let v = 0; v < visitCount; v++) if (visitOk[v]) add(v, 0, figure(v));
  return () => day;
}

/** Hits of matching visits, in the range and of the statistic's kind, that match the hit conditions. */
function countHits(
  { block, scan, withTime, into }: BlockCount,
  add: (v: number, slot: number, n: number) => void,
): (slot: number) => number {
  const { day, column, visitOk, hitStart, hitTest, propsOfHit } = block;
  const { counting } = scan;
  const dayStart = day * 86_400;
  const events = counting.from !== "pageviews" && !scan.ofPageviews;
  const countedTests = countedHitTests(column, scan.conditions, hitStart, hitTest, events);
  const event = asDictionary(column("h.event"));
  const isEvent = Uint8Array.from(event.values, (value) => Number(value !== 0));
  const wantEvent = Number(events);
  const timed = withTime || counting.key === "day" || counting.key === "hour" || counting.key === "day-hour";
  const time = timed ? plainValues(column("h.time")) : null;
  const start = scan.start - dayStart;
  const end = scan.end - dayStart;
  const page = counting.key === "h.page" || counting.key === "goal" ? asDictionary(column("h.page")) : null;
  // A visit column's value (the hostname): each hit is keyed by its visit's.
  const visitKeys = typeof counting.key === "object" ? asDictionary(column(visitColumn(counting.key.visit))) : null;
  const goal = counting.key === "goal" ? matcher(column("h.page"), scan.goalPages ?? new Set()) : null;
  const eventOf = counting.from === "properties" ? matcher(column("h.event"), scan.eventIds ?? new Set()) : null;
  // event_property: slots are positions in the property values' dictionary.
  const propNames = counting.from === "properties" ? matcher(column("p.name"), scan.propNames ?? new Set()) : null;
  const propValues = counting.from === "properties" ? asDictionary(column("p.value")) : null;
  // Dictionary keys counted once per row (not per visitor): straight into an array, no call per hit.
  const slotIndex = counting.key === "h.page" ? page!.index : counting.key === "h.event" ? event.index : null;
  const direct =
    slotIndex && counting.count !== "visitors"
      ? new Float64Array(counting.key === "h.page" ? page!.values.length : event.values.length)
      : null;
  const slotOf =
    counting.key === "day"
      ? (h: number) => Math.floor(time![h]! / 86_400)
      : counting.key === "hour"
        ? (h: number) => Math.floor((((time![h]! % 86_400) + 86_400) % 86_400) / 3600)
        : counting.key === "day-hour"
          ? (h: number) => Math.floor(time![h]! / 3600)
          : counting.key === "h.page"
            ? (h: number) => page!.index[h]!
            : counting.key === "h.event"
              ? (h: number) => event.index[h]!
              : () => 0;
  for (let v = 0; v < visitOk.length; v++) {
    if (!visitOk[v]) continue;
    for (let h = hitStart[v]!; h < hitStart[v + 1]!; h++) {
      if (isEvent[event.index[h]!] !== wantEvent) continue;
      if (time) {
        const offset = time[h]!;
        if (offset < start || offset >= end) continue;
      }
      if (goal && !goal(h)) continue;
      let matches = true;
      for (let t = 0; t < countedTests.length && matches; t++) matches = countedTests[t]!(h, v);
      if (!matches) continue;
      if (propNames) {
        if (!eventOf!(h)) continue;
        const at = propsOfHit();
        for (let p = at[h]!; p < at[h + 1]!; p++) if (propNames(p)) add(v, propValues!.index[p]!, 1);
        continue;
      }
      if (direct) direct[slotIndex![h]!]!++;
      else add(v, visitKeys ? visitKeys.index[v]! : slotOf(h), 1);
    }
  }
  if (direct) {
    // Straight into the answer by dictionary id: no slots.
    const values = counting.key === "h.page" ? page!.values : event.values;
    for (let slot = 0; slot < direct.length; slot++) {
      const n = direct[slot]!;
      if (n > 0) into.set(values[slot]!, (into.get(values[slot]!) ?? 0) + n);
    }
  }
  if (counting.key === "day") return (slot) => day + slot;
  if (counting.key === "hour") return (slot) => slot;
  if (counting.key === "day-hour") return (slot) => day * 24 + slot;
  if (counting.key === "h.page") return (slot) => page!.values[slot]!;
  if (counting.key === "h.event") return (slot) => event.values[slot]!;
  if (propValues) return (slot) => propValues.values[slot]!;
  if (visitKeys) return (slot) => visitKeys.values[slot]!;
  return () => 0;
}
