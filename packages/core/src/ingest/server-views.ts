import { randomBytes } from "node:crypto";
import type { HitInput } from "../model/hit-input.js";

/**
 * Pageviews the app's server counted (the middleware, docs/guide/inside-your-app.md), held a
 * few seconds so that the tracker's pageview of the same view completes them instead of
 * counting again (docs/statistics.md, "Server-side pageviews"). A view nobody completes
 * (JavaScript off, the script blocked) is counted alone when its wait ends.
 */
export interface ServerViews {
  /** Holds the server's pageview and answers its mark (the response's `Server-Timing: tally;desc=<mark>`). */
  hold(hit: HitInput): string;
  /**
   * The held view a tracker pageview completes: by its mark, else by the same address,
   * user agent and URL (a browser that cannot read the mark). `undefined` when none is
   * held; `null` when the hit carries a mark that is not held: a server counted that view
   * already (its wait ended, or another instance of the app served the page), never twice.
   */
  claim(hit: HitInput): HitInput | null | undefined;
  /** Counts every held view now (flush, close). */
  release(): Promise<void>;
}

export interface ServerViewsOptions {
  /** Counts a view (the collector's collect); its failures go to `onError`. */
  count(hit: HitInput): Promise<unknown>;
  onError(error: unknown): void;
  /** How long a view waits for the tracker's pageview. */
  waitMs: number;
  /** Past this many held views, a new one is counted at once (bounded memory under a flood). */
  maxHeld?: number;
}

interface Held {
  /** The view as the app's server gave it, unchanged. */
  hit: HitInput;
  /** When it was served (epoch ms): its time when the hit names none. */
  at: number;
  /** When its wait ends (performance.now()). */
  due: number;
}

/** The URL as a view's identity reads it: without its fragment. */
const pageUrl = (url: string) => {
  const fragment = url.indexOf("#");
  return fragment === -1 ? url : url.slice(0, fragment);
};

/** A held view the same person's tracker pageview of the same page (no mark) completes. */
const samePerson = (view: HitInput, hit: HitInput) => view.userAgent === hit.userAgent && pageUrl(view.url) === pageUrl(hit.url);

/** Mark bytes drawn at once: one call into the random source per this many views. */
const MARKS_PER_DRAW = 256;
const MARK_BYTES = 12;

/** Unguessable marks, a batch of random bytes at a time (a call per view costs more than the rest of holding it). */
function markSource(): () => string {
  let bytes = randomBytes(0);
  let offset = 0;
  return () => {
    if (offset === bytes.length) {
      bytes = randomBytes(MARK_BYTES * MARKS_PER_DRAW);
      offset = 0;
    }
    offset += MARK_BYTES;
    return bytes.toString("base64url", offset - MARK_BYTES, offset);
  };
}

export function createServerViews(options: ServerViewsOptions): ServerViews {
  const held = new Map<string, Held>();
  /**
   * Marks by the view's address, oldest first (two tabs of one page are two views); user
   * agent and URL are compared on the few an address has. Nothing is built per view to
   * find it again: a view is held long enough to reach the old generation, and whatever it
   * holds then costs a full garbage collection to free.
   */
  const byAddress = new Map<string, string[]>();
  /**
   * Marks in the order they were held (so in the order their waits end), from `head` on;
   * some were taken since. One timer for all of them: a timer per view costs more than the view.
   */
  let order: string[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | null = null;
  const pending = new Set<Promise<unknown>>();
  const maxHeld = options.maxHeld ?? 10_000;
  const nextMark = markSource();

  function take(mark: string): HitInput | undefined {
    const view = held.get(mark);
    if (!view) return undefined;
    held.delete(mark);
    const address = view.hit.ip ?? "";
    const marks = byAddress.get(address) ?? [];
    marks.splice(marks.indexOf(mark), 1);
    if (marks.length === 0) byAddress.delete(address);
    // The view happened when it was served, whenever it is counted.
    return view.hit.timestamp === undefined ? { ...view.hit, timestamp: view.at } : view.hit;
  }

  function countAlone(mark: string): Promise<void> {
    const hit = take(mark);
    if (!hit) return Promise.resolve();
    const run = options.count(hit).then(
      () => {},
      (error: unknown) => options.onError(error),
    );
    pending.add(run);
    return run.finally(() => pending.delete(run));
  }

  /** The oldest mark still held, skipping (and forgetting) those taken since. */
  function oldest(): string | undefined {
    while (head < order.length && !held.has(order[head]!)) head++;
    if (head > 1024 && head * 2 > order.length) {
      order = order.slice(head);
      head = 0;
    }
    return order[head];
  }

  /** Counts every view whose wait is over, then waits for the next one's. */
  function expire(): void {
    timer = null;
    const now = performance.now();
    for (let mark = oldest(); mark !== undefined; mark = oldest()) {
      const due = held.get(mark)!.due;
      if (due > now) {
        arm(due - now);
        return;
      }
      void countAlone(mark);
    }
  }

  function arm(ms: number): void {
    timer = setTimeout(expire, Math.max(1, Math.ceil(ms)));
    timer.unref();
  }

  return {
    hold(hit) {
      const mark = nextMark();
      held.set(mark, { hit, at: Date.now(), due: performance.now() + options.waitMs });
      order.push(mark);
      const address = hit.ip ?? "";
      const marks = byAddress.get(address);
      if (marks) marks.push(mark);
      else byAddress.set(address, [mark]);
      if (held.size > maxHeld) void countAlone(oldest()!);
      if (timer === null) arm(options.waitMs);
      return mark;
    },
    claim(hit) {
      if (held.size === 0) return hit.view ? null : undefined;
      if (typeof hit.view === "string" && hit.view !== "") return take(hit.view) ?? null;
      const mark = byAddress.get(hit.ip ?? "")?.find((candidate) => samePerson(held.get(candidate)!.hit, hit));
      return mark === undefined ? undefined : take(mark);
    },
    async release() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await Promise.all([...held.keys()].map(countAlone));
      order = [];
      head = 0;
      await Promise.all(pending);
    },
  };
}
