import { dayNumber } from "../shared/calendar.js";
import {
  CLOSED_KINDS,
  DIMENSION_KINDS,
  HIT_DIMENSIONS,
  KIND_BY_CODE,
  NEW_VALUES_PER_DAY,
  OTHER,
  type DimensionKind,
} from "../model/dimensions.js";
import type { Hit } from "../model/hit.js";
import type { Steps } from "../shared/steps.js";

export interface NewDimension {
  website_id: number;
  kind: number;
  value: string;
  search: string;
  created_day: number;
  /** Who created it (VALUE_SOURCES): each has a daily budget of its own. */
  created_by: number;
}

/**
 * Who creates new values, in `dimensions.created_by`. Each has each kind's daily budget to
 * itself, so clients' hits (anyone can send them) never spend the app's server's or an
 * import's; within the clients' budget, one client (an address) may spend a tenth.
 */
export const VALUE_SOURCES = { client: 0, server: 1, import: 2 } as const;
const CLIENT_SHARE = 10;

/** A hit's `source` as the class whose budget its values spend. */
const classOf = (source: string | undefined): number =>
  source === "server" ? VALUE_SOURCES.server : source === "import" ? VALUE_SOURCES.import : VALUE_SOURCES.client;

/** A website's values of one kind, looked up together. */
export interface DimensionWant {
  websiteId: number;
  kind: number;
  values: readonly string[];
}

/** A stored value and its id. */
export interface FoundDimension {
  websiteId: number;
  kind: number;
  value: string;
  id: number;
}

/** The values of a kind a website created on a local day, by one source class (for its daily limit). */
export interface CreatedKey {
  websiteId: number;
  kind: number;
  day: number;
  createdBy: number;
}

/**
 * What the dictionary needs of a store, as steps answered synchronously (better-sqlite3) or not
 * (kysely). Each call carries every website and kind of a flush: where lists are parameters
 * (PostgreSQL) it is one statement, not one per kind.
 */
export interface DimensionIo {
  /** The values asked that are stored, with their ids. */
  findDimensions(wants: readonly DimensionWant[]): Steps<readonly FoundDimension[]>;
  /** How many values each key created, in the order asked. */
  countNewDimensions(keys: readonly CreatedKey[]): Steps<readonly number[]>;
  /** Inserts, ignoring values that exist already (another process may have added them). */
  insertDimensions(rows: readonly NewDimension[]): Steps<void>;
}

/** Each kind a hit carries with its code. */
const HIT_KIND_CODES = HIT_DIMENSIONS.map((kind) => [kind, DIMENSION_KINDS[kind]] as const);

type ValueIds = Map<string, number>;
/** website → kind code (a small integer: an array index) → value → id */
type Ids = Map<number, ValueIds[]>;

function valuesOf(ids: Ids, websiteId: number, kind: number): ValueIds {
  let byKind = ids.get(websiteId);
  if (!byKind) ids.set(websiteId, (byKind = []));
  return (byKind[kind] ??= new Map());
}

/**
 * Values still unknown in a flush: website → kind → value → the local day number first needed
 * and the source that may create it (a trusted one over a client).
 */
type Needs = Map<number, Map<number, Map<string, Need>>>;
interface Need {
  day: number;
  source: string;
}

/** A website's unknown values of one kind. */
interface Missing {
  websiteId: number;
  kind: number;
  missing: Map<string, Need>;
}

/** The needs by website, then kind, each in ascending order. */
function missingOf(needs: Needs): Missing[] {
  const groups: Missing[] = [];
  for (const websiteId of [...needs.keys()].sort((a, b) => a - b)) {
    const byKind = needs.get(websiteId)!;
    for (const kind of [...byKind.keys()].sort((a, b) => a - b)) groups.push({ websiteId, kind, missing: byKind.get(kind)! });
  }
  return groups;
}

export interface Dictionary {
  /**
   * Learns the id of every value the hits carry, creating new values within the daily limit
   * of their kind and source, and rewrites values past it to `(other)` in the hits themselves
   * (so rollups count them there too). An engagement signal's page spends its client's budget
   * as a pageview's would. Runs inside the flush's transaction.
   */
  intern(io: DimensionIo, hits: readonly Hit[]): Steps<readonly Hit[]>;
  /** The id of a value interned in this flush or before; 0 for "". */
  id(websiteId: number, kind: DimensionKind, value: string): number;
  /** Keeps what this flush learnt (its transaction committed). */
  commit(): void;
  /** Forgets what this flush learnt (its transaction rolled back). */
  rollback(): void;
  forgetWebsite(websiteId: number): void;
}

/**
 * Ids of dimension values, cached in memory (bounded) and stored in the `dimensions`
 * table. What a flush learns is only trusted once its transaction has committed.
 */
export function createDictionary(maxCached = 200_000): Dictionary {
  let known: Ids = new Map();
  let knownCount = 0;
  let learnt: Ids = new Map();
  let learntCount = 0;
  /** `website|kind|day|class` (and `…|client` for one client's share) → values created that day, as far as this process knows. */
  const created = new Map<string, number>();
  const createdInFlush = new Map<string, number>();
  /** Some value of this flush was past its kind's daily limit. */
  let overflowed = false;

  function lookup(websiteId: number, kind: number, value: string): number | undefined {
    return known.get(websiteId)?.[kind]?.get(value) ?? learnt.get(websiteId)?.[kind]?.get(value);
  }

  function learn(websiteId: number, kind: number, value: string, id: number): void {
    valuesOf(learnt, websiteId, kind).set(value, id);
    learntCount++;
  }

  function needsOf(hits: readonly Hit[]): Needs {
    const needs: Needs = new Map();
    /** An unknown value noted (the caller looked it up). */
    const need = (websiteId: number, kind: number, value: string, day: number, source: string) => {
      let byKind = needs.get(websiteId);
      if (!byKind) needs.set(websiteId, (byKind = new Map()));
      let values = byKind.get(kind);
      if (!values) byKind.set(kind, (values = new Map()));
      const known = values.get(value);
      if (!known) values.set(value, { day, source });
      else if (classOf(source) !== VALUE_SOURCES.client) known.source = source;
    };
    /**
     * Per kind code, the value the hit before carried when it was known: hits in a row share
     * most of theirs (a browser, a country, a page), and a batch hands equal values over as
     * one string, so that is one comparison instead of two lookups.
     */
    let knownLast: (string | undefined)[] = [];
    let lastWebsite = -1;
    // The hot loop of a flush (every hit, every kind): a website's values are looked up once a hit, by kind code.
    for (const hit of hits) {
      const { websiteId, values } = hit;
      if (websiteId !== lastWebsite) [knownLast, lastWebsite] = [[], websiteId];
      const knownKinds = known.get(websiteId);
      const learntKinds = learnt.get(websiteId);
      const isNew = (kind: number, value: string) => {
        if (value === "" || value === knownLast[kind]) return false;
        if (knownKinds?.[kind]?.get(value) === undefined && learntKinds?.[kind]?.get(value) === undefined) return true;
        knownLast[kind] = value;
        return false;
      };
      const source = hit.source ?? "";
      // An engagement signal's page names its row (page_engagement); its other values are never stored.
      if (hit.kind === "engagement") {
        if (isNew(DIMENSION_KINDS.page, values.page)) need(websiteId, DIMENSION_KINDS.page, values.page, dayNumber(hit.day), source);
        continue;
      }
      for (const [kind, code] of HIT_KIND_CODES)
        if (isNew(code, values[kind])) need(websiteId, code, values[kind], dayNumber(hit.day), source);
      if (!hit.props) continue;
      for (const [name, value] of Object.entries(hit.props)) {
        if (isNew(DIMENSION_KINDS.prop_name, name)) need(websiteId, DIMENSION_KINDS.prop_name, name, dayNumber(hit.day), source);
        if (isNew(DIMENSION_KINDS.prop_value, value)) need(websiteId, DIMENSION_KINDS.prop_value, value, dayNumber(hit.day), source);
      }
    }
    return needs;
  }

  /** `website|kind|day|class`: the key of a daily budget. */
  const budgetKey = (websiteId: number, code: number, day: number, createdBy: number) => `${websiteId}|${code}|${day}|${createdBy}`;

  /** The stored counts of the budgets the missing values may spend and this process has not counted yet, in one call. */
  function* countBudgets(io: DimensionIo, open: readonly Missing[]): Steps<Map<string, number>> {
    const keys = new Map<string, CreatedKey>();
    for (const { websiteId, kind, missing } of open) {
      for (const { day, source } of missing.values()) {
        const createdBy = classOf(source);
        const key = budgetKey(websiteId, kind, day, createdBy);
        if (!keys.has(key) && created.get(key) === undefined) keys.set(key, { websiteId, kind, day, createdBy });
      }
    }
    const counts = keys.size === 0 ? [] : yield* io.countNewDimensions([...keys.values()]);
    return new Map([...keys.keys()].map((key, index) => [key, counts[index] ?? 0]));
  }

  /** Which of the missing values may be created, by the daily limit of their kind and source (and a client's share of it). */
  function allowed({ websiteId, kind: code, missing }: Missing, counted: ReadonlyMap<string, number>): NewDimension[] {
    const rows: NewDimension[] = [];
    const kind = KIND_BY_CODE.get(code)!;
    const limit = NEW_VALUES_PER_DAY[kind];
    let spilled = false;
    for (const [value, { day, source }] of [...missing].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const createdBy = classOf(source);
      const key = budgetKey(websiteId, code, day, createdBy);
      const count = createdInFlush.get(key) ?? created.get(key) ?? counted.get(key) ?? 0;
      const own = source.startsWith("c:") && !CLOSED_KINDS.has(kind) ? `${key}|${source}` : null;
      const ownCount = own === null ? 0 : (createdInFlush.get(own) ?? created.get(own) ?? 0);
      if (count >= limit || ownCount >= Math.ceil(limit / CLIENT_SHARE)) {
        overflowed = spilled = true;
        continue;
      }
      createdInFlush.set(key, count + 1);
      if (own !== null) createdInFlush.set(own, ownCount + 1);
      rows.push({ website_id: websiteId, kind: code, value, search: value.toLowerCase(), created_day: day, created_by: createdBy });
    }
    // `(other)` itself is never limited: it is where everything past the limit goes.
    if (spilled && lookup(websiteId, code, OTHER) === undefined) {
      rows.push({ website_id: websiteId, kind: code, value: OTHER, search: OTHER, created_day: 0, created_by: VALUE_SOURCES.client });
    }
    return rows;
  }

  function* find(io: DimensionIo, wants: readonly DimensionWant[]): Steps<void> {
    const rows = yield* io.findDimensions(wants);
    for (const row of rows) learn(row.websiteId, row.kind, row.value, Number(row.id));
  }

  function rewriteOverflow(hits: readonly Hit[]): void {
    const capped = (websiteId: number, kind: DimensionKind, value: string) =>
      value !== "" && lookup(websiteId, DIMENSION_KINDS[kind], value) === undefined ? OTHER : value;
    for (const hit of hits) {
      if (hit.kind === "engagement") {
        hit.values.page = capped(hit.websiteId, "page", hit.values.page);
        continue;
      }
      for (const kind of HIT_DIMENSIONS) hit.values[kind] = capped(hit.websiteId, kind, hit.values[kind]);
      if (!hit.props) continue;
      const props: Record<string, string> = {};
      for (const [name, value] of Object.entries(hit.props)) {
        const keptName = capped(hit.websiteId, "prop_name", name);
        if (!(keptName in props)) props[keptName] = capped(hit.websiteId, "prop_value", value);
      }
      hit.props = props;
    }
  }

  function rollback(): void {
    learnt = new Map();
    learntCount = 0;
    createdInFlush.clear();
  }

  return {
    *intern(io, hits) {
      overflowed = false;
      // Website, kind and value in one fixed order: concurrent flushes (PostgreSQL) wait
      // for each other's new values instead of deadlocking.
      const groups = missingOf(needsOf(hits));
      if (groups.length > 0)
        yield* find(
          io,
          groups.map(({ websiteId, kind, missing }) => ({ websiteId, kind, values: [...missing.keys()] })),
        );
      for (const { websiteId, kind, missing } of groups) {
        for (const value of missing.keys()) if (lookup(websiteId, kind, value) !== undefined) missing.delete(value);
      }
      const open = groups.filter((group) => group.missing.size > 0);
      if (open.length > 0) {
        const counted = yield* countBudgets(io, open);
        const rows = open.flatMap((group) => allowed(group, counted));
        if (rows.length > 0) {
          yield* io.insertDimensions(rows);
          const created = new Map<string, DimensionWant & { values: string[] }>();
          for (const row of rows) {
            const key = `${row.website_id}|${row.kind}`;
            let want = created.get(key);
            if (!want) created.set(key, (want = { websiteId: row.website_id, kind: row.kind, values: [] }));
            want.values.push(row.value);
          }
          yield* find(io, [...created.values()]);
        }
      }
      if (overflowed) rewriteOverflow(hits);
      return hits;
    },
    id(websiteId, kind, value) {
      if (value === "") return 0;
      const id = lookup(websiteId, DIMENSION_KINDS[kind], value);
      if (id === undefined) throw new Error(`dimension value not interned: ${kind}`);
      return id;
    },
    commit() {
      if (knownCount + learntCount > maxCached) {
        known = new Map();
        knownCount = 0;
      }
      for (const [websiteId, byKind] of learnt) {
        byKind.forEach((values, kind) => {
          for (const [value, id] of values) valuesOf(known, websiteId, kind).set(value, id);
        });
      }
      knownCount += learntCount;
      for (const [key, count] of createdInFlush) created.set(key, count);
      if (created.size > 50_000) created.clear();
      rollback();
    },
    rollback,
    forgetWebsite(websiteId) {
      known.delete(websiteId);
      learnt.delete(websiteId);
    },
  };
}
