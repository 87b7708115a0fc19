import { dayNumber } from "../shared/calendar.js";
import { DIMENSION_KINDS, NEW_VALUES_PER_DAY, OTHER, type DimensionKind } from "../model/dimensions.js";
import type { PendingHit } from "../model/pending-hit.js";
import type { Steps } from "../shared/steps.js";

type MaybePromise<T> = T | Promise<T>;

export interface NewDimension {
  website_id: number;
  kind: number;
  value: string;
  search: string;
  created_day: number;
}

/** What the dictionary needs of a store; synchronous (better-sqlite3) or not (kysely). */
export interface DimensionIo {
  findDimensions(websiteId: number, kind: number, values: readonly string[]): MaybePromise<readonly { value: string; id: number }[]>;
  /** How many values of a kind the website created on a local day (for the daily limit). */
  countNewDimensions(websiteId: number, kind: number, day: number): MaybePromise<number>;
  /** Inserts, ignoring values that exist already (another process may have added them). */
  insertDimensions(rows: readonly NewDimension[]): MaybePromise<void>;
}

/** Every kind a hit's fields hold, with the field's accessors; props are handled apart. */
const HIT_FIELDS: readonly [DimensionKind, (hit: PendingHit) => string, (hit: PendingHit, value: string) => void][] = [
  ["page", (h) => h.page, (h, v) => (h.page = v)],
  ["referrer", (h) => h.referrer, (h, v) => (h.referrer = v)],
  ["utm_source", (h) => h.utm.source, (h, v) => (h.utm = { ...h.utm, source: v })],
  ["utm_medium", (h) => h.utm.medium, (h, v) => (h.utm = { ...h.utm, medium: v })],
  ["utm_campaign", (h) => h.utm.campaign, (h, v) => (h.utm = { ...h.utm, campaign: v })],
  ["utm_content", (h) => h.utm.content, (h, v) => (h.utm = { ...h.utm, content: v })],
  ["utm_term", (h) => h.utm.term, (h, v) => (h.utm = { ...h.utm, term: v })],
  ["browser", (h) => h.browser, (h, v) => (h.browser = v)],
  ["os", (h) => h.os, (h, v) => (h.os = v)],
  ["device", (h) => h.device, (h, v) => (h.device = v)],
  ["country", (h) => h.country, (h, v) => (h.country = v)],
  ["continent", (h) => h.continent, (h, v) => (h.continent = v)],
  ["city", (h) => h.city, (h, v) => (h.city = v)],
  ["language", (h) => h.language, (h, v) => (h.language = v)],
  ["resolution", (h) => h.screen, (h, v) => (h.screen = v)],
  ["event", (h) => h.event ?? "", (h, v) => (h.event = v)],
];

type ValueIds = Map<string, number>;
/** website → kind → value → id */
type Ids = Map<number, Map<number, ValueIds>>;

function valuesOf(ids: Ids, websiteId: number, kind: number): ValueIds {
  let byKind = ids.get(websiteId);
  if (!byKind) ids.set(websiteId, (byKind = new Map()));
  let values = byKind.get(kind);
  if (!values) byKind.set(kind, (values = new Map()));
  return values;
}

/** Values still unknown in a flush: website → kind → value → local day number first needed. */
type Needs = Map<number, Map<number, Map<string, number>>>;

export interface Dictionary {
  /**
   * Learns the id of every value the hits carry, creating new values within each kind's
   * daily limit, and rewrites values past it to `(other)` in the hits themselves (so
   * rollups count them there too). Runs inside the flush's transaction.
   */
  intern(io: DimensionIo, hits: readonly PendingHit[]): Steps<void>;
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
  /** `website|kind|day` → values created that day, as far as this process knows. */
  const created = new Map<string, number>();
  const createdInFlush = new Map<string, number>();

  function lookup(websiteId: number, kind: number, value: string): number | undefined {
    return known.get(websiteId)?.get(kind)?.get(value) ?? learnt.get(websiteId)?.get(kind)?.get(value);
  }

  function learn(websiteId: number, kind: number, value: string, id: number): void {
    valuesOf(learnt, websiteId, kind).set(value, id);
    learntCount++;
  }

  function needsOf(hits: readonly PendingHit[]): Needs {
    const needs: Needs = new Map();
    const need = (websiteId: number, kind: number, value: string, day: number) => {
      if (value === "" || lookup(websiteId, kind, value) !== undefined) return;
      let byKind = needs.get(websiteId);
      if (!byKind) needs.set(websiteId, (byKind = new Map()));
      let values = byKind.get(kind);
      if (!values) byKind.set(kind, (values = new Map()));
      if (!values.has(value)) values.set(value, day);
    };
    for (const hit of hits) {
      if (hit.kind === "engagement") continue;
      const day = dayNumber(hit.day);
      for (const [kind, read] of HIT_FIELDS) need(hit.websiteId, DIMENSION_KINDS[kind], read(hit), day);
      for (const [name, value] of Object.entries(hit.props ?? {})) {
        need(hit.websiteId, DIMENSION_KINDS.prop_name, name, day);
        need(hit.websiteId, DIMENSION_KINDS.prop_value, value, day);
      }
    }
    return needs;
  }

  /** Which of the missing values may be created, by the daily limit of their kind. */
  function* allowed(io: DimensionIo, websiteId: number, kind: DimensionKind, missing: Map<string, number>): Steps<NewDimension[]> {
    const rows: NewDimension[] = [];
    const code = DIMENSION_KINDS[kind];
    for (const [value, day] of [...missing].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const key = `${websiteId}|${code}|${day}`;
      let count = createdInFlush.get(key) ?? created.get(key);
      if (count === undefined) count = (yield io.countNewDimensions(websiteId, code, day)) as number;
      if (count >= NEW_VALUES_PER_DAY[kind]) continue;
      createdInFlush.set(key, count + 1);
      rows.push({ website_id: websiteId, kind: code, value, search: value.toLowerCase(), created_day: day });
    }
    // `(other)` itself is never limited: it is where everything past the limit goes.
    if (rows.length < missing.size && lookup(websiteId, code, OTHER) === undefined) {
      rows.push({ website_id: websiteId, kind: code, value: OTHER, search: OTHER, created_day: 0 });
    }
    return rows;
  }

  function* find(io: DimensionIo, websiteId: number, kind: number, values: readonly string[]): Steps<void> {
    const rows = (yield io.findDimensions(websiteId, kind, values)) as { value: string; id: number }[];
    for (const row of rows) learn(websiteId, kind, row.value, Number(row.id));
  }

  function rewriteOverflow(hits: readonly PendingHit[]): void {
    const capped = (websiteId: number, kind: DimensionKind, value: string) =>
      value !== "" && lookup(websiteId, DIMENSION_KINDS[kind], value) === undefined ? OTHER : value;
    for (const hit of hits) {
      if (hit.kind === "engagement") continue;
      for (const [kind, read, write] of HIT_FIELDS) {
        const value = read(hit);
        const kept = capped(hit.websiteId, kind, value);
        if (kept !== value) write(hit, kept);
      }
      if (!hit.props) continue;
      const props: Record<string, string> = {};
      for (const [name, value] of Object.entries(hit.props)) {
        const keptName = capped(hit.websiteId, "prop_name", name);
        if (!(keptName in props)) props[keptName] = capped(hit.websiteId, "prop_value", value);
      }
      hit.props = props;
    }
  }

  const kindNames = Object.fromEntries(Object.entries(DIMENSION_KINDS).map(([name, code]) => [code, name as DimensionKind]));

  function rollback(): void {
    learnt = new Map();
    learntCount = 0;
    createdInFlush.clear();
  }

  return {
    *intern(io, hits) {
      const needs = needsOf(hits);
      // Website, kind and value in one fixed order: concurrent flushes (PostgreSQL) wait
      // for each other's new values instead of deadlocking.
      for (const websiteId of [...needs.keys()].sort((a, b) => a - b)) {
        const byKind = needs.get(websiteId)!;
        for (const kind of [...byKind.keys()].sort((a, b) => a - b)) {
          const missing = byKind.get(kind)!;
          yield* find(io, websiteId, kind, [...missing.keys()]);
          for (const value of missing.keys()) if (lookup(websiteId, kind, value) !== undefined) missing.delete(value);
          if (missing.size === 0) continue;
          const rows = yield* allowed(io, websiteId, kindNames[kind]!, missing);
          if (rows.length === 0) continue;
          yield io.insertDimensions(rows);
          yield* find(io, websiteId, kind, rows.map((row) => row.value));
        }
      }
      rewriteOverflow(hits);
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
        for (const [kind, values] of byKind) for (const [value, id] of values) valuesOf(known, websiteId, kind).set(value, id);
      }
      knownCount += learntCount;
      for (const [key, count] of createdInFlush) created.set(key, count);
      if (created.size > 10_000) created.clear();
      rollback();
    },
    rollback,
    forgetWebsite(websiteId) {
      known.delete(websiteId);
      learnt.delete(websiteId);
    },
  };
}
