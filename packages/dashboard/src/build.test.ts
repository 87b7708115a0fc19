import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { dashboardAssets, dashboardModules } from "@tally-analytics/dashboard";
import { describe, expect, it } from "vitest";
import { en, MESSAGES, type Locale } from "./messages.js";
import { SIGN_IN_MESSAGES } from "./sign-in-messages.js";

/** build.mjs's budget for the first load, JS + CSS gzipped. */
const GZIP_BUDGET = 37_000;

const dist = new URL("../dist/", import.meta.url);
const read = (file: string) => {
  const url = new URL(file, dist);
  if (!existsSync(url)) throw new Error(`${url.pathname} is missing: run pnpm --filter @tally-analytics/dashboard run build`);
  return readFileSync(url, "utf8");
};

describe("built dashboard", () => {
  it("loads first its module, the modules it imports and its stylesheet, together under the budget gzipped (build.mjs says why)", () => {
    const firstLoad = ["dashboard.js", ...dashboardModules, "dashboard.css"];
    const imported = [...read("dashboard.js").matchAll(/import\s*(?:[\w${},\s*]+from\s*)?"\.\/([^"]+)"/g)].map((match) => match[1]);
    expect(imported.length).toBeGreaterThan(0);
    expect(dashboardModules).toEqual(expect.arrayContaining(imported));
    const gzipped = firstLoad.reduce((sum, file) => sum + gzipSync(read(file), { level: 9 }).length, 0);
    expect(gzipped).toBeLessThanOrEqual(GZIP_BUDGET);
  });

  it("leaves out of the first load what opens later: the parts it imports on demand are files of their own", () => {
    const onDemand = [...read("dashboard.js").matchAll(/import\("\.\/([^"]+)"\)/g)].map((match) => match[1]!);
    expect(onDemand.length).toBeGreaterThan(3);
    for (const file of onDemand) {
      expect(Object.keys(dashboardAssets)).toContain(file);
      expect(dashboardModules).not.toContain(file);
    }
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
    expect(Object.keys(JSON.parse(dashboardAssets["messages-en.json"].body) as object).sort()).toEqual(english);
    for (const locale of ["de", "fr", "es"] as const) {
      const asset = dashboardAssets[`messages-${locale}.json`];
      expect(asset.contentType).toMatch(/^application\/json/);
      expect(Object.keys(JSON.parse(asset.body) as object).sort()).toEqual(english);
      expect(["dashboard.js", ...dashboardModules].map(read).join("\n")).toContain(`assets/messages-${locale}.json?v=${asset.version}`);
    }
  });

  it("keeps the bodies in their files until one is served: the module a host imports holds only types and versions", () => {
    expect(read("index.js").length).toBeLessThan(6_000);
    for (const asset of Object.values(dashboardAssets)) {
      expect(gunzipSync(Buffer.from(asset.encoded.gzip, "base64")).toString("utf8")).toBe(asset.body);
      expect(brotliDecompressSync(Buffer.from(asset.encoded.br, "base64")).toString("utf8")).toBe(asset.body);
    }
  });

  it("speaks to the reader in one register per language, sign-in pages included: du in German, vous in French, tú in Spanish", () => {
    const texts = (locale: Locale) => [...Object.values(MESSAGES[locale]), ...Object.values(SIGN_IN_MESSAGES[locale])].join("\n");
    const words = (list: string) => new RegExp(`(?<!\\p{L})(?:${list})(?!\\p{L})`, "u");
    expect(texts("de")).not.toMatch(words("Sie|Ihre?[mnrs]?|Ihnen"));
    expect(texts("de")).toMatch(words("dein|deine|du"));
    expect(texts("fr")).not.toMatch(words("tu|ton|ta|tes|toi"));
    expect(texts("fr")).toMatch(words("vous"));
    expect(texts("es")).not.toMatch(words("usted|ustedes|Introduzca|Añada|Elija|Escriba|Pida"));
    expect(texts("es")).toMatch(words("tu"));
    // Every sign-in text in every language.
    for (const locale of Object.keys(SIGN_IN_MESSAGES) as Locale[])
      expect(Object.keys(SIGN_IN_MESSAGES[locale]).sort(), locale).toEqual(Object.keys(SIGN_IN_MESSAGES.en).sort());
  });

  it("uses no inline styles the Content-Security-Policy would block", () => {
    // components.js is not the dashboard: it fills its web components' shadow roots on the host's own pages.
    for (const file of Object.keys(dashboardAssets).filter((name) => name.endsWith(".js") && name !== "components.js"))
      expect(read(file), file).not.toMatch(/setAttribute\("style"|\.innerHTML\s*=/);
  });
});
