import { describe, expect, it } from "vitest";
import type { HitInput } from "../model/hit-input.js";
import { createServerViews } from "./server-views.js";

const view = (page: string, ip = "203.0.113.7"): HitInput => ({ url: `https://example.com/${page}`, ip, userAgent: "Firefox" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Server views whose counted hits are kept, in the order they were counted. */
function recording(options: { waitMs: number; maxHeld?: number }) {
  const counted: string[] = [];
  const views = createServerViews({
    count: async (hit) => void counted.push(new URL(hit.url).pathname),
    onError: (error) => {
      throw error;
    },
    ...options,
  });
  return { views, counted };
}

describe("server views held for the tracker", () => {
  it("counts each view alone when its wait ends, oldest first, and not one a tracker completed", async () => {
    const { views, counted } = recording({ waitMs: 300 });
    views.hold(view("a"));
    const b = views.hold(view("b"));
    views.hold(view("c", "198.51.100.1"));
    expect(views.claim({ ...view("x"), view: b })?.url).toBe("https://example.com/b");
    // A tracker without the mark: the same address, user agent and URL.
    expect(views.claim(view("c", "198.51.100.1"))?.url).toBe("https://example.com/c");
    await sleep(150);
    views.hold(view("d"));
    await sleep(200);
    expect(counted).toEqual(["/a"]);
    await sleep(200);
    expect(counted).toEqual(["/a", "/d"]);
    // Its wait over, a view's mark is no longer held: the tracker's pageview is not counted again.
    expect(views.claim({ ...view("a"), view: "gone" })).toBeNull();
  });

  it("counts the oldest view still held at once past the most it may hold, and all of them at release", async () => {
    const { views, counted } = recording({ waitMs: 60_000, maxHeld: 2 });
    const first = views.hold(view("1"));
    views.hold(view("2"));
    expect(views.claim({ ...view("1"), view: first })?.url).toBe("https://example.com/1");
    views.hold(view("3"));
    views.hold(view("4"));
    await sleep(0);
    expect(counted).toEqual(["/2"]);
    const marks = new Set(Array.from({ length: 300 }, (_, n) => views.hold(view(`many-${n}`))));
    expect(marks.size).toBe(300);
    await views.release();
    expect(counted).toHaveLength(303);
    expect(counted.slice(0, 3)).toEqual(["/2", "/3", "/4"]);
  });
});
