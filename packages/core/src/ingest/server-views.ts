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
  hit: HitInput;
  identity: string;
  timer: NodeJS.Timeout;
}

const identityOf = (hit: HitInput) => `${hit.ip ?? ""}\n${hit.userAgent}\n${hit.url.split("#", 1)[0]}`;

export function createServerViews(options: ServerViewsOptions): ServerViews {
  const held = new Map<string, Held>();
  /** Marks by identity, oldest first: two tabs of one page are two views. */
  const byIdentity = new Map<string, string[]>();
  const pending = new Set<Promise<unknown>>();
  const maxHeld = options.maxHeld ?? 10_000;

  function take(mark: string): HitInput | undefined {
    const view = held.get(mark);
    if (!view) return undefined;
    clearTimeout(view.timer);
    held.delete(mark);
    const marks = byIdentity.get(view.identity) ?? [];
    marks.splice(marks.indexOf(mark), 1);
    if (marks.length === 0) byIdentity.delete(view.identity);
    return view.hit;
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

  return {
    hold(hit) {
      const mark = randomBytes(12).toString("base64url");
      const identity = identityOf(hit);
      const timer = setTimeout(() => void countAlone(mark), options.waitMs);
      timer.unref();
      // The view happened now, whenever it is counted.
      held.set(mark, { hit: { ...hit, timestamp: hit.timestamp ?? Date.now() }, identity, timer });
      byIdentity.set(identity, [...(byIdentity.get(identity) ?? []), mark]);
      if (held.size > maxHeld) void countAlone(held.keys().next().value as string);
      return mark;
    },
    claim(hit) {
      if (held.size === 0) return hit.view ? null : undefined;
      if (typeof hit.view === "string" && hit.view !== "") return take(hit.view) ?? null;
      const mark = byIdentity.get(identityOf(hit))?.[0];
      return mark === undefined ? undefined : take(mark);
    },
    async release() {
      await Promise.all([...held.keys()].map(countAlone));
      await Promise.all(pending);
    },
  };
}
