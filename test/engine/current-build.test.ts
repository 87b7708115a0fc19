/**
 * The SQLite threads run `packages/core/dist`: a test run must never exercise a build
 * older than the source beside it (test/support/build-core.ts builds it first).
 */
import { describe, expect, it } from "vitest";
import { staleBuilds, staleBundles } from "../support/core-build.js";

describe("the code under test is the current source", () => {
  it("every source file of core has a compiled file in dist/ no older than itself (what the worker threads load)", () => {
    expect(staleBuilds()).toEqual([]);
  });

  it("core's bundles (what its package exports and the CLI loads) are no older than the compiled files they are made of", () => {
    expect(staleBundles()).toEqual([]);
  });
});
