// The client's types: a wrong parameter is a compile error (types/client-types.ts, checked
// by tsc), and api-types.ts is exactly what the server's OpenAPI document generates.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { openApiDocument } from "@tally-analytics/server";
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES, clientTypes } from "../../scripts/client-types.mjs";

const TSC = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));
const PROJECT = fileURLToPath(new URL("./types/tsconfig.json", import.meta.url));

describe("the client's types", () => {
  it("compile what is right and refuse every wrong parameter (tsc, each @ts-expect-error used)", async () => {
    const result = await promisify(execFile)(process.execPath, [TSC, "-p", PROJECT], { encoding: "utf8" }).then(
      () => ({ code: 0, output: "" }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);

  it("api-types.ts is up to date with the OpenAPI document (pnpm generate:client)", async () => {
    expect(readFileSync(CLIENT_TYPES, "utf8")).toBe(await clientTypes(openApiDocument()));
  });
});
