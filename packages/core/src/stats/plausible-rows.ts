import { addDays, dayNumber, dayText } from "../shared/calendar.js";
import { PAGEVIEW_EVENT } from "../model/dimensions.js";
import type { CountRange, DayRange } from "./count-reader.js";
import type { StatsQueryInput, TotalsQueryInput } from "./stats-query.js";
import type { HourFigures, StatRow, Totals, ValueTotals } from "../model/stats-schemas.js";
import type { VisitDimension } from "../model/filters.js";
import type { RevenueSum } from "../model/revenue.js";
import { PLAUSIBLE_DIMENSIONS, PROPS_PREFIX, shownValue, type DimensionMapping } from "./plausible-dimensions.js";
import { PlausibleQueryError, type PlausibleCondition, type PlausibleFilter, type TimeDimension } from "./plausible-query.js";

/** A totals query, or (`seconds`) one of a part of its days, local wall-clock [start, end). */
export type PartInput = TotalsQueryInput & Pick<CountRange, "seconds">;

/** Tally's v1 statistics of one website: what the Stats API v2 is computed from. */
export interface StatsSource {
  list(input: StatsQueryInput): Promise<{ data: StatRow[]; total: number }>;
  totals(input: PartInput): Promise<Totals>;
  /** The totals of each hour (stats.ts `hourly`). */
  hourly(input: PartInput): Promise<HourFigures[]>;
  /** `totals` of several scopes at once (the rows of a breakdown): their day blocks are decoded once for all. */
  totalsOf(inputs: readonly PartInput[]): Promise<Totals[]>;
  /** `totals` of each value of a visit column in one scope (a breakdown by it): one pass for all values. */
  totalsBy(input: TotalsQueryInput, by: VisitDimension): Promise<ValueTotals[]>;
  /** Revenue per event name and currency in one scope (stats.ts `revenue`). */
  revenue(input: TotalsQueryInput): Promise<RevenueSum[]>;
}

/** What one result row counts: a range and v1 filters (`country:is:US`), all of which must hold. */
export interface Scope {
  /** With `seconds`: a part of its days (counted by `totals` and `hourly` only). */
  range: CountRange;
  filters: string[];
  /** A positive `event` filter holds: Plausible's `events` then counts those events only, not pageviews. */
  eventsOnly: boolean;
}

export interface Row {
  dimensions: string[];
  scope: Scope;
  /** A one-dimension row: its statistic's row, whose count may be all the query asks. */
  counted?: StatRow;
}

/** Most rows one query computes (each row is counted on its own); more is a 400 asking for filters. */
export const MAX_ROWS = 1000;

const tooMany = (what: string) =>
  new PlausibleQueryError(
    `${what} has more than ${MAX_ROWS} rows; Tally answers at most ${MAX_ROWS}: add filters or shorten the date_range.`,
  );

/** `a|b\c` as one v1 filter value: `|` and `\` escaped. */
const escaped = (value: string) => value.replace(/\\/g, "\\\\").replace(/\|/g, "\\|");
const filterText = (dimension: string, operator: string, values: readonly string[]) =>
  `${dimension}:${operator}:${values.map(escaped).join("|")}`;

const mappingOf = (dimension: string): DimensionMapping => PLAUSIBLE_DIMENSIONS[dimension]!;
const propertyOf = (dimension: string) => (dimension.startsWith(PROPS_PREFIX) ? dimension.slice(PROPS_PREFIX.length) : null);

/** Reads the rows a scope needs from the v1 statistics. */
export function createRowReader(source: StatsSource) {
  /** Every row of a v1 statistic in a scope, paged through 100 at a time. */
  async function allRows(scope: Scope, stat: Pick<StatsQueryInput, "name" | "event" | "property" | "search">): Promise<StatRow[]> {
    const rows: StatRow[] = [];
    for (let page = 1; ; page++) {
      const answer = await source.list({ ...stat, from: scope.range.from, to: scope.range.to, filter: scope.filters, per_page: 100, page });
      rows.push(...answer.data);
      if (rows.length > MAX_ROWS) throw tooMany(`The breakdown by ${String(stat.name)}`);
      if (rows.length >= answer.total || answer.data.length === 0) return rows;
    }
  }

  /** The values of a custom property over the pageviews and every event, as v1 lists them per event. */
  async function propertyValues(scope: Scope, property: string): Promise<string[]> {
    const events = [PAGEVIEW_EVENT, ...(await allRows(scope, { name: "event" })).map((row) => row.value)];
    const values = new Set<string>();
    for (const event of events) {
      for (const row of await allRows(scope, { name: "event_property", event, property })) values.add(row.value);
    }
    return [...values];
  }

  /** A condition as one v1 filter; names of `code:name` values (`Estonia`) are looked up among the stored values. */
  async function filterOf(condition: PlausibleCondition, range: DayRange): Promise<string> {
    const { operator, dimension, clauses } = condition;
    const property = propertyOf(dimension);
    if (property !== null) return filterText(`prop:${property}`, operator, clauses);
    const mapping = mappingOf(dimension);
    // Stored `US:Austin`: a pattern written for the code or the name alone would not match it.
    if (mapping.part && operator.startsWith("matches"))
      throw new PlausibleQueryError(`Tally cannot match regular expressions (or ignore case) on ${dimension}; use is or contains.`);
    if (clauses.includes("")) {
      // "has a value": every stored `code:name` value has a colon.
      if (operator === "is_not" && clauses.length === 1 && mapping.part) return filterText(mapping.filter, "contains", [":"]);
      throw new PlausibleQueryError(`Tally cannot filter ${dimension} on an empty value.`);
    }
    let values = clauses;
    if (mapping.part === "name" && (operator === "is" || operator === "is_not")) {
      const stored = await allRows({ range, filters: [], eventsOnly: false }, { name: mapping.statistic });
      const named = stored.map((row) => row.value).filter((value) => clauses.includes(shownValue(mapping, value)));
      if (named.length > 0) values = named;
    }
    return filterText(mapping.filter, operator, values);
  }

  /** The query's own scope: its range and its filters as v1 filters (`or` across dimensions joined by `||`). */
  async function baseScope(range: CountRange, conditions: readonly PlausibleFilter[]): Promise<Scope> {
    const filters = await Promise.all(
      conditions.map(async (condition) =>
        "any" in condition
          ? (await Promise.all(condition.any.map((part) => filterOf(part, range)))).join("||")
          : filterOf(condition, range),
      ),
    );
    const eventsOnly = conditions.some(
      (condition) =>
        !("any" in condition) && condition.dimension === "event:goal" && !condition.operator.endsWith("_not") && !condition.visitLevel,
    );
    return { range, filters, eventsOnly };
  }

  /** One dimension's values in a scope, each with the narrower scope that counts it; `listed`: its statistic's rows, already counted. */
  async function valuesOf(
    dimension: string,
    scope: Scope,
    listed?: readonly StatRow[],
  ): Promise<{ shown: string; scope: Scope; counted?: StatRow }[]> {
    if (dimension.startsWith("time")) return timeBuckets(dimension as TimeDimension, scope);
    const property = propertyOf(dimension);
    if (property !== null) {
      return (await propertyValues(scope, property)).map((value) => ({
        shown: value,
        scope: { ...scope, filters: [...scope.filters, filterText(`prop:${property}`, "is", [value])] },
      }));
    }
    const mapping = mappingOf(dimension);
    if (listed && listed.length > MAX_ROWS) throw tooMany(`The breakdown by ${mapping.statistic}`);
    return (listed ?? (await allRows(scope, { name: mapping.statistic }))).map((row) => ({
      shown: shownValue(mapping, row.value),
      counted: row,
      scope: {
        ...scope,
        filters: [...scope.filters, filterText(mapping.filter, "is", [row.value])],
        eventsOnly: scope.eventsOnly || mapping.filter === "event",
      },
    }));
  }

  /** Day, week and month buckets of the range that have visits in the scope. */
  async function timeBuckets(dimension: TimeDimension, scope: Scope): Promise<{ shown: string; scope: Scope }[]> {
    const days = new Set((await allRows(scope, { name: "visits" })).filter((row) => row.count > 0).map((row) => row.value));
    return timeLabels(dimension, scope.range)
      .map((label) => ({ shown: label.shown, scope: { ...scope, range: label.range } }))
      .filter(({ scope: bucket }) => [...days].some((day) => day >= bucket.range.from && day <= bucket.range.to));
  }

  /**
   * Every row of the dimensions' values, in a scope: each combination of values that has data;
   * `listed`: the first dimension's statistic rows when they are already counted.
   */
  async function rowsOf(dimensions: readonly string[], scope: Scope, listed?: readonly StatRow[]): Promise<Row[]> {
    const [first, ...rest] = dimensions;
    if (first === undefined) return [{ dimensions: [], scope }];
    const values = await valuesOf(first, scope, listed);
    if (rest.length === 0)
      return values.map(({ shown, scope: narrowed, counted }) => ({
        dimensions: [shown],
        scope: narrowed,
        ...(counted ? { counted } : {}),
      }));
    const rows: Row[] = [];
    for (const value of values) {
      for (const row of await rowsOf(rest, value.scope)) {
        rows.push({ dimensions: [value.shown, ...row.dimensions], scope: row.scope });
        if (rows.length > MAX_ROWS) throw tooMany("This breakdown");
      }
    }
    return rows;
  }

  return { allRows, baseScope, rowsOf };
}

export type RowReader = ReturnType<typeof createRowReader>;

/** `time`: hours for one day, days up to 31 days, months beyond (Plausible picks alike). */
export function timeUnit(dimension: TimeDimension, range: DayRange): "hour" | "day" | "week" | "month" {
  if (dimension !== "time") return dimension.slice(5) as "hour" | "day" | "week" | "month";
  const days = dayNumber(range.to) - dayNumber(range.from) + 1;
  return days === 1 ? "hour" : days <= 31 ? "day" : "month";
}

/** Every bucket of a time dimension over the range (Plausible's `time_labels`), days clipped to the range, hours to its part of a day. */
export function timeLabels(dimension: TimeDimension, range: CountRange): { shown: string; range: DayRange }[] {
  const unit = range.seconds ? "hour" : timeUnit(dimension, range);
  const labels: { shown: string; range: DayRange }[] = [];
  if (unit === "hour") {
    const [start, end] = range.seconds ?? [-Infinity, Infinity];
    for (let day = dayNumber(range.from); day <= dayNumber(range.to); day++) {
      for (let hour = 0; hour < 24; hour++) {
        const at = day * 86_400 + hour * 3600;
        if (at + 3600 > start && at < end)
          labels.push({ shown: `${dayText(day)} ${String(hour).padStart(2, "0")}:00:00`, range: { from: dayText(day), to: dayText(day) } });
      }
    }
    return labels;
  }
  let from = range.from;
  while (from <= range.to) {
    let next: string;
    if (unit === "day") next = addDays(from, 1);
    else if (unit === "week")
      next = addDays(from, 7 - ((dayNumber(from) + 3) % 7)); // day 0 (1970-01-01) was a Thursday
    else next = `${addDays(`${from.slice(0, 7)}-01`, 31).slice(0, 7)}-01`;
    const to = next <= range.to ? addDays(next, -1) : range.to;
    labels.push({ shown: unit === "month" ? `${from.slice(0, 7)}-01` : from, range: { from, to } });
    from = next;
  }
  return labels;
}
