import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { Script } from "node:vm";
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { dashboardAssets } from "@tally-analytics/dashboard";
import { describe, expect, it } from "vitest";
import { en } from "./messages.js";

const dist = new URL("../dist/", import.meta.url);
const read = (file: string) => {
  const url = new URL(file, dist);
  if (!existsSync(url)) throw new Error(`${url.pathname} is missing: run pnpm --filter @tally-analytics/dashboard run build`);
  return readFileSync(url, "utf8");
};

describe("built dashboard", () => {
  it("is one script and one stylesheet, together under 30 KB gzipped (build.mjs says why)", () => {
    const script = read("dashboard.js");
    const styles = read("dashboard.css");
    expect(() => new Script(script, { filename: "dashboard.js" })).not.toThrow();
    expect(gzipSync(script, { level: 9 }).length + gzipSync(styles, { level: 9 }).length).toBeLessThanOrEqual(30_000);
  });

  it("exports each file with its content type and a content-hash version", () => {
    for (const [name, asset] of Object.entries(dashboardAssets)) {
      expect(asset.body).toBe(read(name));
      expect(asset.version).toBe(createHash("sha256").update(asset.body).digest("base64url").slice(0, 16));
    }
    expect(dashboardAssets["dashboard.js"].contentType).toMatch(/^text\/javascript/);
    expect(dashboardAssets["dashboard.css"].contentType).toMatch(/^text\/css/);
    // Every language but English is a file of its own, with every key English has.
    const english = Object.keys(en).sort();
    for (const locale of ["de", "fr", "es"] as const) {
      const asset = dashboardAssets[`messages-${locale}.json`];
      expect(asset.contentType).toMatch(/^application\/json/);
      expect(Object.keys(JSON.parse(asset.body) as object).sort()).toEqual(english);
      expect(read("dashboard.js")).toContain(`assets/messages-${locale}.json?v=${asset.version}`);
    }
  });

  it("keeps the bodies in their files until one is served: the module a host imports holds only types and versions", () => {
    expect(read("index.js").length).toBeLessThan(4_000);
    for (const asset of Object.values(dashboardAssets)) {
      expect(gunzipSync(Buffer.from(asset.encoded.gzip, "base64")).toString("utf8")).toBe(asset.body);
      expect(brotliDecompressSync(Buffer.from(asset.encoded.br, "base64")).toString("utf8")).toBe(asset.body);
    }
  });

  it("uses no inline styles the Content-Security-Policy would block", () => {
    expect(read("dashboard.js")).not.toMatch(/setAttribute\("style"|\.innerHTML\s*=/);
  });
});
