import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { Script } from "node:vm";
import { gzipSync } from "node:zlib";
import { extensionsTracker, trackerEtag, trackerScript } from "@tally-analytics/tracker";
import { describe, expect, it } from "vitest";

const dist = new URL("../dist/", import.meta.url);
const read = (file: string) => {
  const url = new URL(file, dist);
  if (!existsSync(url)) throw new Error(`${url.pathname} is missing: run pnpm --filter @tally-analytics/tracker run build`);
  return readFileSync(url, "utf8");
};

describe("built tracker", () => {
  for (const file of ["tally.min.js", "tally.core.min.js"]) {
    it(`${file} parses as a script and stays under 1000 B gzipped`, () => {
      const text = read(file);
      expect(() => new Script(text, { filename: file })).not.toThrow();
      expect(text).toMatch(/^\(\(\)=>\{.*\}\)\(\);$/s);
      expect(gzipSync(text, { level: 9 }).length).toBeLessThanOrEqual(1000);
    });
  }

  it("keeps the issue's budgets: the default build ≤ 850 B gzipped, with every extension ≤ 2,000 B", () => {
    expect(gzipSync(read("tally.min.js"), { level: 9 }).length).toBeLessThanOrEqual(850);
    const extended = read("tally.ext.min.js");
    expect(() => new Script(extended, { filename: "tally.ext.min.js" })).not.toThrow();
    expect(gzipSync(extended, { level: 9 }).length).toBeLessThanOrEqual(2000);
    expect(extensionsTracker.script).toBe(extended);
  });

  it("puts the extensions in the extension build only", () => {
    // JSON.parse: data-props, the pageview's properties.
    const markers = [
      "data-file-types",
      "File Download",
      "Form: Submission",
      "tally-404",
      "largest-contentful-paint",
      "scrollY",
      "JSON.parse",
    ];
    for (const marker of markers) {
      expect(read("tally.ext.min.js")).toContain(marker);
      expect(read("tally.min.js")).not.toContain(marker);
      expect(read("tally.core.min.js")).not.toContain(marker);
    }
    // The Plausible build carries file downloads (script.file-downloads.js), nothing else of them.
    expect(read("plausible.min.js")).toContain("File Download");
    expect(read("plausible.min.js")).not.toContain("Form: Submission");
  });

  it("exports the full script and its ETag", () => {
    expect(trackerScript).toBe(read("tally.min.js"));
    const hash = createHash("sha256").update(trackerScript).digest("base64url").slice(0, 16);
    expect(trackerEtag).toBe(`"${hash}"`);
  });

  it("drops disabled features from the core build", () => {
    const full = read("tally.min.js");
    const core = read("tally.core.min.js");
    for (const marker of ["pushState", "Outbound Link: Click", "doNotTrack", "hashchange"]) {
      expect(full).toContain(marker);
      expect(core).not.toContain(marker);
    }
    expect(core).toContain("tally_ignore");
  });

  it("builds the variants for Plausible's and Umami's snippets, and Tally's own carry none of them", () => {
    const plausible = read("plausible.min.js");
    const umami = read("umami.min.js");
    for (const [file, text] of [
      ["plausible.min.js", plausible],
      ["umami.min.js", umami],
    ] as const) {
      expect(() => new Script(text, { filename: file })).not.toThrow();
    }
    expect(plausible).toContain("../api/event");
    expect(plausible).toContain("plausible_ignore");
    expect(plausible).toContain('"event-"'); // script.pageview-props.js
    // Tagged events (script.tagged-events.js): a build of its own, within its budget.
    const tagged = read("plausible-tagged.min.js");
    expect(() => new Script(tagged, { filename: "plausible-tagged.min.js" })).not.toThrow();
    expect(tagged).toContain("plausible-event-");
    expect(plausible).not.toContain("plausible-event-");
    expect(gzipSync(plausible, { level: 9 }).length).toBeLessThanOrEqual(1600);
    expect(gzipSync(tagged, { level: 9 }).length).toBeLessThanOrEqual(1900);
    expect(umami).toContain("api/send");
    expect(umami).toContain("umami.disabled");
    const goatcounter = read("goatcounter.min.js");
    expect(() => new Script(goatcounter, { filename: "goatcounter.min.js" })).not.toThrow();
    expect(goatcounter).toContain("skipgc");
    expect(goatcounter).toContain("data-goatcounter-click");
    for (const file of ["tally.min.js", "tally.core.min.js"]) {
      for (const marker of ["plausible", "umami", "goatcounter", "api/event", "api/send"]) expect(read(file)).not.toContain(marker);
    }
  });
});
