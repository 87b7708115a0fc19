import type { CompiledQuery } from "kysely";
import type { HitInput } from "./hit-input.js";

/**
 * A transaction the app opened on Tally's own database, for a conversion to commit or roll
 * back with it (docs/guide/inside-your-app.md): a Kysely transaction, a better-sqlite3 handle
 * inside `BEGIN`…`COMMIT`, or a `pg` client inside `BEGIN`…`COMMIT`.
 */
export type AppTransaction =
  | { executeQuery(query: CompiledQuery): Promise<{ rows: readonly unknown[] }> }
  | { prepare(source: string): { reader: boolean; run(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] } }
  | { query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };

/** What an event property may hold. */
export type EventPropValue = string | number | boolean;

/**
 * An app's events, each with its properties: `{ Signup: { plan: "free" | "pro" };
 * Purchase: { amount: number }; Logout: Record<never, never> }`. Given to `createTally<Events>()`, it types
 * `tally.record` and `tally.collect`; the tracker's `TallyTracker<Events>` takes the same.
 */
export type EventMap<E = Record<string, Record<string, EventPropValue>>> = {
  [N in keyof E]: { [P in keyof E[N]]: EventEntryValue<E[N][P]> };
};

/** A property may be optional; its values are those of EventPropValue. */
type EventEntryValue<V> = Exclude<V, undefined> extends EventPropValue ? V : never;

/** The map of a Tally nobody typed: any event name, any properties. */
export type AnyEvents = Record<string, Record<string, EventPropValue>>;

/** The event names of a map: any string when untyped. */
export type EventName<E> = keyof E & string;

/** `props` required when the event has a required property, else optional. */
type PropsOf<P> = Record<never, never> extends P ? { props?: P | null } : { props: P };

/** What `tally.record(name, input)` takes beside the event's name: where and who, and its properties. */
export type RecordInput<E, N extends EventName<E>> = Omit<HitInput, "event" | "props" | "engagedMs" | "view" | "route"> &
  PropsOf<E[N]> & {
    /**
     * The app's open transaction on Tally's database: the event is written in it, counted
     * once it commits, never if it rolls back; the browser's same event by the same visitor
     * is then not counted again (docs/statistics.md, "Conversions").
     */
    trx?: AppTransaction;
  };

/** `tally.record`'s arguments: an event's name, then its input (a union of one pair per event, so a typed Tally is still a Tally). */
export type RecordArgs<E> = { [N in EventName<E>]: [name: N, input: RecordInput<E, N>] }[EventName<E>];

/** One pageview or event for `tally.collect`: events and properties typed when the map is. */
export type TypedHit<E> = string extends keyof E
  ? HitInput
  : | (Omit<HitInput, "event" | "props"> & { event?: null; props?: null })
    | { [N in EventName<E>]: Omit<HitInput, "event" | "props"> & { event: N } & PropsOf<E[N]> }[EventName<E>];
