import type { Condition } from "../../model/filters.js";
import type { PathStep } from "../../model/path-steps.js";
import type { DayRange } from "../../stats/count-reader.js";
import { START, stepKey, type JourneyCounts, type JourneyShape } from "../../stats/journey-steps.js";
import type { PathReader } from "../../stats/path-reader.js";
import { clickhouseConditions, likePattern, type ClickhouseConditions } from "./conditions.js";
import { queryParams, type QueryParams, type RunQuery } from "./query.js";
import type { StoredUntil } from "./stored-visits.js";
import { visitPartsOf, visitsWith } from "./visit-source.js";
import { HIT, KIND } from "./visits.js";

/** Visits started on a range's days. */
const STARTED = "vday BETWEEN {from:Date} AND {to:Date}";
/** A visit's visitor-day: funnels and journeys count those. */
const VISITOR_DAY = "(vday, day_visitor)";

/** Whether the visit's hit `e` (visits.ts's `HIT`) is the step: a pageview of a matching page, or an event of the name. */
function isStep(step: PathStep, params: QueryParams): string {
  return step.kind === "page"
    ? `(e.${HIT.kind} = ${KIND.pageview} AND e.${HIT.page} LIKE ${params.add(likePattern(step.pattern), "String")})`
    : `(e.${HIT.kind} = ${KIND.event} AND e.${HIT.event} = ${params.add(step.name, "String")})`;
}

/** `value` of each of a visit's hits `e` (pageviews and events, `hits`) for which `only` holds, in the visit's order. */
const inOrder = (value: string, only = "1") => `arrayMap(e -> ${value}, arrayFilter(e -> ${only}, hits))`;

/** A journey step's value of a hit: 0 and its page for a pageview, 1 and its name for an event (2 stands for the start). */
const STEP_VALUE = `(toUInt8(e.${HIT.kind} = ${KIND.event}), if(e.${HIT.kind} = ${KIND.event}, e.${HIT.event}, e.${HIT.page}))`;
const START_VALUE = "(toUInt8(2), '')";

/** A journey's row: a node (`node` 1: visitors of a value at a step) or a link (from a value to one at a step), values as kind and text. */
interface JourneyRow {
  step: number;
  node: number;
  from_kind: number;
  from_text: string;
  to_kind: number;
  to_text: string;
  visitors: string | number;
}

/**
 * Funnels and journeys of one website counted in ClickHouse (docs/statistics.md, "Funnels and
 * journeys"), from the visits (visit-source.ts: kept for closed days, formed from the hits
 * for the rest) that started in the range and match the filters: a funnel folds each visit's step hits in order, a journey walks each
 * visit's hits from its start; both count visitor-days in ClickHouse. Journey values get
 * numbers of this reader's own (`valuesOf` names them), steps and filter values are query
 * parameters. The other reads are `others`'.
 */
export function createClickhousePathReader(
  run: RunQuery,
  conditions: readonly Condition[],
  others: PathReader,
  stored?: StoredUntil,
): PathReader {
  /** Runs a statement over the visits started in the range (`__visits`: kept for closed days, formed for the rest) with their hits. */
  async function over<Row>(where: ClickhouseConditions, statement: string, range: DayRange, params: QueryParams): Promise<Row[]> {
    const { parts, split } = await visitPartsOf(range, { hits: true }, 0, stored);
    const visits = visitsWith(where, statement, parts);
    return run<Row>(
      statement.replace("__visits", () => visits),
      range,
      { params, ...(split === undefined ? {} : { split }) },
    );
  }

  /** Journey values by kind and text, numbered as they come; their texts by number. */
  const numbers = new Map<string, number>();
  const texts = new Map<number, string>();
  function keyOf(kind: number, text: string): number {
    if (kind === 2) return START;
    const name = `${kind} ${text}`;
    let id = numbers.get(name);
    if (id === undefined) {
      numbers.set(name, (id = numbers.size + 1));
      texts.set(id, text);
    }
    return kind === 1 ? stepKey(0, id) : stepKey(id, 0);
  }

  async function funnelVisitors(steps: readonly PathStep[], range: DayRange): Promise<number[]> {
    const params = queryParams();
    const where = clickhouseConditions(conditions, params);
    const mask = `toUInt16(${steps.map((step, index) => `if(${isStep(step, params)}, ${2 ** index}, 0)`).join(" + ")})`;
    // Each visit's step hits in order, folded into how many steps it did: one hit makes one step.
    const done = `arrayFold((done, m) -> if(done < ${steps.length} AND bitTest(m, done), toUInt8(done + 1), done), masks, toUInt8(0))`;
    const counts = steps.map((_, index) => `toUInt64(uniqExactIf(${VISITOR_DAY}, done > ${index})) AS step_${index}`);
    const masks = `arrayFilter(m -> m != 0, ${inOrder(mask)}) AS masks`;
    const visits = `SELECT vday, day_visitor, ${masks}, ${done} AS done FROM __visits WHERE ${STARTED} AND ${where.visit()}`;
    const statement = `SELECT ${counts.join(", ")} FROM (${visits})`;
    const [row] = await over<Record<string, string | number>>(where, statement, range, params);
    return steps.map((_, index) => Number(row?.[`step_${index}`] ?? 0));
  }

  async function journeyCounts(start: PathStep, range: DayRange, { direction, depth }: JourneyShape): Promise<JourneyCounts> {
    const params = queryParams();
    const where = clickhouseConditions(conditions, params);
    const steps = `${inOrder(`(toUInt8(${isStep(start, params)}), ${STEP_VALUE})`)} AS steps`;
    // The hits from the visit's first start onwards (or back from it), a value repeating the one before dropped, the start's own standing for the start.
    const walked = direction === "next" ? "arraySlice(steps, at)" : "arrayReverse(arraySlice(steps, 1, at))";
    const paths = `SELECT vday, day_visitor, arrayMap(x -> x.2, ${walked}) AS walked,
        arrayFilter((value, before) -> value != before, walked, arrayPushFront(arrayPopBack(walked), ${START_VALUE})) AS collapsed,
        arrayPushFront(arraySlice(collapsed, 2, ${params.add(depth, "UInt8")}), ${START_VALUE}) AS path
      FROM (SELECT *, ${steps}, arrayFirstIndex(x -> x.1 = 1, steps) AS at FROM __visits WHERE ${STARTED} AND ${where.visit()}) WHERE at > 0`;
    const statement = `SELECT step - 1 AS step, grouping(before) AS node,
        before.1 AS from_kind, before.2 AS from_text, value.1 AS to_kind, value.2 AS to_text, toUInt64(uniqExact${VISITOR_DAY}) AS visitors
      FROM (${paths})
      ARRAY JOIN arrayEnumerate(path) AS step, path AS value, arrayPushFront(arrayPopBack(path), ${START_VALUE}) AS before
      GROUP BY GROUPING SETS ((step, value), (step, before, value))`;
    const rows = await over<JourneyRow>(where, statement, range, params);
    const counts: JourneyCounts = { nodes: [], links: [] };
    for (const row of rows) {
      const step = Number(row.step);
      const to = keyOf(Number(row.to_kind), row.to_text);
      const visitors = Number(row.visitors);
      if (Number(row.node) === 1) (counts.nodes[step] ??= new Map()).set(to, visitors);
      else if (step > 0) {
        const from = keyOf(Number(row.from_kind), row.from_text);
        const links = (counts.links[step] ??= new Map());
        if (!links.has(from)) links.set(from, new Map());
        links.get(from)!.set(to, visitors);
      }
    }
    return counts;
  }

  return {
    ...others,
    funnelVisitors,
    journeyCounts,
    valuesOf: async (ids) => new Map(ids.flatMap((id) => (texts.has(id) ? [[id, texts.get(id)!] as const] : []))),
  };
}
