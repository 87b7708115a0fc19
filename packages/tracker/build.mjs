// Builds the browser tracker into dist/ and the module the server imports it from.
//   dist/tally.min.js       the full script (what /script.js serves)
//   dist/tally.core.min.js  pageviews + tally.track + queue only
//   dist/tally.ext.min.js   the full script plus the extensions (/script.ext.js, data-extensions)
//   dist/plausible.min.js   the build for Plausible's snippet (/js/script.js), dist/umami.min.js for Umami's (/umami.js),
//                           dist/goatcounter.min.js for GoatCounter's (/count.js)
//   dist/index.js           export const trackerScript, trackerEtag, trackerEncoded (gzip and brotli, base64),
//                           plausibleTracker, umamiTracker ({ script, etag, encoded })
// Prints gzip (level 9) and brotli sizes; exits 1 if the full script, the extension build or a Plausible build exceeds its budget.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";

/** The budgets, gzip -9: the default build, and the build with every extension. */
const GZIP_BUDGET = 850;
const EXTENSIONS_GZIP_BUDGET = 2000;
/**
 * Plausible's snippet: its build, and the one with tagged events (script.tagged-events.js).
 * Tally's own limits (Plausible's script.js is about 1.4 KB): 1,500 and 1,800 B until the
 * pageview properties of script.pageview-props.js (`event-*` attributes) added ~90 B to both.
 */
const PLAUSIBLE_GZIP_BUDGET = 1600;
const PLAUSIBLE_TAGGED_GZIP_BUDGET = 1900;
const dist = new URL("./dist/", import.meta.url);

const FEATURES = ["SPA", "HASH", "OUTBOUND", "DNT", "QUEUE", "ENGAGED"];
/** Flags of the variants for other tools' snippets; never in Tally's own builds. */
const FLAGS = [...FEATURES, "PLAUSIBLE", "UMAMI", "GOATCOUNTER", "FOREIGN", "EXTENSIONS", "DOWNLOADS", "TAGGED"];

/** @param {string[]} enabled */
async function bundle(enabled) {
  const result = await build({
    entryPoints: [new URL("./src/tracker.ts", import.meta.url).pathname],
    bundle: true,
    write: false,
    format: "iife",
    minify: true,
    // Every evergreen browser (optional chaining, object spread and catch without a binding
    // are kept as written); also keeps the output free of newer syntax helpers.
    target: "es2020",
    legalComments: "none",
    // Ignore tsconfig.json (it is for type checking): its `strict` would add "use strict".
    tsconfigRaw: {},
    define: Object.fromEntries(FLAGS.map((f) => [`FEATURE_${f}`, String(enabled.includes(f))])),
  });
  return result.outputFiles[0].text.trim();
}

const sizes = (text) => ({
  raw: Buffer.byteLength(text),
  gzip: gzipSync(text, { level: 9 }).length,
  brotli: brotliCompressSync(text, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: text.length },
  }).length,
});

const variants = {
  "tally.min.js": FEATURES,
  "tally.core.min.js": ["QUEUE"],
  // Served at /script.ext.js: every extension, each turned on by data-extensions.
  "tally.ext.min.js": [...FEATURES, "EXTENSIONS", "DOWNLOADS"],
  // Served at /js/script.js (and script.*.js) and /umami.js: docs/moving.md, "Coming from Plausible, Umami or GoatCounter".
  "plausible.min.js": ["FOREIGN", "PLAUSIBLE", "SPA", "HASH", "OUTBOUND", "DOWNLOADS", "ENGAGED"],
  // Served for the script names with tagged-events: elements' plausible-event-* classes.
  "plausible-tagged.min.js": ["FOREIGN", "PLAUSIBLE", "SPA", "HASH", "OUTBOUND", "DOWNLOADS", "ENGAGED", "TAGGED"],
  "umami.min.js": ["FOREIGN", "UMAMI", "SPA"],
  // count.js follows no SPA navigation by itself (a page calls goatcounter.count()).
  "goatcounter.min.js": ["FOREIGN", "GOATCOUNTER"],
};

mkdirSync(dist, { recursive: true });
const built = {};
for (const [file, enabled] of Object.entries(variants)) {
  const text = await bundle(enabled);
  writeFileSync(new URL(file, dist), text);
  built[file] = text;
  const { raw, gzip, brotli } = sizes(text);
  console.log(`${file.padEnd(18)} ${raw} B raw, ${gzip} B gzip, ${brotli} B brotli`);
}

/** A served script: its text, strong ETag, and its forms compressed once here, at the highest levels, so the server never compresses it per request. */
const served = (script) => ({
  script,
  etag: `"${createHash("sha256").update(script).digest("base64url").slice(0, 16)}"`,
  encoded: {
    gzip: gzipSync(script, { level: 9 }).toString("base64"),
    br: brotliCompressSync(script, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: script.length },
    }).toString("base64"),
  },
});
const script = built["tally.min.js"];
const tally = served(script);
writeFileSync(
  new URL("index.js", dist),
  [
    `export const trackerScript = ${JSON.stringify(tally.script)};`,
    `export const trackerEtag = ${JSON.stringify(tally.etag)};`,
    `export const trackerEncoded = ${JSON.stringify(tally.encoded)};`,
    `export const plausibleTracker = ${JSON.stringify(served(built["plausible.min.js"]))};`,
    `export const plausibleTaggedTracker = ${JSON.stringify(served(built["plausible-tagged.min.js"]))};`,
    `export const umamiTracker = ${JSON.stringify(served(built["umami.min.js"]))};`,
    `export const goatCounterTracker = ${JSON.stringify(served(built["goatcounter.min.js"]))};`,
    `export const extensionsTracker = ${JSON.stringify(served(built["tally.ext.min.js"]))};`,
    "",
  ].join("\n"),
);
writeFileSync(
  new URL("index.d.ts", dist),
  [
    "/** The minified tracker served at `{base}/script.js`. */",
    "export declare const trackerScript: string;",
    '/** Strong ETag of `trackerScript`, quotes included: `"` + base64url(sha256) first 16 chars + `"`. */',
    "export declare const trackerEtag: string;",
    "/** `trackerScript` compressed at build time (gzip -9, brotli q11), base64. */",
    "export declare const trackerEncoded: { readonly gzip: string; readonly br: string };",
    "/** A build for another tool's snippet: its text, ETag and compressed forms, as above. */",
    "export interface ServedTracker { readonly script: string; readonly etag: string; readonly encoded: { readonly gzip: string; readonly br: string } }",
    '/** The build for Plausible\'s snippet, served at `{base}/js/script.js` (docs/moving.md, "Coming from Plausible, Umami or GoatCounter"). */',
    "export declare const plausibleTracker: ServedTracker;",
    "/** The same with Plausible's tagged events (`plausible-event-name=…` classes), served for `script.tagged-events.js` and the names with it. */",
    "export declare const plausibleTaggedTracker: ServedTracker;",
    "/** The build for Umami's snippet, served at `{base}/umami.js`. */",
    "export declare const umamiTracker: ServedTracker;",
    "/** The build for GoatCounter's snippet (`data-goatcounter`), served at `{base}/count.js`. */",
    "export declare const goatCounterTracker: ServedTracker;",
    '/** The build with the extensions (`data-extensions="downloads 404 forms scroll vitals"`), served at `{base}/script.ext.js`. */',
    "export declare const extensionsTracker: ServedTracker;",
    "",
    "/** What an event property may hold. */",
    "export type TallyPropValue = string | number | boolean;",
    "/** Any event name, any properties: the map of an untyped tracker. */",
    "export type TallyAnyEvents = Record<string, Record<string, TallyPropValue>>;",
    "/**",
    " * `window.tally` as the script defines it. Give it the map your server gives",
    " * `createTally<Events>()` and `track` takes the same names and properties:",
    " * `declare global { interface Window { tally: TallyTracker<Events> } }`.",
    " */",
    "export interface TallyTracker<E extends { [N in keyof E]: { [P in keyof E[N]]: TallyPropValue | undefined } } = TallyAnyEvents> {",
    "  track<N extends keyof E & string>(name: N, ...props: {} extends E[N] ? [props?: E[N]] : [props: E[N]]): void;",
    "}",
    "",
  ].join("\n"),
);

for (const [file, budget] of [
  ["tally.min.js", GZIP_BUDGET],
  ["tally.ext.min.js", EXTENSIONS_GZIP_BUDGET],
  ["plausible.min.js", PLAUSIBLE_GZIP_BUDGET],
  ["plausible-tagged.min.js", PLAUSIBLE_TAGGED_GZIP_BUDGET],
]) {
  const { gzip } = sizes(built[file]);
  if (gzip > budget) {
    console.error(`${file} is ${gzip} B gzipped, over the ${budget} B budget`);
    process.exit(1);
  }
}
