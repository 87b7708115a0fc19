// The client's types: a wrong parameter is a compile error (types/client-types.ts, checked
// by tsc), and api-types.ts is exactly what the server's OpenAPI document generates.
import { readFileSync } from "node:fs";
import { openApiDocument } from "@tally-analytics/server";
import { describe, expect, it } from "vitest";
import { typeCheck } from "../support/type-check.js";
import { CLIENT_TYPES, clientTypes } from "../../scripts/client-types.mjs";

const PROJECT = new URL("./types/tsconfig.json", import.meta.url);

describe("the client's types", () => {
  it("compile what is right and refuse every wrong parameter (tsc, each @ts-expect-error used)", async () => {
    const result = await typeCheck(PROJECT);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);

  it("api-types.ts is up to date with the OpenAPI document (pnpm generate:client)", async () => {
    expect(readFileSync(CLIENT_TYPES, "utf8")).toBe(await clientTypes(openApiDocument()));
  });
});
