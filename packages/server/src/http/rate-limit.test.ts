import { describe, expect, it } from "vitest";
import { createRateLimiter } from "./rate-limit.js";

describe("createRateLimiter", () => {
  it("counts a fixed window per key and resets after it", () => {
    let time = 0;
    const limiter = createRateLimiter({ limit: 2, windowMs: 1_000 }, () => time);
    expect(limiter.hit("a")).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfter: 1 });
    expect(limiter.hit("a").remaining).toBe(0);
    expect(limiter.hit("a")).toMatchObject({ allowed: false, remaining: 0 });
    expect(limiter.hit("b").allowed).toBe(true);
    time = 1_000;
    expect(limiter.hit("a")).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("says how long until the window resets, in whole seconds", () => {
    let time = 0;
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000 }, () => time);
    limiter.hit("a");
    time = 15_500;
    expect(limiter.hit("a").retryAfter).toBe(45);
  });

  it("forgets windows that have ended", () => {
    let time = 0;
    const limiter = createRateLimiter({ limit: 5, windowMs: 1_000 }, () => time);
    for (let i = 0; i < 1_000; i += 1) limiter.hit(`key-${i}`);
    expect(limiter.size()).toBe(1_000);
    time = 2_000;
    limiter.hit("fresh");
    expect(limiter.size()).toBe(1);
  });
});
