import { HIT_DIMENSIONS } from "./dimensions.js";
import type { Hit } from "./hit.js";
import { compileFieldVisitor, compileLiteral } from "../shared/compiled-literal.js";

/**
 * Hits as typed arrays and one list of distinct strings, for a trip to another thread. A
 * structured clone writes every property name of every object it copies, and every string
 * again wherever it occurs: a batch's hits repeat the same days, hours, pages, browsers and
 * countries thousands of times. Here each hit is its fields in a fixed order (then its
 * values in the registry's order, `HIT_DIMENSIONS`), each field a code: a string's index in
 * `strings`, or what else it is (a number is in `numbers` at the field's place). A batch
 * crosses as a few flat arrays (copied byte for byte) and each distinct string once, and
 * arrives with equal values as one string (their hashes computed once on the writer).
 */
export interface PackedHits {
  readonly fields: number;
  readonly strings: readonly string[];
  /** Per field: ≥ 0 an index in `strings`; NUMBER, NULL, ABSENT, or OBJECT (the next of `objects`). */
  readonly codes: Int32Array;
  readonly numbers: Float64Array;
  readonly objects: readonly unknown[];
}

const NUMBER = -1;
const NULL = -2;
const ABSENT = -3;
const OBJECT = -4;

const SCALARS = [
  "kind",
  "websiteId",
  "timestamp",
  "localTime",
  "day",
  "hour",
  "visitorHash",
  "previousVisitorHash",
  "nextVisitorHash",
  "engagedMs",
  "scrollDepth",
  "vitals",
  "props",
  "revenue",
  "outboxId",
  "source",
] as const satisfies readonly (keyof Hit)[];
// A field added to Hit and not listed here fails to compile instead of vanishing on the way.
type Unlisted = Exclude<keyof Hit, (typeof SCALARS)[number] | "values">;
const everyFieldListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyFieldListed;

const FIELDS = SCALARS.length + HIT_DIMENSIONS.length;

/** Fields a hit may lack: set only when present, so an absent one stays absent. */
const OPTIONAL: ReadonlySet<string> = new Set(["revenue", "outboxId", "source"] satisfies (typeof SCALARS)[number][]);

/**
 * A hit's every other field as one literal (shared/compiled-literal.ts), its values after them,
 * each field read by `field` from its place in the batch: no array of every field's value between.
 */
const hitAt = compileLiteral<(field: (at: number) => unknown, at: number) => Hit>(
  ["field", "at"],
  [
    ...SCALARS.flatMap((field, i) => (OPTIONAL.has(field) ? [] : [[field, `field(at + ${i})`] as const])),
    ["values", `{ ${HIT_DIMENSIONS.map((kind, i) => `${kind}: field(at + ${SCALARS.length + i})`).join(", ")} }`],
  ],
);
/** Hands each of a hit's fields to `put`, in the packed order. */
const visitFields = compileFieldVisitor<Hit>([...SCALARS, ...HIT_DIMENSIONS.map((kind) => `values.${kind}`)]);
const OPTIONAL_AT = SCALARS.flatMap((field, i) => (OPTIONAL.has(field) ? [[field, i] as const] : []));

export function packHits(hits: readonly Hit[]): PackedHits {
  const codes = new Int32Array(hits.length * FIELDS);
  const numbers = new Float64Array(hits.length * FIELDS);
  const strings: string[] = [];
  const objects: unknown[] = [];
  const indexOf = new Map<string, number>();
  // A field's string is often the one the hit before had (its kind, day, hour, host, browser):
  // found again by comparison, without a lookup.
  const lastString: unknown[] = new Array(FIELDS);
  const lastIndex = new Int32Array(FIELDS);
  let at = 0;
  const put = (value: unknown) => {
    if (typeof value === "string") {
      const field = at % FIELDS;
      if (lastString[field] === value) {
        codes[at++] = lastIndex[field]!;
        return;
      }
      let index = indexOf.get(value);
      if (index === undefined) indexOf.set(value, (index = strings.push(value) - 1));
      lastString[field] = value;
      lastIndex[field] = index;
      codes[at++] = index;
    } else if (typeof value === "number") {
      codes[at] = NUMBER;
      numbers[at++] = value;
    } else if (value === null) codes[at++] = NULL;
    else if (value === undefined) codes[at++] = ABSENT;
    else {
      codes[at++] = OBJECT;
      objects.push(value);
    }
  };
  for (const hit of hits) visitFields(hit, put);
  return { fields: FIELDS, strings, codes, numbers, objects };
}

export function unpackHits(packed: PackedHits): Hit[] {
  // A message from a thread built with another registry must not be misread.
  if (packed.fields !== FIELDS) throw new Error(`Hits packed with ${packed.fields} fields, expected ${FIELDS}.`);
  const { strings, codes, numbers, objects } = packed;
  // Each object field's place in `objects` (they are in packed order), for reading fields in any order.
  const objectAt = new Int32Array(objects.length === 0 ? 0 : codes.length);
  if (objects.length > 0) for (let at = 0, next = 0; at < codes.length; at++) if (codes[at] === OBJECT) objectAt[at] = next++;
  const field = (at: number): unknown => {
    const code = codes[at]!;
    return code >= 0
      ? strings[code]
      : code === NUMBER
        ? numbers[at]
        : code === NULL
          ? null
          : code === ABSENT
            ? undefined
            : objects[objectAt[at]!];
  };
  const hits: Hit[] = [];
  for (let at = 0; at < codes.length; at += FIELDS) {
    const hit = hitAt(field, at);
    for (const [name, i] of OPTIONAL_AT) {
      const value = field(at + i);
      if (value !== undefined) (hit as unknown as Record<string, unknown>)[name] = value;
    }
    hits.push(hit);
  }
  return hits;
}
